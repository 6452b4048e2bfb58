#pragma once
// AdminServer: the scheduler's secure-port endpoints (spec §8.1) on an HttpServer with
// TLS (common/http/http_server.h):
//
//   /healthz, /livez, /readyz   kube-apiserver healthz semantics over HealthChecks:
//       all pass:  200 "ok"; with ?verbose, one "[+]<name> ok" line per check and then
//                  "<endpoint> check passed".
//       any fails: 500, "[+]<name> ok" / "[-]<name> failed: reason withheld" lines and
//                  "<endpoint> check failed" (the reasons are logged, as upstream; the
//                  individual endpoint below shows them).
//       ?exclude=<name> (repeatable) skips a check ("[+]<name> excluded: ok"); unknown
//       names add "warn: some health checks cannot be excluded: no matches for "x"".
//   /healthz/<check>, /livez/<check>, /readyz/<check>
//       200 "ok", or 500 "internal server error: <reason>"; 404 for an unknown check.
//   /metrics                    registry->PrometheusText(), kPrometheusTextContentType.
//   /configz                    {"componentconfig":<configz()>} as application/json
//                               (kube-scheduler's configz layout); 500 when it fails.
//   /debug/cache                the hook set by SetDebugCacheHandler (text); 404 unset.
//   /debug/decisions            the hook set by SetDebugDecisionsHandler (the scheduler's
//                               recent decisions as JSON, scheduler/decisions/); 404 unset.
//
// Health responses carry "Content-Type: text/plain; charset=utf-8" and
// "X-Content-Type-Options: nosniff".
//
// Access: with options.authorizer (the daemon's DelegatingAuthorizer: TokenReview and
// SubjectAccessReview, always-allowed probe paths), every route first asks it and a
// refusal is answered with its status and message (401/403/500); the route index at "/"
// is then not served. Without one, every route is open (tests, embedders).
//
// Workers: worker_threads (default 16) bounds concurrent connections; an idle keep-alive
// connection holds a worker for at most keep_alive_timeout (2 s), so a handful of idle
// scrapers cannot starve the kubelet's probes.
//
// Port 0 binds an ephemeral port (tests); "--secure-port 0 disables serving" is the
// caller's decision (do not create the server).
//
// Lifecycle: Create (validates, loads TLS) -> Start -> Stop (idempotent; the destructor
// stops). Thread-safety: Start/Stop from one owner thread; the Set* hooks, port()
// and url() from any thread; the callbacks run concurrently on the HTTP worker threads
// and must be thread-safe. Ownership: `registry` and `checks` are borrowed and must
// outlive the server.

#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/http/http_server.h"
#include "common/stats/registry.h"
#include "scheduler/server/health_checks.h"
#include "scheduler/server/request_authorizer.h"

namespace trimaran::sched {

struct AdminServerOptions {
  std::string bind_address = "0.0.0.0";
  int port = 10259;
  std::string cert_file{};  // PEM; both required (the admin server is HTTPS only)
  std::string key_file{};
  int worker_threads = 16;
  absl::Duration keep_alive_timeout = absl::Seconds(2);
  // "" = TLS 1.2; "VersionTLS12" or "VersionTLS13" (kube's --tls-min-version values;
  // 1.0 and 1.1 are refused as insecure).
  std::string tls_min_version{};
  // Borrowed; null = no authentication or authorization.
  const RequestAuthorizer* authorizer = nullptr;
};

// Returns the effective configuration as a JSON object.
using ConfigzFn = std::function<absl::StatusOr<std::string>()>;
// Returns a text dump (e.g. the scheduler cache) for /debug/cache.
using DebugTextFn = std::function<std::string(const http::ServerRequest& request)>;

class AdminServer {
 public:
  // InvalidArgument for missing TLS files, a null registry/checks or an invalid option
  // (from HttpServer::Create).
  static absl::StatusOr<std::unique_ptr<AdminServer>> Create(AdminServerOptions options,
                                                             stats::Registry* registry,
                                                             const HealthChecks* checks,
                                                             ConfigzFn configz);
  ~AdminServer();
  AdminServer(const AdminServer&) = delete;
  AdminServer& operator=(const AdminServer&) = delete;

  absl::Status Start();
  void Stop();

  // May be set (or replaced) at any time, also while serving.
  void SetDebugCacheHandler(DebugTextFn fn) ABSL_LOCKS_EXCLUDED(mu_);
  // The /debug/decisions handler (it sets the status, content type and body). May be set
  // at any time.
  void SetDebugDecisionsHandler(http::RouteHandler fn) ABSL_LOCKS_EXCLUDED(mu_);
  // A line added to verbose /readyz output before the verdict, e.g. the daemon's
  // "leader-election: leading (lease kube-system/trimaran-scheduler)". Informational:
  // it never fails the check. May be set at any time.
  void SetReadyzNote(std::function<std::string()> fn) ABSL_LOCKS_EXCLUDED(mu_);

  int port() const { return server_->port(); }
  std::string url() const { return server_->url(); }

 private:
  AdminServer(std::unique_ptr<http::HttpServer> server, stats::Registry* registry,
              const HealthChecks* checks, ConfigzFn configz, const RequestAuthorizer* authorizer);
  absl::Status AddRoutes();
  // `route` with its handler behind the authorizer.
  absl::Status AddGuardedRoute(http::Route route);
  void ServeHealth(HealthEndpoint endpoint, const http::ServerRequest& request,
                   http::ServerResponse& response) const;
  void ServeOneCheck(HealthEndpoint endpoint, const http::ServerRequest& request,
                     http::ServerResponse& response) const;

  const std::unique_ptr<http::HttpServer> server_;
  stats::Registry* const registry_;
  const HealthChecks* const checks_;
  const ConfigzFn configz_;
  const RequestAuthorizer* const authorizer_;
  mutable absl::Mutex mu_;
  DebugTextFn debug_cache_ ABSL_GUARDED_BY(mu_);
  http::RouteHandler debug_decisions_ ABSL_GUARDED_BY(mu_);
  std::function<std::string()> readyz_note_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched
