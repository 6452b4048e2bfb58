#pragma once
// NodeHistory: the small per-node usage history the web dashboard draws (one sparkline
// per node, docs/trimaranctl.md "dashboard"). The load watcher serves only the latest
// snapshot of each window, so the dashboard keeps its own samples: one per new load
// watcher snapshot (a refresh that sees the same snapshot time adds nothing), each the
// node's CPU and memory usage in percent of allocatable (dashboard/model.h), or "no value"
// when the node's usage is missing or stale (a gap in the chart, never 0 %). At most
// `capacity` samples per node are kept; nodes that leave the view are dropped, so the
// memory is bounded by nodes × capacity (5,000 × 120 samples ≈ 10 MB).
//
// Thread-safety: safe for concurrent use (one mutex).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "dashboard/model.h"

namespace trimaran::dashboard::web {

struct UsageSample {
  int64_t unix_seconds = 0;
  std::optional<float> cpu_percent;     // of allocatable; absent: no fresh usage
  std::optional<float> memory_percent;  // likewise
};

class NodeHistory {
 public:
  explicit NodeHistory(size_t capacity = 120);

  // Adds one sample per node of `view` when its load-watcher snapshot is newer than the
  // last one recorded (or when there is no snapshot and `view.now` is at least `min_gap`
  // after the last sample: gaps are recorded too). Returns whether samples were added.
  bool Record(const ClusterView& view, absl::Duration min_gap = absl::Seconds(30));

  std::vector<UsageSample> Samples(absl::string_view node) const;

  // {"<node>": [[unixSeconds, cpuPercent|null, memoryPercent|null], ...], ...} for
  // `nodes` (unknown nodes are left out); all nodes when `nodes` is empty.
  std::string Json(const std::vector<std::string>& nodes) const;

  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::deque<UsageSample>> samples_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Time> last_snapshot_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Time> last_sample_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::dashboard::web
