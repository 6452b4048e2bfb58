#include "loadwatcher/api_auth.h"

#include <utility>

#include "common/logging.h"

namespace trimaran::lw {
namespace {

stats::Family<stats::Counter>& RefusedFamily(const stats::Scope& stats) {
  return stats.CounterFamily("unauthenticated_requests_total",
                             "Requests to the load watcher's API refused for a missing or wrong "
                             "bearer token (--token-file), by API (rest, grpc).",
                             {"api"});
}

}  // namespace

ApiAuthenticator::ApiAuthenticator(std::string token_file, const stats::Scope& stats,
                                   absl::Duration log_interval)
    : checker_(std::move(token_file)),
      rest_refused_(RefusedFamily(stats).WithLabels({"rest"})),
      grpc_refused_(RefusedFamily(stats).WithLabels({"grpc"})),
      log_interval_(log_interval) {}

absl::Status ApiAuthenticator::Check(absl::string_view authorization, absl::string_view api,
                                     absl::string_view peer) {
  absl::Status status = checker_.Check(authorization);
  if (status.ok()) return status;
  (api == "grpc" ? grpc_refused_ : rest_refused_).Inc();
  const absl::Time now = absl::Now();
  absl::MutexLock lock(&log_mu_);
  if (now - last_log_ < log_interval_) {
    ++suppressed_;
    return status;
  }
  Log(Component::kLoadWatcher)
      .warn("refused unauthenticated request api={} peer={} reason=\"{}\" refused_since_last={}",
            api, peer, status.message(), suppressed_);
  last_log_ = now;
  suppressed_ = 0;
  return status;
}

void ApiAuthenticator::ProtectHttp(http::HttpServerOptions& options) {
  options.unfiltered_paths = OpenApiPaths();
  options.request_filter = [this](const http::ServerRequest& request,
                                  http::ServerResponse& response) {
    absl::Status s = Check(request.headers.GetOr("Authorization"), "rest", request.remote_addr);
    if (s.ok()) return true;
    response.status = 401;
    response.content_type = "application/json";
    response.headers.Set("WWW-Authenticate", "Bearer");
    response.body = "{\"error\":\"Unauthorized\"}";
    return false;
  };
}

grpc::Status ApiAuthenticator::CheckGrpc(const grpc::ServerContext& context) {
  std::string authorization;
  auto it = context.client_metadata().find("authorization");
  if (it != context.client_metadata().end()) {
    authorization.assign(it->second.data(), it->second.size());
  }
  absl::Status s = Check(authorization, "grpc", context.peer());
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "missing or invalid bearer token");
}

}  // namespace trimaran::lw
