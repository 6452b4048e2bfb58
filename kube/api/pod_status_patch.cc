#include "kube/api/pod_status_patch.h"

namespace trimaran::kube {

void ApplyPodStatusPatch(const PodStatusPatch& patch, PodStatus& status) {
  for (const PodCondition& c : patch.conditions) {
    bool replaced = false;
    for (PodCondition& existing : status.conditions) {
      if (existing.type == c.type) {
        existing = c;
        replaced = true;
        break;
      }
    }
    if (!replaced) status.conditions.push_back(c);
  }
  if (patch.nominated_node_name.has_value()) {
    status.nominated_node_name = *patch.nominated_node_name;
  }
}

}  // namespace trimaran::kube
