#include "kube/api/pod.h"

namespace trimaran::kube {

bool IsTerminal(const Pod& pod) {
  return pod.status.phase == PodPhase::kSucceeded || pod.status.phase == PodPhase::kFailed;
}

const PodCondition* FindCondition(const PodStatus& status, std::string_view type) {
  for (const PodCondition& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace trimaran::kube
