#pragma once
// TopologySpreadConstraint (core/v1): how evenly matching pods must be spread across the
// domains of topology_key. Data only; semantics live with the PodTopologySpread plugin.
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/api/label_selector.h"
#include "kube/api/unrecognized.h"

namespace trimaran::kube {

enum class UnsatisfiableConstraintAction {
  kDoNotSchedule,   // hard constraint: Filter rejects nodes that would exceed maxSkew
  kScheduleAnyway,  // soft constraint: only affects Score
  kUnrecognized,    // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(UnsatisfiableConstraintAction a) {
  if (a == UnsatisfiableConstraintAction::kUnrecognized) return kUnrecognizedEnumValue;
  return a == UnsatisfiableConstraintAction::kScheduleAnyway ? "ScheduleAnyway" : "DoNotSchedule";
}

// nodeAffinityPolicy / nodeTaintsPolicy: whether a node that fails the pod's node
// affinity (resp. untolerated taints) still counts as a domain when computing skew.
enum class NodeInclusionPolicy {
  kHonor,         // such nodes are excluded
  kIgnore,        // such nodes are included
  kUnrecognized,  // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(NodeInclusionPolicy p) {
  if (p == NodeInclusionPolicy::kUnrecognized) return kUnrecognizedEnumValue;
  return p == NodeInclusionPolicy::kIgnore ? "Ignore" : "Honor";
}

struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  UnsatisfiableConstraintAction when_unsatisfiable = UnsatisfiableConstraintAction::kDoNotSchedule;
  std::optional<LabelSelector> label_selector;
  // Unset means 1 (upstream default), and is only honoured with DoNotSchedule.
  std::optional<int32_t> min_domains;
  // Unset means Honor for nodeAffinityPolicy and Ignore for nodeTaintsPolicy.
  std::optional<NodeInclusionPolicy> node_affinity_policy;
  std::optional<NodeInclusionPolicy> node_taints_policy;
  std::vector<std::string> match_label_keys;

  bool operator==(const TopologySpreadConstraint&) const = default;
};

}  // namespace trimaran::kube
