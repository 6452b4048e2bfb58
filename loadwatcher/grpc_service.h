#pragma once
// GrpcService: trimaran.loadwatcher.v1.LoadWatcher over a Watcher (sync gRPC API).
//
//   GetLatestMetrics  Watcher::Latest(window) (15m when empty), reduced to `hosts`.
//                     INVALID_ARGUMENT for an unknown window, UNAVAILABLE before the
//                     first successful fetch.
//   WatchMetrics      sends the current snapshot (if any), then every newer one for
//                     the window (checked on each new Watcher generation), until the
//                     client cancels or Shutdown() is called. Each stream holds one
//                     server thread; it polls for cancellation every
//                     `poll_interval` of real time. At most `max_watch_streams` are
//                     open at once (kDefaultMaxWatchStreams); one more is answered
//                     RESOURCE_EXHAUSTED at once, so that streams cannot take every
//                     server thread (the threads themselves are bounded by
//                     grpc_server_limits.h).
//
// With RequireAuth(auth), every method first checks the call's bearer token
// (ApiAuthenticator) and answers UNAUTHENTICATED without it.
//
// Thread-safety: safe for concurrent use. Borrows the Watcher, which must outlive it.
// Call Shutdown() before grpc::Server::Shutdown() so open streams end at once.

#include <atomic>

#include "absl/time/time.h"
#include "loadwatcher/api_auth.h"
#include "loadwatcher/watcher.h"
#include "proto/loadwatcher/v1/loadwatcher.grpc.pb.h"

namespace trimaran::lw {

inline constexpr int kDefaultMaxWatchStreams = 8;

class GrpcService final : public loadwatcher::v1::LoadWatcher::Service {
 public:
  explicit GrpcService(const Watcher& watcher,
                       absl::Duration poll_interval = absl::Milliseconds(100),
                       int max_watch_streams = kDefaultMaxWatchStreams)
      : watcher_(watcher), poll_interval_(poll_interval), max_watch_streams_(max_watch_streams) {}

  // The WatchMetrics streams open now.
  int open_watch_streams() const { return open_watch_streams_.load(); }

  // Ends every WatchMetrics stream (they return OK) and refuses new ones.
  void Shutdown() { shutdown_.store(true); }

  // Requires the bearer token on every method (before the server starts). Borrowed.
  void RequireAuth(ApiAuthenticator* auth) { auth_ = auth; }

  grpc::Status GetLatestMetrics(grpc::ServerContext* context,
                                const loadwatcher::v1::GetLatestMetricsRequest* request,
                                loadwatcher::v1::WatcherMetrics* response) override;
  grpc::Status WatchMetrics(grpc::ServerContext* context,
                            const loadwatcher::v1::WatchMetricsRequest* request,
                            grpc::ServerWriter<loadwatcher::v1::WatcherMetrics>* writer) override;

 private:
  const Watcher& watcher_;
  const absl::Duration poll_interval_;
  const int max_watch_streams_;
  std::atomic<int> open_watch_streams_{0};
  std::atomic<bool> shutdown_{false};
  ApiAuthenticator* auth_ = nullptr;
};

}  // namespace trimaran::lw
