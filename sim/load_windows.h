#pragma once
// The simulated load watcher's snapshots, one per window as the real watcher serves them
// (loadwatcher/watcher.h, docs/load-watcher.md): every refresh, for each of 15m, 10m
// and 5m, a lw::WatcherMetrics stamped with the refresh time, window = {D, now - D, now}
// (D = 900 / 600 / 300 s), holding per node CPU and Memory with operators AVG and STD
// over the node's usage samples of that window (t > now - D), as percentages of
// allocatable: what the Prometheus provider returns (avg_over_time and
// stddev_over_time over the window; providers/prometheus). No Latest entry: with one,
// TargetLoadPacking would read it (its rule takes the LAST AVG-or-Latest entry) and the
// window would not matter to it.
//
//   LoadSnapshots snapshots(timestamp, now);
//   for (each ready node) snapshots.AddNode(name, samples, cpu_alloc, mem_alloc);
//   explainer.SetMetricsByWindow(std::move(snapshots).Take());
//
// Staleness follows the real watcher's: a snapshot is what the plugins read until the
// next refresh (its timestamp ages, and they apply their own metricsMaxAge rules); a
// node with no sample in a window is not listed in that window's snapshot (the plugins'
// node_missing fallback), as a node younger than the provider's data.
//
// The plugins read the 15m window (their client's default request; the watcher falls
// back to 10m when 15m has nothing): TargetLoadPacking its CPU AVG,
// LoadVariationRiskBalancing and LowRiskOverCommitment CPU and Memory AVG and STD
// (scheduler/plugins/load_aware/metrics_view.h). 10m and 5m are served to any client
// that asks (lw::MetricsRequest::window), as by the real watcher.
//
// Thread-safety: LoadSnapshots is not thread-safe (one builder per refresh).

#include <deque>
#include <map>
#include <string>

#include "loadwatcher/metrics.h"
#include "sim/trace.h"

namespace trimaran::sim {

// One node's metrics over the samples with now - window_seconds < t <= now: AVG and STD
// (population) for CPU and Memory, percent of allocatable; no metrics when no sample is
// in the window.
lw::NodeMetrics WindowMetrics(const std::deque<UsagePoint>& samples, double now,
                              double window_seconds, double cpu_alloc, double mem_alloc);

class LoadSnapshots {
 public:
  // `timestamp`: unix seconds of the refresh; `now`: the same instant in virtual time.
  LoadSnapshots(int64_t timestamp, double now);
  // `samples`: the node's samples, oldest first, covering at least the 15m window.
  void AddNode(const std::string& name, const std::deque<UsagePoint>& samples, double cpu_alloc,
               double mem_alloc);
  // Window duration ("15m", "10m", "5m") -> snapshot.
  std::map<std::string, lw::WatcherMetrics> Take() &&;

 private:
  double now_;
  std::map<std::string, lw::WatcherMetrics> by_window_;
};

}  // namespace trimaran::sim
