#pragma once
// DisruptionBudget: what preemption reads of a PodDisruptionBudget (policy/v1, or
// policy/v1beta1 on a 1.20 apiserver), and the split of a node's victims into those whose
// eviction would violate a budget and the others (upstream filterPodsWithPDBViolation,
// spec kube-scheduler-constraints.md §9.3 step 4).
//
// Thread-safety: plain values and pure functions.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/plugins/helper/label_selector.h"

namespace trimaran::sched::plugins {

struct DisruptionBudget {
  std::string namespace_name;
  std::string name;
  // spec.selector, compiled. A missing or empty selector (and one that does not compile)
  // matches no pod here, as upstream's preemption treats it.
  helper::Selector selector;
  // status.disruptionsAllowed.
  int32_t disruptions_allowed = 0;
  // The names of status.disruptedPods: evictions the apiserver already processed, which
  // do not count again.
  absl::flat_hash_set<std::string> disrupted_pods;
};

// Splits `pods` (in importance order) into `violating` and `non_violating`, keeping the
// order: each budget's allowance is copied, and every pod with labels that a budget of
// its namespace selects (unless listed in its disruptedPods) takes one from it; a pod
// that takes one when none is left violates.
void SplitByDisruptionBudgets(std::span<const PodInfo> pods,
                              std::span<const DisruptionBudget> budgets,
                              std::vector<PodInfo>& violating, std::vector<PodInfo>& non_violating);

}  // namespace trimaran::sched::plugins
