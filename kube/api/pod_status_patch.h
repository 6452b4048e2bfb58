#pragma once
// PodStatusPatch: the strategic-merge patch the scheduler sends to
// PATCH pods/{name}/status after a failed attempt (PodScheduled=False with the reason
// and message) and/or to set or clear status.nominatedNodeName. Conditions merge on
// their `type`; `condition_order`, when non-empty, is emitted as
// "$setElementOrder/conditions" so the apiserver keeps the existing order.
//
// Thread-safety: plain values; externally synchronized.

#include <optional>
#include <string>
#include <vector>

#include "kube/api/pod.h"

namespace trimaran::kube {

struct PodStatusPatch {
  std::vector<PodCondition> conditions;
  // Set to write the field; "" clears it.
  std::optional<std::string> nominated_node_name;
  // The full list of condition types, in order, after the patch.
  std::vector<std::string> condition_order;

  bool operator==(const PodStatusPatch&) const = default;
};

// Applies `patch` to `status` as the apiserver would: conditions replace the existing
// condition of the same type or are appended; nominatedNodeName is overwritten when set.
// (Order directives are not needed to reproduce the result and are ignored.)
void ApplyPodStatusPatch(const PodStatusPatch& patch, PodStatus& status);

}  // namespace trimaran::kube
