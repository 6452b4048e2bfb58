#pragma once
// The load watcher's REST API (spec §5.3), as routes for common/http HttpServer:
//
//   GET /watcher[?host=<node>][&window=15m|10m|5m]
//       200 + paypal/load-watcher JSON (json.h) of the latest snapshot (window default
//       15m, with the watcher's fallback). `host`: only that node; a node not in the
//       snapshot gives 404. `window` is our extension; an unknown one gives 400.
//       Before the first successful fetch: 503 with {"error":"..."} (upstream answers
//       an empty 500; its clients treat any non-200 as "not ready yet", so both work).
//       Without `host` the 200 body is streamed (chunked transfer encoding, 64 KB
//       chunks) from the shared snapshot instead of being built whole: 5,000 nodes are
//       2.6 MB of JSON. Go's net/http answers a body that size chunked as well.
//   GET /watcher/health
//       200 {"status":"ok"} when the provider's Health() is OK, else 503 {"error":...}.
//
// ReadyzBody is the text of the daemon's /readyz (kube-style, text/plain, always 200
// while serving): a provider that does not answer makes the watcher degraded, never
// unready (issue 34, trap 1: an unready pod hangs `kubectl rollout status` and holds
// the PodDisruptionBudget while the scheduler beside it packs by requests):
//   healthy           "ok"
//   not answering     "ok (degraded: metrics provider not answering: <why>)"
//   ?verbose          "[+]serving ok\n[+]metrics-provider ok\nreadyz check passed\n", or
//                     "[-]metrics-provider degraded: <why> (does not fail readiness)"
//
// Every answer is Content-Type: application/json. Upstream does not check the method;
// we serve GET (and HEAD).
//
// Thread-safety: the handlers are safe for concurrent use. They borrow the Watcher,
// which must outlive the server.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/http/http_server.h"
#include "loadwatcher/watcher.h"

namespace trimaran::lw {

inline constexpr char kWatcherPath[] = "/watcher";
inline constexpr char kWatcherHealthPath[] = "/watcher/health";

std::vector<http::Route> WatcherRoutes(const Watcher& watcher);

// Adds WatcherRoutes to `server` (before Start).
absl::Status AddWatcherRoutes(const Watcher& watcher, http::HttpServer& server);

// The daemon's probes, open to the kubelet (no token): /healthz and /livez (200 "ok"
// while the process serves) and /readyz (ReadyzBody).
std::vector<http::Route> ProbeRoutes(const Watcher& watcher);

// The body of /readyz for a provider whose Health() is `provider_health`; see above.
std::string ReadyzBody(const absl::Status& provider_health, bool verbose);

}  // namespace trimaran::lw
