#include "scheduler/extender/client_names.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace trimaran::sched::extender {
namespace {

bool Refuse(http::ServerResponse& response, int status, std::string message) {
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::move(message);
  return false;
}

}  // namespace

bool ClientNamePolicy::Check(const http::ServerRequest& request,
                             http::ServerResponse& response) const {
  if (!require_client_certificate) return true;
  if (request.peer_certificate_subject.empty()) {
    return Refuse(response, 401, "Unauthorized: a client certificate is required\n");
  }
  if (allowed_names.empty()) return true;
  auto allowed = [this](const std::string& name) {
    return !name.empty() &&
           std::find(allowed_names.begin(), allowed_names.end(), name) != allowed_names.end();
  };
  if (allowed(request.peer_certificate_common_name)) return true;
  if (std::any_of(request.peer_certificate_dns_names.begin(),
                  request.peer_certificate_dns_names.end(), allowed)) {
    return true;
  }
  return Refuse(
      response, 403,
      absl::StrCat("forbidden: client certificate \"", request.peer_certificate_common_name,
                   "\" is not in --extender-allowed-names\n"));
}

}  // namespace trimaran::sched::extender
