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

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "loadwatcher/metrics.h"

namespace trimaran::lw {

struct MetricsRequest {
  std::string window = std::string(kWindow15m);
  std::vector<std::string> hosts{};  // empty: all hosts
  // The request's deadline for remote clients: the smaller of this and the client's own
  // timeout applies (InfiniteDuration: the client's). Ignored by in-process clients.
  absl::Duration timeout = absl::InfiniteDuration();
};

// The most bytes a remote client accepts in one answer (an HTTP body, a gRPC message)
// unless configured otherwise: far above a real snapshot (about 1 KiB per node), far
// below what would hurt the scheduler. A larger answer fails with ResourceExhausted.
inline constexpr size_t kDefaultMaxResponseBytes = size_t{64} << 20;

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
  // Whether GetLatestMetrics may wait on the network (HttpClient, GrpcClient). Callers on
  // a latency-critical thread read such a client in the background (the plugins'
  // MetricsCache, scheduler/plugins/load_aware/metrics_source.h); an in-process client
  // answers from memory and is read inline.
  virtual bool remote() const { return false; }
};

using ClientPtr = std::unique_ptr<Client>;

// Returns a copy of `metrics` holding only `hosts` (all of them when `hosts` is empty).
WatcherMetrics FilterHosts(const WatcherMetrics& metrics, const std::vector<std::string>& hosts);
// Returns `metrics` itself when `hosts` is empty (no copy), else a new snapshot holding
// only `hosts`. `metrics` must not be null.
WatcherMetricsPtr FilterHosts(WatcherMetricsPtr metrics, const std::vector<std::string>& hosts);

}  // namespace trimaran::lw
