#pragma once
// FallbackReporter: Trimaran's staleness policy bookkeeping (issue 7; upstream has no
// staleness check). A plugin classifies every node it scores:
//
//   kOk              fresh metrics with a usable value
//   kNoMetrics       no metrics source, or no good read yet
//   kNodeMissing     the snapshot does not list the node
//   kNoUsableMetric  the node has metrics, but none the formula accepts
//   kStale           the snapshot is older than metricsMaxAge
//
// and for anything but kOk applies its fallback (trimaran_spec.h: Requests or MinScore)
// and calls Report. Report counts every fallback in
//   <plugin scope>metrics_fallback_total{plugin, reason}
// (reason = no_metrics | node_missing | no_usable_metric | stale; the runtime's plugin
// scope gives the prefix, e.g. trimaran_scheduler_target_load_packing_) and logs once per
// node per state change (warn on entering a fallback state, info when the node is back
// to kOk), never per cycle. Scheduling always continues.
//
// Cost: Report(kOk) is one relaxed atomic load while no node is in fallback; otherwise a
// mutex-guarded map lookup. Counters are bound at construction (no label lookup in Score).
//
// Thread-safety: safe for concurrent use (Score workers).

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/stats/counter.h"
#include "common/stats/scope.h"

namespace trimaran::sched::plugins::trimaran {

enum class MetricsState : uint8_t { kOk, kNoMetrics, kNodeMissing, kNoUsableMetric, kStale };
inline constexpr int kNumMetricsStates = 5;

// "ok", "no_metrics", "node_missing", "no_usable_metric", "stale".
absl::string_view MetricsStateName(MetricsState state);

class FallbackReporter {
 public:
  FallbackReporter(absl::string_view plugin, const stats::Scope& scope);

  void Report(absl::string_view node, MetricsState state) ABSL_LOCKS_EXCLUDED(mu_);

  // Fallbacks counted so far for `state` (tests, trimaranctl).
  int64_t count(MetricsState state) const;

 private:
  const std::string plugin_;
  std::array<stats::Counter*, kNumMetricsStates> counters_{};
  // Nodes currently in a non-OK state (fast path for Report(kOk)).
  std::atomic<int64_t> not_ok_{0};
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, MetricsState> state_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched::plugins::trimaran
