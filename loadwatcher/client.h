#pragma once
// loadwatcher::Client: how the scheduler side (the load-aware plugins, trimaranctl)
// reads load-watcher data, whatever the transport:
//
//   InProcessClient (in_process_client.h)  over a Watcher in the same process
//   HttpClient      (http_client.h)        GET {watcherAddress}/watcher, paypal JSON
//   GrpcClient      (grpc_client.h)        trimaran.loadwatcher.v1.LoadWatcher
//   FakeLoadWatcherClient (testing/)       canned answers
//
// GetLatestMetrics returns the newest snapshot for the window (with the watcher's
// fallback order, see watcher.h), reduced to `hosts` when that is not empty (hosts the
// watcher does not know are simply absent; that is not an error). Unavailable means
// "no data yet / watcher unreachable": callers score 0 and try again next cycle.
//
// Thread-safety: implementations are safe for concurrent use.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "loadwatcher/metrics.h"

namespace trimaran::lw {

struct MetricsRequest {
  std::string window = std::string(kWindow15m);
  std::vector<std::string> hosts{};  // empty: all hosts
};

class Client {
 public:
  virtual ~Client() = default;
  virtual absl::StatusOr<WatcherMetrics> GetLatestMetrics(const MetricsRequest& request) = 0;
  absl::StatusOr<WatcherMetrics> GetLatestMetrics() { return GetLatestMetrics(MetricsRequest{}); }
};

using ClientPtr = std::unique_ptr<Client>;

// Returns a copy of `metrics` holding only `hosts` (all of them when `hosts` is empty).
WatcherMetrics FilterHosts(const WatcherMetrics& metrics, const std::vector<std::string>& hosts);

}  // namespace trimaran::lw
