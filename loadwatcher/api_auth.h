#pragma once
// ApiAuthenticator: the load watcher's optional bearer token (load-watcher --token-file)
// on its REST and gRPC APIs.
//
//   REST  every path except kOpenPaths (/healthz, /readyz, /livez) needs
//         "Authorization: Bearer <token>": /watcher, /watcher/health, /metrics (as
//         kube-scheduler protects its /metrics), the "/" index, unknown paths and any
//         route added later (the dashboard's). Otherwise 401 with
//         "WWW-Authenticate: Bearer" and a JSON {"error": ...} body.
//   gRPC  every method needs the metadata "authorization: Bearer <token>"; otherwise
//         UNAUTHENTICATED.
//
// The token file is re-read when it changes (BearerTokenChecker, TokenFile); the
// comparison is constant-time. Each refusal is counted in
// trimaran_loadwatcher_unauthenticated_requests_total{api="rest"|"grpc"} and logged at
// most once per log_interval (with the number refused since the previous line).
//
// Thread-safety: safe for concurrent use.

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/http/bearer_auth.h"
#include "common/http/http_server.h"
#include "common/stats/scope.h"
#include "common/stats/stats.h"
#include "grpcpp/server_context.h"

namespace trimaran::lw {

inline const std::vector<std::string>& OpenApiPaths() {
  static const std::vector<std::string>* const kPaths =
      new std::vector<std::string>{"/healthz", "/readyz", "/livez"};
  return *kPaths;
}

class ApiAuthenticator {
 public:
  // `stats` is the load watcher's scope (trimaran_loadwatcher_).
  ApiAuthenticator(std::string token_file, const stats::Scope& stats,
                   absl::Duration log_interval = absl::Seconds(10));

  // OK, or Unauthenticated with the reason; counts and logs refusals under `api`.
  absl::Status Check(absl::string_view authorization, absl::string_view api, absl::string_view peer)
      ABSL_LOCKS_EXCLUDED(log_mu_);

  // Sets request_filter and unfiltered_paths of a server's options.
  void ProtectHttp(http::HttpServerOptions& options);

  // For a gRPC method: OK or UNAUTHENTICATED.
  grpc::Status CheckGrpc(const grpc::ServerContext& context);

  const std::string& token_file() const { return checker_.token_file(); }

 private:
  const http::BearerTokenChecker checker_;
  stats::Counter& rest_refused_;
  stats::Counter& grpc_refused_;
  const absl::Duration log_interval_;
  absl::Mutex log_mu_;
  absl::Time last_log_ ABSL_GUARDED_BY(log_mu_) = absl::InfinitePast();
  int suppressed_ ABSL_GUARDED_BY(log_mu_) = 0;
};

}  // namespace trimaran::lw
