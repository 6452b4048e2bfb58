#include "sim/consolidation.h"

#include <algorithm>

namespace trimaran::sim {
namespace {

const NodeGroup* FindGroup(const std::vector<NodeGroup>& groups, const std::string& name) {
  for (const NodeGroup& g : groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

}  // namespace

std::vector<ConsolidationAction> PlanConsolidation(double now, const std::vector<NodeLoad>& nodes,
                                                   const std::map<std::string, double>& last_change,
                                                   const std::map<std::string, int>& group_sizes,
                                                   const std::vector<NodeGroup>& groups,
                                                   const AutoscalerConfig& config) {
  std::vector<ConsolidationAction> actions;
  if (config.consolidation == Consolidation::kNone) return actions;
  const int budget = std::max(1, static_cast<int>(nodes.size()) / 10);
  std::map<std::string, int> sizes = group_sizes;
  auto eligible = [&](const NodeLoad& n) {
    const NodeGroup* g = FindGroup(groups, n.group);
    if (g == nullptr || sizes[n.group] <= g->min) return false;
    auto it = last_change.find(n.name);
    return it == last_change.end() || now - it->second >= config.consolidate_after;
  };
  // 1. Empty nodes, all at once within the budget.
  ConsolidationAction empty;
  for (const NodeLoad& n : nodes) {
    if (static_cast<int>(empty.nodes.size()) >= budget) break;
    if (n.pods.empty() && eligible(n)) {
      --sizes[n.group];
      empty.nodes.push_back(n.name);
    }
  }
  if (!empty.nodes.empty()) {
    actions.push_back(std::move(empty));
    return actions;
  }
  if (config.consolidation != Consolidation::kWhenEmptyOrUnderutilized) return actions;
  // 3. Single node: fewest pods first, then name.
  std::vector<const NodeLoad*> order;
  for (const NodeLoad& n : nodes) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(), [](const NodeLoad* a, const NodeLoad* b) {
    return a->pods.size() != b->pods.size() ? a->pods.size() < b->pods.size() : a->name < b->name;
  });
  auto others_of = [&](const NodeLoad& n) {
    std::vector<NodeLoad> others;
    for (const NodeLoad& o : nodes) {
      if (o.name != n.name) others.push_back(o);
    }
    return others;
  };
  for (const NodeLoad* n : order) {
    if (!eligible(*n)) continue;
    if (FitsElsewhere(n->pods, others_of(*n))) {
      actions.push_back({ConsolidationAction::Kind::kDelete, {n->name}, ""});
      return actions;
    }
  }
  for (const NodeLoad* n : order) {
    if (!eligible(*n)) continue;
    const NodeGroup* current = FindGroup(groups, n->group);
    const NodeGroup* best = nullptr;
    for (const NodeGroup& g : groups) {
      if (g.price_per_hour >= current->price_per_hour) continue;
      if (sizes[g.name] >= g.max) continue;
      if (best != nullptr && g.price_per_hour >= best->price_per_hour) continue;
      std::vector<NodeLoad> others = others_of(*n);
      others.push_back({"replacement", g.name, g.cpu_milli, g.memory_mib, g.pods, {}});
      if (FitsElsewhere(n->pods, others)) best = &g;
    }
    if (best != nullptr) {
      actions.push_back({ConsolidationAction::Kind::kReplace, {n->name}, best->name});
      return actions;
    }
  }
  return actions;
}

}  // namespace trimaran::sim
