#include "scheduler/plugins/default_preemption/disruption_budget.h"

namespace trimaran::sched::plugins {

void SplitByDisruptionBudgets(std::span<const PodInfo> pods,
                              std::span<const DisruptionBudget> budgets,
                              std::vector<PodInfo>& violating,
                              std::vector<PodInfo>& non_violating) {
  std::vector<int64_t> allowed;
  allowed.reserve(budgets.size());
  for (const DisruptionBudget& b : budgets) allowed.push_back(b.disruptions_allowed);
  for (const PodInfo& info : pods) {
    const kube::Pod& pod = *info.pod;
    bool violates = false;
    if (!pod.metadata.labels.empty()) {
      for (size_t i = 0; i < budgets.size(); ++i) {
        const DisruptionBudget& b = budgets[i];
        if (b.namespace_name != pod.metadata.namespace_name) continue;
        // An empty selector selects nothing here.
        if (b.selector.MatchesNothing() || b.selector.MatchesEverything() ||
            !b.selector.Matches(pod.metadata.labels)) {
          continue;
        }
        if (b.disrupted_pods.contains(pod.metadata.name)) continue;
        if (--allowed[i] < 0) violates = true;
      }
    }
    (violates ? violating : non_violating).push_back(info);
  }
}

}  // namespace trimaran::sched::plugins
