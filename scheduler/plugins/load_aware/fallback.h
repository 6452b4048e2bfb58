#pragma once
// FallbackReporter: Trimaran's staleness policy bookkeeping (issue 7; upstream has no
// staleness check). A plugin classifies every node it scores:
//
//   kOk              fresh metrics with a usable value
//   kNoMetrics       no metrics source, or no good read yet
//   kNodeMissing     the snapshot does not list the node
//   kNoUsableMetric  the node has metrics, but none the formula accepts
//   kStale           the snapshot is older than metricsMaxAge
//   kBadValue        the node's metrics hold a value no formula can use (negative, NaN,
//                    infinite, over 100 %), or the snapshot's timestamp is more than
//                    kMaxFutureSkew ahead of the scheduler's clock (every node)
//
// and for anything but kOk applies its fallback (trimaran_spec.h: Requests or MinScore)
// and calls Report. Report counts every fallback in the counter family
//   plugin_metrics_fallback_total{plugin, reason}
// named relative to the scope given (plugins pass their Handle's stats_scopes().own:
// trimaran_plugin_metrics_fallback_total in the daemon; one family shared by every
// load-aware plugin and profile; reason = no_metrics | node_missing | no_usable_metric |
// stale | bad_value) and logs once per node per state change (warn on entering a fallback state,
// info when the node is back to kOk), never per cycle. Scheduling always continues.
//
// Cost: Report(kOk) is one relaxed atomic load while no node is in fallback; otherwise a
// mutex-guarded map lookup. Counters are bound at construction (no label lookup in Score).
// ReportCached is Report through a per-node cache word the caller keeps (e.g. in a
// trimaran/node_table.h record): when the node's state is the one last reported through
// that word and no node's state has changed since (a reporter-wide change epoch), it only
// counts (one atomic add for a fallback state, nothing for kOk), with no lock and no
// string hashing; otherwise it calls Report. The counts and logs are exactly Report's.
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
#include "absl/time/time.h"
#include "common/stats/counter.h"
#include "common/stats/scope.h"

namespace trimaran::sched::plugins::load_aware {

enum class MetricsState : uint8_t {
  kOk,
  kNoMetrics,
  kNodeMissing,
  kNoUsableMetric,
  kStale,
  kBadValue
};
inline constexpr int kNumMetricsStates = 6;

// How far a snapshot's timestamp may be ahead of the scheduler's clock (clock skew
// between the watcher and the scheduler) before the snapshot counts as kBadValue.
inline constexpr absl::Duration kMaxFutureSkew = absl::Minutes(1);

// "ok", "no_metrics", "node_missing", "no_usable_metric", "stale".
absl::string_view MetricsStateName(MetricsState state);

class FallbackReporter {
 public:
  FallbackReporter(absl::string_view plugin, const stats::Scope& scope);

  void Report(absl::string_view node, MetricsState state) ABSL_LOCKS_EXCLUDED(mu_);

  // A cache word for ReportCached that matches nothing yet.
  static constexpr uint64_t kNotReported = ~uint64_t{0};
  // As Report(node, state); `cache` is the node's word (start: kNotReported; one word per
  // node, never shared between nodes). `node` is taken by reference and read only when
  // the full path runs (the hot path does not touch the name's bytes or even its size).
  void ReportCached(const std::string& node, MetricsState state, std::atomic<uint64_t>& cache)
      ABSL_LOCKS_EXCLUDED(mu_) {
    const uint64_t want =
        (epoch_.load(std::memory_order_acquire) << 8) | static_cast<uint64_t>(state);
    if (cache.load(std::memory_order_relaxed) == want) {
      // Still the node's recorded state (any change since would have moved the epoch).
      if (state != MetricsState::kOk) counters_[static_cast<int>(state)]->Inc();
      return;
    }
    Report(node, state);
    // Tagged with the epoch read before Report: if Report (or anyone) changed a state
    // meanwhile, the epoch moved and the next call takes the full path once more.
    cache.store(want, std::memory_order_relaxed);
  }

  // Fallbacks counted so far for `state` (tests, trimaranctl).
  int64_t count(MetricsState state) const;
  // Nodes whose last reported state is not kOk.
  int64_t nodes_in_fallback() const { return not_ok_.load(std::memory_order_relaxed); }

 private:
  const std::string plugin_;
  std::array<stats::Counter*, kNumMetricsStates> counters_{};
  // Nodes currently in a non-OK state (fast path for Report(kOk)).
  std::atomic<int64_t> not_ok_{0};
  // Bumped (under mu_) by every change of state_: ReportCached's validity check.
  std::atomic<uint64_t> epoch_{0};
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, MetricsState> state_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched::plugins::load_aware
