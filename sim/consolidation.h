#pragma once
// Karpenter-style consolidation, as a pure decision (spec dashboard-and-simulator.md
// §B3.2, §B3.3; docs/simulator.md "Consolidation"). When enabled it replaces Cluster
// Autoscaler's scale-down in the simulator:
//
//   1. empty nodes (no pods) are deleted, all at once within the disruption budget;
//   2. multi-node, WhenEmptyOrUnderutilized only: the candidates (eligible non-empty
//      nodes, fewest pods first, then name: Karpenter's disruption-cost order with pod
//      count as the cost; at most 100) are searched for the LONGEST prefix of at least
//      two nodes, within the budget, that can go at once: binary search over the prefix
//      length (Karpenter's firstN heuristic; it assumes that if a prefix can go, so can
//      a shorter one). A prefix can go when its pods fit on the remaining nodes (delete
//      all), or on the remaining nodes plus ONE new node of a group whose price is below
//      the prefix's summed price (replace all by the cheapest such group);
//   3. single-node, WhenEmptyOrUnderutilized only: nodes in order of fewest pods, then
//      name; the first whose pods fit on the other nodes is deleted, else the first
//      whose pods fit on the others plus ONE new node of a cheaper group is replaced by
//      the cheapest such group.
// The first pass with an action ends the scan (one action per scan).
//
// "Fit" is the FitCheck given: the simulator passes one that re-packs the moved pods
// through the profile under test (its filters count, as spec §B3.3 asks); without one,
// the pods' requests are packed first-fit decreasing (FitsElsewhere).
//
// A node is a candidate only consolidateAfter seconds after its last change (a pod bound
// to it or removed from it), and only while its group stays at or above min. The budget
// is 10 % of the nodes, at least one.
//
// Thread-safety: pure function.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/autoscaler.h"
#include "sim/trace.h"

namespace trimaran::sim {

// Whether the pods of `removed` all fit on `kept` plus, when not null, one new empty
// node of `replacement`.
using FitCheck =
    std::function<bool(const std::vector<const NodeLoad*>& removed,
                       const std::vector<const NodeLoad*>& kept, const NodeGroup* replacement)>;

// FitsElsewhere over the requests (the default FitCheck).
bool FitsByRequests(const std::vector<const NodeLoad*>& removed,
                    const std::vector<const NodeLoad*>& kept, const NodeGroup* replacement);

struct ConsolidationAction {
  enum class Kind { kDelete, kReplace };
  Kind kind = Kind::kDelete;
  std::vector<std::string> nodes;  // the nodes to remove
  std::string replacement_group;   // kReplace: the group of the one new node
  bool multi_node = false;         // from the multi-node pass
};

// `last_change` maps node name to the time of its last pod change (absent: never).
std::vector<ConsolidationAction> PlanConsolidation(double now, const std::vector<NodeLoad>& nodes,
                                                   const std::map<std::string, double>& last_change,
                                                   const std::map<std::string, int>& group_sizes,
                                                   const std::vector<NodeGroup>& groups,
                                                   const AutoscalerConfig& config,
                                                   const FitCheck& fit = FitsByRequests);

}  // namespace trimaran::sim
