#include "scheduler/plugins/load_aware/fallback.h"

#include "common/logging.h"

namespace trimaran::sched::plugins::load_aware {

absl::string_view MetricsStateName(MetricsState state) {
  switch (state) {
    case MetricsState::kOk:
      return "ok";
    case MetricsState::kNoMetrics:
      return "no_metrics";
    case MetricsState::kNodeMissing:
      return "node_missing";
    case MetricsState::kNoUsableMetric:
      return "no_usable_metric";
    case MetricsState::kStale:
      return "stale";
    case MetricsState::kBadValue:
      return "bad_value";
  }
  return "unknown";
}

FallbackReporter::FallbackReporter(absl::string_view plugin, const stats::Scope& scope)
    : plugin_(plugin) {
  auto& family = scope.CounterFamily(
      "plugin_metrics_fallback_total",
      "Nodes scored by the staleness fallback (missing or stale load-watcher metrics).",
      {"plugin", "reason"});
  for (int i = 1; i < kNumMetricsStates; ++i) {
    counters_[i] = &family.WithLabels({plugin_, MetricsStateName(static_cast<MetricsState>(i))});
  }
}

int64_t FallbackReporter::count(MetricsState state) const {
  stats::Counter* c = counters_[static_cast<int>(state)];
  return c == nullptr ? 0 : static_cast<int64_t>(c->Value());
}

void FallbackReporter::Report(absl::string_view node, MetricsState state) {
  if (state == MetricsState::kOk) {
    if (not_ok_.load(std::memory_order_relaxed) == 0) return;
    absl::MutexLock lock(&mu_);
    auto it = state_.find(node);
    if (it == state_.end()) return;
    Log(Component::kPlugin)
        .info("{}: metrics usable again node={} (was {})", plugin_, node,
              MetricsStateName(it->second));
    state_.erase(it);
    not_ok_.fetch_sub(1, std::memory_order_relaxed);
    epoch_.fetch_add(1, std::memory_order_release);
    return;
  }
  counters_[static_cast<int>(state)]->Inc();
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = state_.try_emplace(node, state);
  if (inserted) {
    not_ok_.fetch_add(1, std::memory_order_relaxed);
  } else if (it->second == state) {
    return;
  } else {
    it->second = state;
  }
  epoch_.fetch_add(1, std::memory_order_release);
  Log(Component::kPlugin)
      .warn("{}: scoring node={} by the fallback, reason={}", plugin_, node,
            MetricsStateName(state));
}

}  // namespace trimaran::sched::plugins::load_aware
