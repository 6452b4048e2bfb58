#pragma once
// MetricsView: one load-watcher snapshot (lw::WatcherMetrics) indexed for the Trimaran
// plugins' Score, built once per fetched snapshot (never per node or per cycle):
// node name -> the node's metric list and the numbers the shared formulas read, already
// extracted from it with upstream's rules:
//
//   metrics               the node's entries in the snapshot, which the view keeps alive;
//                         a plugin with its own rules extracts from them once per view
//                         (TargetLoadPacking's, target_load_packing/metric_extraction.h).
//   cpu / memory          LVRB and LRO (spec §1.3, GetResourceData): avg = AVG (the last
//                         one wins, and beats ""/Latest anywhere in the list), else the
//                         last ""/Latest seen before any AVG; std = the last STD; valid
//                         when ANY entry of the type exists. Percentages.
//
// Thread-safety: immutable after construction (except the pending sums and bits,
// atomics); shared
// as shared_ptr<const MetricsView>.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "loadwatcher/client.h"
#include "loadwatcher/metrics.h"

namespace trimaran::sched::plugins::load_aware {

// GetResourceData's result for one resource type.
struct ResourceData {
  double avg = 0;  // percent
  double std = 0;  // percent
  bool valid = false;

  friend bool operator==(const ResourceData&, const ResourceData&) = default;
};

// Spec §1.3 over `metrics` for `type` ("CPU" or "Memory").
ResourceData GetResourceData(const std::vector<lw::Metric>& metrics, absl::string_view type);

struct NodeUsage {
  // Some CPU or Memory value of the node is negative, NaN, infinite or over 100 (they
  // are percentages), or the response listed the node twice (lw::Data::duplicate_hosts):
  // the node is scored by the fallback (MetricsState::kBadValue), never with it.
  bool bad = false;
  // The node's entries in the view's snapshot (empty for a duplicate host).
  std::span<const lw::Metric> metrics;
  ResourceData cpu;
  ResourceData memory;
};

// The load of recently placed pods not covered by a view's window, per node, maintained
// by the plugin's RecentPodTracker while the view is current (recent_pods.h), so Score
// reads two atomics instead of taking a lock per node. Kept apart from NodeUsage in a
// compact array (16 bytes a node) that stays cache-resident.
struct PendingSums {
  std::atomic<int64_t> milli_cpu{0};
  std::atomic<int64_t> memory{0};
};

class MetricsView {
 public:
  // Indexes `metrics`, which the view keeps (NodeUsage::metrics points into it).
  explicit MetricsView(lw::WatcherMetricsPtr metrics);
  // Over a copy of `metrics` (tests).
  explicit MetricsView(const lw::WatcherMetrics& metrics);

  // The node's usage, or nullptr when the snapshot does not list it (or lists it with no
  // metrics at all: upstream's service mode decodes `"metrics": []` as none).
  const NodeUsage* Find(absl::string_view node) const {
    auto it = index_.find(node);
    return it == index_.end() ? nullptr : &usages_[it->second];
  }
  // The position of `usage` (an entry of this view) among the view's nodes; the
  // index forms below take it (a per-node record can keep it across cycles).
  size_t IndexOf(const NodeUsage& usage) const {
    return static_cast<size_t>(&usage - usages_.get());
  }
  // The pending sums of `usage`, an entry of this view.
  PendingSums& pending(const NodeUsage& usage) const { return pending(IndexOf(usage)); }
  PendingSums& pending(size_t index) const { return pending_[index]; }
  // Whether `usage` (an entry of this view) may have non-zero pending sums: false
  // guarantees both are 0. A bit per node (L1-resident at 5,000 nodes), set by
  // MarkPending before the sums are first changed and never cleared while the view
  // lives, so Score reads the sums (another cache line) only for nodes that have ever had
  // recently placed pods under this view.
  bool MaybePending(const NodeUsage& usage) const { return MaybePending(IndexOf(usage)); }
  bool MaybePending(size_t index) const {
    return (pending_bits_[index / 64].load(std::memory_order_relaxed) >> (index % 64)) & 1;
  }
  void MarkPending(const NodeUsage& usage) const {
    const size_t i = IndexOf(usage);
    pending_bits_[i / 64].fetch_or(uint64_t{1} << (i % 64), std::memory_order_relaxed);
  }

  // Snapshot `window.end` (unix seconds; 0 without a window), the E of spec §2.4.
  int64_t window_end() const { return window_end_; }
  // When the snapshot was taken (its `timestamp`, unix seconds).
  absl::Time timestamp() const { return timestamp_; }
  size_t size() const { return index_.size(); }

 private:
  lw::WatcherMetricsPtr snapshot_;  // what NodeUsage::metrics point into
  // name -> position in usages_ (a compact table: lookups stay in cache at 5,000 nodes).
  absl::flat_hash_map<std::string, uint32_t> index_;
  std::unique_ptr<NodeUsage[]> usages_;
  std::unique_ptr<PendingSums[]> pending_;                 // see pending()
  std::unique_ptr<std::atomic<uint64_t>[]> pending_bits_;  // see MaybePending
  int64_t window_end_ = 0;
  absl::Time timestamp_;
};

}  // namespace trimaran::sched::plugins::load_aware
