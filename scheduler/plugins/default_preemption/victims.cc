#include "scheduler/plugins/default_preemption/victims.h"

#include <algorithm>
#include <utility>

namespace trimaran::sched::plugins {

absl::Time PodStartTime(const kube::Pod& pod, absl::Time now) {
  return pod.status.start_time.value_or(now);
}

bool MoreImportantPod(const kube::Pod& a, const kube::Pod& b, absl::Time now) {
  const int32_t pa = kube::PodPriority(a);
  const int32_t pb = kube::PodPriority(b);
  if (pa != pb) return pa > pb;
  return PodStartTime(a, now) < PodStartTime(b, now);
}

Status SelectVictimsOnNode(const PluginsRunner& runner, CycleState& state, const kube::Pod& pod,
                           NodeInfo& node, std::span<const DisruptionBudget> budgets,
                           absl::Time now, Victims& out) {
  out = Victims();
  const int32_t priority = kube::PodPriority(pod);
  // 1. Remove every lower-priority pod.
  std::vector<PodInfo> potential;
  for (const PodInfo& info : node.pods()) {
    if (kube::PodPriority(*info.pod) < priority) potential.push_back(info);
  }
  if (potential.empty()) {
    return Status::UnschedulableAndUnresolvable(kNoPreemptionVictims);
  }
  for (const PodInfo& info : potential) {
    if (absl::Status s = node.RemovePod(*info.pod); !s.ok()) return Status::FromAbsl(s);
    if (Status s = runner.RunPreFilterExtensionRemovePod(state, pod, info, node); !s.IsSuccess()) {
      return s;
    }
  }
  // 2. Without them the pod must fit, else this node cannot help.
  if (Status s = runner.RunFilterPluginsWithNominatedPods(state, pod, node); !s.IsSuccess()) {
    return s;
  }
  // 3. Importance order.
  std::stable_sort(potential.begin(), potential.end(), [now](const PodInfo& a, const PodInfo& b) {
    return MoreImportantPod(*a.pod, *b.pod, now);
  });
  // 4. Budget violations.
  std::vector<PodInfo> violating;
  std::vector<PodInfo> non_violating;
  SplitByDisruptionBudgets(potential, budgets, violating, non_violating);
  // 5. Reprieve: the violating first, each in importance order.
  auto reprieve = [&](const PodInfo& info, bool is_violating) -> Status {
    node.AddPodInfo(info);
    if (Status s = runner.RunPreFilterExtensionAddPod(state, pod, info, node); !s.IsSuccess()) {
      return s;
    }
    if (runner.RunFilterPluginsWithNominatedPods(state, pod, node).IsSuccess()) return Status();
    if (absl::Status s = node.RemovePod(*info.pod); !s.ok()) return Status::FromAbsl(s);
    if (Status s = runner.RunPreFilterExtensionRemovePod(state, pod, info, node); !s.IsSuccess()) {
      return s;
    }
    out.pods.push_back(info.pod);
    if (is_violating) ++out.num_pdb_violations;
    return Status();
  };
  for (const PodInfo& info : violating) {
    if (Status s = reprieve(info, true); !s.IsSuccess()) return s;
  }
  for (const PodInfo& info : non_violating) {
    if (Status s = reprieve(info, false); !s.IsSuccess()) return s;
  }
  // 6. Both groups contributed: back to importance order.
  if (!violating.empty() && !non_violating.empty()) {
    std::stable_sort(
        out.pods.begin(), out.pods.end(),
        [now](const std::shared_ptr<const kube::Pod>& a,
              const std::shared_ptr<const kube::Pod>& b) { return MoreImportantPod(*a, *b, now); });
  }
  return Status();
}

}  // namespace trimaran::sched::plugins
