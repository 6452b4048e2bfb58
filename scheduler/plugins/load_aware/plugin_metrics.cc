#include "scheduler/plugins/load_aware/plugin_metrics.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace trimaran::sched::plugins::load_aware {

absl::StatusOr<std::unique_ptr<PluginMetrics>> PluginMetrics::Create(const TrimaranSpec& spec,
                                                                     Handle& handle,
                                                                     absl::string_view plugin) {
  TRIMARAN_ASSIGN_OR_RETURN(lw::Client * client, ResolveMetricsClient(spec, handle, plugin));
  return std::make_unique<PluginMetrics>(spec, client, handle.clock(), handle.stats_scopes().own,
                                         plugin);
}

PluginMetrics::PluginMetrics(const TrimaranSpec& spec, lw::Client* client, const Clock& clock,
                             const stats::Scope& scope, absl::string_view plugin)
    : spec_(spec),
      clock_(clock),
      cache_(client, clock, MetricsCacheOptions{.scope = &scope}),
      reporter_(plugin, scope) {}

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
