#include "scheduler/decisions/decisions_endpoint.h"

#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "scheduler/decisions/decision_json.h"

namespace trimaran::sched::decisions {

void ServeDecisions(const DecisionRing* ring, const http::ServerRequest& request,
                    http::ServerResponse& response) {
  response.headers.Add("X-Content-Type-Options", "nosniff");
  size_t limit = 0;
  if (request.HasQuery("limit")) {
    const absl::string_view text = request.Query("limit");
    uint64_t parsed = 0;
    if (!absl::SimpleAtoi(text, &parsed) || parsed == 0 || parsed > kMaxLimit) {
      response.status = 400;
      response.content_type = "text/plain; charset=utf-8";
      response.body =
          absl::StrCat("invalid limit \"", text, "\": want an integer from 1 to ", kMaxLimit, "\n");
      return;
    }
    limit = static_cast<size_t>(parsed);
  }
  response.status = 200;
  response.content_type = "application/json";
  if (ring == nullptr) {
    response.body = EncodeDecisions(0, {});
    return;
  }
  response.body = EncodeDecisions(ring->capacity(), ring->List(request.Query("pod"), limit));
}

}  // namespace trimaran::sched::decisions
