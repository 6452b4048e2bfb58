#include "loadwatcher/http_handlers.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "loadwatcher/client.h"
#include "loadwatcher/json.h"

namespace trimaran::lw {
namespace {

constexpr char kJson[] = "application/json";
// Bytes per chunk of a streamed GET /watcher body.
constexpr size_t kStreamChunkBytes = 64 * 1024;

void JsonError(int status, absl::string_view message, http::ServerResponse& response) {
  response.status = status;
  response.content_type = kJson;
  response.body = "{\"error\":";
  AppendJsonString(message, &response.body);
  response.body.push_back('}');
}

void ServeWatcher(const Watcher& watcher, const http::ServerRequest& request,
                  http::ServerResponse& response) {
  const absl::string_view window =
      request.HasQuery("window") ? request.Query("window") : absl::string_view(kWindow15m);
  if (WindowSeconds(window) == 0) {
    JsonError(400, absl::StrCat("unknown window \"", window, "\" (want 15m, 10m or 5m)"), response);
    return;
  }
  absl::StatusOr<Snapshot> snapshot = watcher.Latest(window);
  if (!snapshot.ok()) {
    JsonError(503, absl::StrCat("no metrics yet: ", snapshot.status().message()), response);
    return;
  }
  const WatcherMetrics& metrics = *snapshot->metrics;
  response.status = 200;
  response.content_type = kJson;
  if (request.HasQuery("host")) {
    const std::string host(request.Query("host"));
    if (!metrics.data.node_metrics_map.contains(host)) {
      JsonError(404, absl::StrCat("no metrics found for host ", host), response);
      return;
    }
    response.body = EncodeWatcherMetricsJson(FilterHosts(metrics, {host}));
    return;
  }
  // Every host: streamed in chunks from the shared snapshot, so serving 5,000 nodes
  // (2.6 MB) never holds the whole body (nor the server's copy of it) in memory.
  response.stream = [shared = snapshot->metrics](http::ChunkWriter& writer) {
    (void)EncodeWatcherMetricsJsonChunked(
        *shared, kStreamChunkBytes,
        [&writer](absl::string_view chunk) { return writer.Write(chunk); });
  };
}

void ServeHealth(const Watcher& watcher, http::ServerResponse& response) {
  absl::Status health = watcher.provider().Health();
  if (!health.ok()) {
    JsonError(503, absl::StrCat(watcher.provider_name(), " unhealthy: ", health.message()),
              response);
    return;
  }
  response.status = 200;
  response.content_type = kJson;
  response.body = "{\"status\":\"ok\"}";
}

}  // namespace

std::vector<http::Route> WatcherRoutes(const Watcher& watcher) {
  std::vector<http::Route> routes;
  http::Route metrics;
  metrics.path = kWatcherPath;
  metrics.help = "latest load-watcher metrics (paypal/load-watcher JSON); ?host=, ?window=";
  metrics.handler = [&watcher](const http::ServerRequest& req, http::ServerResponse& res) {
    ServeWatcher(watcher, req, res);
  };
  routes.push_back(std::move(metrics));
  http::Route health;
  health.path = kWatcherHealthPath;
  health.help = "metrics provider health (200 or 503)";
  health.handler = [&watcher](const http::ServerRequest&, http::ServerResponse& res) {
    ServeHealth(watcher, res);
  };
  routes.push_back(std::move(health));
  return routes;
}

absl::Status AddWatcherRoutes(const Watcher& watcher, http::HttpServer& server) {
  for (http::Route& route : WatcherRoutes(watcher)) {
    TRIMARAN_RETURN_IF_ERROR(server.AddRoute(std::move(route)));
  }
  return absl::OkStatus();
}

std::string ReadyzBody(const absl::Status& provider_health, bool verbose) {
  const std::string why(provider_health.message());
  if (!verbose) {
    return provider_health.ok()
               ? std::string("ok")
               : absl::StrCat("ok (degraded: metrics provider not answering: ", why, ")");
  }
  return absl::StrCat("[+]serving ok\n",
                      provider_health.ok() ? std::string("[+]metrics-provider ok\n")
                                           : absl::StrCat("[-]metrics-provider degraded: ", why,
                                                          " (does not fail readiness)\n"),
                      "readyz check passed\n");
}

std::vector<http::Route> ProbeRoutes(const Watcher& watcher) {
  std::vector<http::Route> routes;
  for (const char* path : {"/healthz", "/livez"}) {
    routes.push_back({.path = path,
                      .help = "liveness: 200 ok while the process serves (no token needed)",
                      .handler = [](const http::ServerRequest&, http::ServerResponse& response) {
                        response.body = "ok";
                      }});
  }
  routes.push_back(
      {.path = "/readyz",
       .help = "readiness: 200 while serving; the body (?verbose: per check) "
               "says whether the metrics provider answers (no token needed)",
       .handler = [&watcher](const http::ServerRequest& request, http::ServerResponse& response) {
         response.body = ReadyzBody(watcher.provider().Health(), request.query.contains("verbose"));
       }});
  return routes;
}

}  // namespace trimaran::lw
