#include "scheduler/plugins/load_aware/plugin_metrics.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/status_macros.h"

namespace trimaran::sched::plugins::load_aware {

absl::StatusOr<std::unique_ptr<PluginMetrics>> PluginMetrics::Create(const TrimaranSpec& spec,
                                                                     Handle& handle,
                                                                     absl::string_view plugin) {
  TRIMARAN_ASSIGN_OR_RETURN(lw::Client * client, ResolveMetricsClient(spec, handle, plugin));
  return std::make_unique<PluginMetrics>(spec, client, handle.clock(), handle.stats_scopes().own,
                                         plugin, handle.metrics_availability());
}

std::string DescribeSource(const TrimaranSpec& spec) {
  if (spec.service_mode()) return absl::StrCat("watcherAddress ", *spec.watcher_address);
  return absl::StrCat("metricProvider ", spec.metric_provider.type,
                      spec.metric_provider.address.empty() ? "" : " ",
                      spec.metric_provider.address);
}

PluginMetrics::PluginMetrics(const TrimaranSpec& spec, lw::Client* client, const Clock& clock,
                             const stats::Scope& scope, absl::string_view plugin,
                             MetricsAvailabilityObserver* observer)
    : spec_(spec),
      clock_(clock),
      cache_(client, clock, MetricsCacheOptions{.scope = &scope}),
      reporter_(plugin, scope),
      plugin_(plugin),
      source_(DescribeSource(spec)),
      observer_(observer),
      created_(clock.Now()) {}

CycleMetrics PluginMetrics::ForCycle() {
  CycleMetrics cycle = Classify(cache_.Get());
  if (observer_ != nullptr) NoteAvailability(cycle);
  return cycle;
}

void PluginMetrics::NoteAvailability(const CycleMetrics& cycle) {
  const bool usable = cycle.state == MetricsState::kOk;
  {
    absl::MutexLock lock(&availability_mu_);
    if (usable) {
      const bool was_unavailable = availability_ == Availability::kUnavailable;
      availability_ = Availability::kAvailable;
      if (!was_unavailable) return;
    } else {
      if (availability_ == Availability::kUnavailable) return;
      if (availability_ == Availability::kUnknown && clock_.Now() - created_ < kAvailabilityGrace) {
        return;  // the first reads may still be on their way
      }
      availability_ = Availability::kUnavailable;
    }
  }
  // Outside the lock: the observer queues an event and may log.
  if (usable) {
    observer_->MetricsAvailable(plugin_, source_);
  } else {
    observer_->MetricsUnavailable(plugin_, source_, WhyUnavailable(cycle));
  }
}

std::string PluginMetrics::WhyUnavailable(const CycleMetrics& cycle) const {
  std::string why;
  switch (cycle.state) {
    case MetricsState::kStale:
      why = absl::StrCat("its newest snapshot is ",
                         absl::FormatDuration(
                             absl::Trunc(clock_.Now() - cycle.view->timestamp(), absl::Seconds(1))),
                         " old, over metricsMaxAge ", absl::FormatDuration(spec_.metrics_max_age));
      break;
    case MetricsState::kBadValue:
      why = absl::StrCat("its newest snapshot is dated in the future (",
                         absl::FormatTime(cycle.view->timestamp()), ")");
      break;
    default:
      why = "no metrics have arrived from it";
      break;
  }
  absl::StrAppend(&why, spec_.fallback == FallbackPolicy::kMinScore
                            ? "; every node scores 0 (fallback MinScore) until they return"
                            : "; every node is scored by its requests (fallback Requests) "
                              "until they return");
  return why;
}

FallbackCounts PluginMetrics::CountsNow() const {
  FallbackCounts counts{};
  for (int i = 1; i < kNumMetricsStates; ++i) {
    counts[i] = reporter_.count(static_cast<MetricsState>(i));
  }
  return counts;
}

void PluginMetrics::AppendFallbackNotes(absl::string_view plugin, const FallbackCounts& before,
                                        std::vector<std::string>& out) const {
  const FallbackCounts now = CountsNow();
  for (int i = 1; i < kNumMetricsStates; ++i) {
    const int64_t n = now[i] - before[i];
    if (n <= 0) continue;
    absl::string_view reason;
    switch (static_cast<MetricsState>(i)) {
      case MetricsState::kNoMetrics:
        reason = "no metrics";
        break;
      case MetricsState::kNodeMissing:
        reason = "node missing from the metrics";
        break;
      case MetricsState::kNoUsableMetric:
        reason = "no usable metric";
        break;
      case MetricsState::kStale:
        reason = "metrics stale";
        break;
      case MetricsState::kBadValue:
        reason = "bad metric value";
        break;
      case MetricsState::kOk:
        continue;
    }
    out.push_back(
        absl::StrCat(plugin, ": ", reason, " on ", n, " node(s), ",
                     spec_.fallback == FallbackPolicy::kMinScore ? "scored 0" : "used requests"));
  }
}

CycleMetrics PluginMetrics::Classify(std::shared_ptr<const MetricsView> view) const {
  CycleMetrics cycle;
  if (view == nullptr) {
    cycle.state = MetricsState::kNoMetrics;
  } else if (view->timestamp() - clock_.Now() > kMaxFutureSkew) {
    // A snapshot from the future cannot be aged: none of its values is trusted.
    cycle.state = MetricsState::kBadValue;
  } else if (clock_.Now() - view->timestamp() > spec_.metrics_max_age) {
    cycle.state = MetricsState::kStale;
  } else {
    cycle.state = MetricsState::kOk;
  }
  cycle.view = std::move(view);
  return cycle;
}

}  // namespace trimaran::sched::plugins::load_aware
