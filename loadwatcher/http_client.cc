#include "loadwatcher/http_client.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "loadwatcher/json.h"

namespace trimaran::lw {

HttpClient::HttpClient(http::HttpTransport& transport, HttpClientOptions options)
    : transport_(transport),
      options_(std::move(options)),
      token_(options_.token_file.empty() ? nullptr
                                         : std::make_unique<http::TokenFile>(options_.token_file)) {
}

absl::StatusOr<WatcherMetricsPtr> HttpClient::GetLatestMetrics(const MetricsRequest& request) {
  http::HttpRequest req;
  req.method = "GET";
  req.url = absl::StrCat(options_.address, "/watcher");
  if (request.window != kWindow15m) absl::StrAppend(&req.url, "?window=", request.window);
  req.headers.Set("Content-Type", "application/json");
  req.timeout = std::min(options_.timeout, request.timeout);
  req.max_body_bytes = options_.max_body_bytes;
  if (!options_.ca_file.empty()) req.tls = http::TlsOptions{.ca_file = options_.ca_file};
  if (token_ != nullptr) {
    absl::StatusOr<std::string> token = token_->Get();
    if (!token.ok()) return Annotate(token.status(), "load-watcher bearer token");
    req.headers.Set("Authorization", absl::StrCat("Bearer ", *token));
  }
  absl::StatusOr<http::HttpResponse> response = transport_.Send(req);
  if (!response.ok()) return Annotate(response.status(), "get load-watcher metrics");
  if (response->status_code == 401) {
    return absl::UnauthenticatedError(absl::StrCat(
        "watcher ", req.url, " answered 401 Unauthorized (missing or wrong bearer token)"));
  }
  if (response->status_code == 403) {
    return absl::PermissionDeniedError(absl::StrCat("watcher ", req.url, " answered 403"));
  }
  if (response->status_code != 200) {
    return absl::UnavailableError(
        absl::StrCat("received status code ", response->status_code, " from watcher ", req.url));
  }
  TRIMARAN_ASSIGN_OR_RETURN(WatcherMetrics metrics, DecodeWatcherMetricsJson(response->body));
  if (!request.hosts.empty()) metrics = FilterHosts(metrics, request.hosts);
  return std::make_shared<const WatcherMetrics>(std::move(metrics));
}

}  // namespace trimaran::lw
