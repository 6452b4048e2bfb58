#include "dashboard/web/decisions.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/json_parse.h"
#include "common/status_macros.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"

namespace trimaran::dashboard::web {
namespace {

absl::StatusOr<std::string> ReadToken(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::FailedPreconditionError(absl::StrCat("cannot read token file ", path));
  std::stringstream b;
  b << in.rdbuf();
  return std::string(absl::StripAsciiWhitespace(b.str()));
}

}  // namespace

absl::Status ValidateDecisionsJson(const std::string& body) {
  rapidjson::Document doc;
  TRIMARAN_RETURN_IF_ERROR(
      ParseJsonDocument(body, doc, JsonLimits{}, "scheduler /debug/decisions"));
  if (!doc.IsObject() || !doc.HasMember("decisions") || !doc["decisions"].IsArray()) {
    return absl::InvalidArgumentError(
        "scheduler /debug/decisions: expected an object with a \"decisions\" array");
  }
  return absl::OkStatus();
}

HttpDecisionsSource::HttpDecisionsSource(http::HttpTransport& transport,
                                         HttpDecisionsOptions options)
    : transport_(transport), options_(std::move(options)) {}

absl::StatusOr<std::string> HttpDecisionsSource::Fetch(int limit) {
  http::HttpRequest req;
  req.url = absl::StrCat(absl::StripSuffix(options_.url, "/"), kDecisionsPath, "?limit=", limit);
  req.timeout = options_.timeout;
  req.tls = options_.tls;
  req.max_body_bytes = size_t{16} << 20;
  std::string token = options_.bearer_token;
  if (!options_.bearer_token_file.empty()) {
    absl::StatusOr<std::string> t = ReadToken(options_.bearer_token_file);
    if (!t.ok()) return t.status();
    token = *std::move(t);
  } else if (options_.token_source) {
    absl::StatusOr<std::string> t = options_.token_source();
    if (!t.ok()) {
      return absl::Status(
          t.status().code(),
          absl::StrCat("scheduler /debug/decisions: credentials: ", t.status().message()));
    }
    token = *std::move(t);
  }
  if (!token.empty()) req.headers.Set("Authorization", absl::StrCat("Bearer ", token));
  req.headers.Set("Accept", "application/json");
  absl::StatusOr<http::HttpResponse> resp = transport_.Send(req);
  if (!resp.ok()) {
    return absl::Status(resp.status().code(),
                        absl::StrCat("scheduler /debug/decisions: ", resp.status().message()));
  }
  if (resp->status_code != 200) {
    std::string body(absl::StripAsciiWhitespace(resp->body.substr(0, 300)));
    absl::StatusCode code = absl::StatusCode::kUnavailable;
    if (resp->status_code == 401) code = absl::StatusCode::kUnauthenticated;
    if (resp->status_code == 403) code = absl::StatusCode::kPermissionDenied;
    if (resp->status_code == 404) code = absl::StatusCode::kNotFound;
    if (resp->status_code == 400) code = absl::StatusCode::kInvalidArgument;
    return absl::Status(code, absl::StrCat("scheduler /debug/decisions: HTTP ", resp->status_code,
                                           body.empty() ? "" : ": ", body));
  }
  absl::Status valid = ValidateDecisionsJson(resp->body);
  if (!valid.ok()) return valid;
  return std::move(resp->body);
}

}  // namespace trimaran::dashboard::web
