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
    : transport_(transport), options_(std::move(options)) {}

absl::StatusOr<WatcherMetricsPtr> HttpClient::GetLatestMetrics(const MetricsRequest& request) {
  http::HttpRequest req;
  req.method = "GET";
  req.url = absl::StrCat(options_.address, "/watcher");
  if (request.window != kWindow15m) absl::StrAppend(&req.url, "?window=", request.window);
  req.headers.Set("Content-Type", "application/json");
  req.timeout = std::min(options_.timeout, request.timeout);
  req.max_body_bytes = options_.max_body_bytes;
  absl::StatusOr<http::HttpResponse> response = transport_.Send(req);
  if (!response.ok()) return Annotate(response.status(), "get load-watcher metrics");
  if (response->status_code != 200) {
    return absl::UnavailableError(
        absl::StrCat("received status code ", response->status_code, " from watcher ", req.url));
  }
  TRIMARAN_ASSIGN_OR_RETURN(WatcherMetrics metrics, DecodeWatcherMetricsJson(response->body));
  if (!request.hosts.empty()) metrics = FilterHosts(metrics, request.hosts);
  return std::make_shared<const WatcherMetrics>(std::move(metrics));
}

}  // namespace trimaran::lw
