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
// Snapshots are immutable and shared: the in-process client hands out the watcher's own
// snapshot without copying it (a request naming hosts gets a new, filtered snapshot);
// remote clients hand out the snapshot they decoded. Holders may keep it as long as they
// like; it never changes.
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

// An immutable, shared snapshot.
using WatcherMetricsPtr = std::shared_ptr<const WatcherMetrics>;

class Client {
 public:
  virtual ~Client() = default;
  // Never an OK null pointer.
  virtual absl::StatusOr<WatcherMetricsPtr> GetLatestMetrics(const MetricsRequest& request) = 0;
  absl::StatusOr<WatcherMetricsPtr> GetLatestMetrics() {
    return GetLatestMetrics(MetricsRequest{});
  }
};

using ClientPtr = std::unique_ptr<Client>;

// Returns a copy of `metrics` holding only `hosts` (all of them when `hosts` is empty).
WatcherMetrics FilterHosts(const WatcherMetrics& metrics, const std::vector<std::string>& hosts);
// Returns `metrics` itself when `hosts` is empty (no copy), else a new snapshot holding
// only `hosts`. `metrics` must not be null.
WatcherMetricsPtr FilterHosts(WatcherMetricsPtr metrics, const std::vector<std::string>& hosts);

}  // namespace trimaran::lw
