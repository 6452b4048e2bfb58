#pragma once
// PluginMetrics: everything a Trimaran plugin instance needs to read load metrics,
// bundled: its metrics source (metrics_source.h), its staleness policy
// (trimaran_spec.h) and its fallback bookkeeping (fallback.h). One per plugin instance:
// args are never process-wide (upstream keeps TLP's in package globals).
//
// Per scheduling cycle (PreScore, once, never per node):
//   CycleMetrics m = metrics.ForCycle();   // the view + whether it is usable at all
// Per node (Score, concurrent):
//   MetricsState state;
//   const NodeUsage* usage = metrics.Lookup(m, node_name, &state);
//   // usage == nullptr  <=>  state != kOk for the whole node; the plugin may still find
//   // the usage unusable (no CPU value) and then calls Fallback(node, kNoUsableMetric).
//
// Staleness: the view is stale when Clock::Now() - snapshot timestamp > metricsMaxAge.
//
// Thread-safety: safe for concurrent use. Ownership: borrows the Handle's clock and
// client (they outlive the plugin).

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/metrics_availability.h"
#include "scheduler/plugins/load_aware/fallback.h"
#include "scheduler/plugins/load_aware/metrics_source.h"
#include "scheduler/plugins/load_aware/metrics_view.h"
#include "scheduler/plugins/load_aware/trimaran_spec.h"

namespace trimaran::sched::plugins::load_aware {

// One cycle's metrics: the view (may be null) and its state as a whole (kOk, kNoMetrics
// or kStale).
struct CycleMetrics {
  std::shared_ptr<const MetricsView> view;
  MetricsState state = MetricsState::kNoMetrics;
};

// The fallback counters of one plugin instance, by MetricsState (kOk's is 0).
using FallbackCounts = std::array<int64_t, kNumMetricsStates>;

// Where `spec` reads its metrics, for messages: "watcherAddress http://127.0.0.1:2020" or
// "metricProvider Prometheus http://prometheus:9090".
std::string DescribeSource(const TrimaranSpec& spec);

class PluginMetrics {
 public:
  static constexpr absl::Duration kAvailabilityGrace = absl::Seconds(60);

  // Resolves the metrics source (ResolveMetricsClient); errors name `plugin`.
  static absl::StatusOr<std::unique_ptr<PluginMetrics>> Create(const TrimaranSpec& spec,
                                                               Handle& handle,
                                                               absl::string_view plugin);
  // For tests and tools: an explicit client (may be null). `scope`: where the
  // FallbackReporter registers (Create passes the Handle's stats_scopes().own).
  // `observer` (may be null; Create passes the Handle's metrics_availability()) must
  // outlive this.
  PluginMetrics(const TrimaranSpec& spec, lw::Client* client, const Clock& clock,
                const stats::Scope& scope, absl::string_view plugin,
                MetricsAvailabilityObserver* observer = nullptr);

  // The view for this cycle (scheduling thread). Never waits on the network: a remote
  // source is refreshed in the background (metrics_source.h). Tells the Handle's
  // MetricsAvailabilityObserver when the cycle-wide state changes between usable (kOk)
  // and not (kNoMetrics, kStale, kBadValue); an instance that has never had usable
  // metrics tells it only once kAvailabilityGrace has passed since its creation, so the
  // first cycles before the first read make no noise.
  CycleMetrics ForCycle();
  // For a Score that runs without PreScore: never waits for a refresh in progress.
  CycleMetrics ForCycleNonBlocking() { return Classify(cache_.TryGet()); }

  // The node's usage when the cycle's metrics are usable and list the node; otherwise
  // nullptr with *state saying why (kNoMetrics, kStale, kNodeMissing). Does not report.
  const NodeUsage* Lookup(const CycleMetrics& cycle, absl::string_view node,
                          MetricsState* state) const {
    if (cycle.state != MetricsState::kOk) {
      *state = cycle.state;
      return nullptr;
    }
    const NodeUsage* usage = cycle.view->Find(node);
    *state = usage == nullptr ? MetricsState::kNodeMissing : MetricsState::kOk;
    return usage;
  }

  // Counts/logs the node's state (FallbackReporter::Report).
  void Report(absl::string_view node, MetricsState state) { reporter_.Report(node, state); }
  // FallbackReporter::ReportCached: Report through the node's cache word (hot path).
  void ReportCached(const std::string& node, MetricsState state, std::atomic<uint64_t>& cache) {
    reporter_.ReportCached(node, state, cache);
  }

  // The fallbacks counted so far (PreScore keeps them, so that the decision record can
  // tell the cycle's own: AppendFallbackNotes). Five relaxed atomic loads.
  FallbackCounts CountsNow() const;
  // One line per reason counted since `before` (the cycles of one plugin instance run one
  // at a time, on the scheduling thread), e.g. "TargetLoadPacking: metrics stale on 12
  // node(s), used requests" (fallback Requests) or "..., scored 0" (MinScore).
  void AppendFallbackNotes(absl::string_view plugin, const FallbackCounts& before,
                           std::vector<std::string>& out) const;

  const TrimaranSpec& spec() const { return spec_; }
  FallbackPolicy fallback() const { return spec_.fallback; }
  const FallbackReporter& reporter() const { return reporter_; }
  const Clock& clock() const { return clock_; }

 private:
  enum class Availability { kUnknown, kAvailable, kUnavailable };

  CycleMetrics Classify(std::shared_ptr<const MetricsView> view) const;
  // ForCycle's report of a change to the observer (see ForCycle).
  void NoteAvailability(const CycleMetrics& cycle);
  std::string WhyUnavailable(const CycleMetrics& cycle) const;

  const TrimaranSpec spec_;
  const Clock& clock_;
  MetricsCache cache_;
  FallbackReporter reporter_;
  const std::string plugin_;
  const std::string source_;  // DescribeSource(spec_)
  MetricsAvailabilityObserver* const observer_;
  const absl::Time created_;
  absl::Mutex availability_mu_;
  Availability availability_ ABSL_GUARDED_BY(availability_mu_) = Availability::kUnknown;
};

}  // namespace trimaran::sched::plugins::load_aware
