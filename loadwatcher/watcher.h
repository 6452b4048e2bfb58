#pragma once
// Watcher: polls a MetricsProvider for the 15m, 10m and 5m windows and keeps, per
// window, the last good snapshots with their fetch time (spec §5.4, with the fixes
// issue 6 asks for).
//
//   FetchOnce()   fetches every window once, in the order 15m, 10m, 5m, each with
//                 window = {D, now - D, now} (unix seconds; D = 900/600/300 s).
//   Run(stop)     production loop: FetchOnce, then wait until the tick's start +
//                 fetch_interval (default 60 s) on the Clock, until stop is requested.
//                 (Upstream runs one "fetch, sleep 60 s" loop per window, so its
//                 period drifts by the fetch time; ours is start-to-start.)
//   Latest(w)     the newest snapshot for window w with upstream's fallback order:
//                   15m -> 10m (never 5m, as upstream), 10m -> 5m, 5m -> none.
//                 NotFound / Unavailable before the first successful fetch.
//
// Per window, a fetch that fails (provider error) appends nothing: the last good
// snapshot stays and its age grows; the error is counted. A fetch whose provider
// reports partial errors keeps the data that did arrive (upstream drops all of it) and
// counts the errors. One window's failure never touches another window's data.
// Metrics with non-finite values are dropped (JSON cannot carry them) and counted.
//
// Stats, named relative to the Scope given (the programs pass "trimaran_loadwatcher_",
// giving trimaran_loadwatcher_fetches_total, ...):
//   fetch_duration_seconds{provider,window}   histogram
//   fetches_total{provider,window,result}      ok | partial | error
//   fetch_errors_total{provider}               failed fetches + partial errors
//   metrics_age_seconds{window}                now - fetch time of the last good snapshot
//                                              (-1: none yet), at scrape
//   nodes{window,state}                        with_data | without_data (a node listed
//                                              with no metrics)
//   dropped_metrics_total{provider}            non-finite values dropped
//   node_utilisation_ratio{node,resource,window,operator}
//                                              each node's metric of the window's last
//                                              good snapshot, as a ratio (the provider's
//                                              percentage / 100: CPU used / CPU capacity,
//                                              memory used / memory capacity); resource is
//                                              the metric type in lower case (cpu,
//                                              memory), operator upstream's (AVG, STD,
//                                              Latest). A node that leaves the snapshot
//                                              loses its series. Cardinality: nodes x
//                                              resources x operators x 3 windows.
//
// Thread-safety: safe for concurrent use. FetchOnce may run concurrently with readers;
// concurrent FetchOnce calls are serialized. Snapshots are immutable and shared.
// Ownership: borrows the provider, the clock and the Scope's registry, which must
// outlive the Watcher.

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/stats/stats.h"
#include "loadwatcher/metrics.h"
#include "loadwatcher/metrics_provider.h"

namespace trimaran::lw {

struct WatcherOptions {
  absl::Duration fetch_interval = absl::Seconds(60);
  // Snapshots kept per window (upstream: 5). At least 1.
  int history_size = 5;
};

// One good fetch of one window. `metrics` is shared and immutable.
struct Snapshot {
  std::shared_ptr<const WatcherMetrics> metrics;
  absl::Time fetch_time;  // when the fetch completed (== metrics->timestamp, unrounded)

  absl::Duration Age(absl::Time now) const { return now - fetch_time; }
};

// Health of one window, for /readyz, dashboards and tests.
struct WindowStatus {
  std::string window;
  std::optional<absl::Time> last_good_fetch;  // unset before the first good fetch
  int64_t fetches = 0;                        // attempts
  int64_t failed_fetches = 0;                 // provider returned an error
  int64_t partial_errors = 0;                 // errors reported alongside data
  int64_t consecutive_failures = 0;           // reset by a good fetch
  absl::Status last_error;                    // OK if the last fetch was fully good
};

class Watcher {
 public:
  // The three windows, in fetch order.
  static const std::vector<std::string>& Windows();

  Watcher(MetricsProvider& provider, const Clock& clock, const stats::Scope& scope,
          WatcherOptions options = {});
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // Fetches every window once. OK when every window's fetch returned data (possibly with
  // partial errors); otherwise the first failure, annotated with the window.
  absl::Status FetchOnce() ABSL_LOCKS_EXCLUDED(mu_);

  // Fetches until `stop` is requested (see the header comment). Returns promptly after
  // the request, without starting another fetch.
  void Run(std::stop_token stop);

  // The newest snapshot for `window` with the fallback above. InvalidArgument for an
  // unknown window; Unavailable ("unable to get any latest metrics") when no eligible
  // window has data yet.
  absl::StatusOr<Snapshot> Latest(absl::string_view window = kWindow15m) const
      ABSL_LOCKS_EXCLUDED(mu_);

  // The snapshots kept for exactly `window` (no fallback), oldest first.
  std::vector<Snapshot> History(absl::string_view window) const ABSL_LOCKS_EXCLUDED(mu_);

  // True once any window has a snapshot.
  bool HasData() const ABSL_LOCKS_EXCLUDED(mu_);

  std::vector<WindowStatus> Status() const ABSL_LOCKS_EXCLUDED(mu_);

  // Increments with every snapshot stored (any window). WatchMetrics streams use it.
  uint64_t generation() const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits (real time, at most `timeout`) until generation() > `seen`; returns the new
  // generation or `seen` on timeout.
  uint64_t AwaitGeneration(uint64_t seen, absl::Duration timeout) const ABSL_LOCKS_EXCLUDED(mu_);

  const std::string& provider_name() const { return provider_name_; }
  MetricsProvider& provider() const { return provider_; }
  const Clock& clock() const { return clock_; }

 private:
  struct WindowState {
    std::string name;
    int64_t seconds = 0;
    std::deque<Snapshot> history;
    WindowStatus status;
  };
  struct Stats;

  absl::Status FetchWindow(size_t index) ABSL_EXCLUSIVE_LOCKS_REQUIRED(fetch_mu_);
  const WindowState* FindWindow(absl::string_view window) const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  MetricsProvider& provider_;
  const Clock& clock_;
  const WatcherOptions options_;
  const std::string provider_name_;
  std::unique_ptr<Stats> stats_;

  // Replaces the window's node_utilisation_ratio series with `snapshot`'s.
  void ExportNodeUtilisation(size_t index, const WatcherMetrics& snapshot)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(fetch_mu_);

  absl::Mutex fetch_mu_;  // serializes FetchOnce; never held by readers
  // Per window, the node_utilisation_ratio label values exported last.
  std::vector<std::vector<std::array<std::string, 3>>> exported_series_ ABSL_GUARDED_BY(fetch_mu_);
  mutable absl::Mutex mu_;
  std::vector<WindowState> windows_ ABSL_GUARDED_BY(mu_);
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace trimaran::lw
