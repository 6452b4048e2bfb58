#pragma once
// Karpenter-style consolidation, as a pure decision (spec dashboard-and-simulator.md
// §B3.2, §B3.3; docs/simulator.md "Consolidation"). When enabled it replaces Cluster
// Autoscaler's scale-down in the simulator:
//
//   1. empty nodes (no pods) are deleted, all at once within the disruption budget;
//   2. (multi-node consolidation is not modelled);
//   3. single-node, WhenEmptyOrUnderutilized only: nodes in order of fewest pods, then
//      name; the first whose pods fit (by requests) on the other nodes' free capacity
//      is deleted, else the first whose pods fit on that free capacity plus ONE new node
//      of a cheaper group is replaced by the cheapest such group. One action per scan.
//
// A node is a candidate only consolidateAfter seconds after its last change (a pod bound
// to it or removed from it), and only while its group stays at or above min. The budget
// is 10 % of the nodes, at least one.
//
// Thread-safety: pure function.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/autoscaler.h"
#include "sim/trace.h"

namespace trimaran::sim {

struct ConsolidationAction {
  enum class Kind { kDelete, kReplace };
  Kind kind = Kind::kDelete;
  std::vector<std::string> nodes;  // the nodes to remove
  std::string replacement_group;   // kReplace: the group of the one new node
};

// `last_change` maps node name to the time of its last pod change (absent: never).
std::vector<ConsolidationAction> PlanConsolidation(double now, const std::vector<NodeLoad>& nodes,
                                                   const std::map<std::string, double>& last_change,
                                                   const std::map<std::string, int>& group_sizes,
                                                   const std::vector<NodeGroup>& groups,
                                                   const AutoscalerConfig& config);

}  // namespace trimaran::sim
