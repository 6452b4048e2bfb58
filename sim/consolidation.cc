#include "sim/consolidation.h"

#include <algorithm>
#include <optional>

namespace trimaran::sim {
namespace {

// Karpenter caps the multi-node candidates (its MultiNodeConsolidation considers at most
// 100 nodes).
constexpr size_t kMaxMultiNodeCandidates = 100;

const NodeGroup* FindGroup(const std::vector<NodeGroup>& groups, const std::string& name) {
  for (const NodeGroup& g : groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

}  // namespace

bool FitsByRequests(const std::vector<const NodeLoad*>& removed,
                    const std::vector<const NodeLoad*>& kept, const NodeGroup* replacement) {
  std::vector<Request> pods;
  for (const NodeLoad* n : removed) pods.insert(pods.end(), n->pods.begin(), n->pods.end());
  std::vector<NodeLoad> others;
  for (const NodeLoad* n : kept) others.push_back(*n);
  if (replacement != nullptr) {
    others.push_back({"replacement",
                      replacement->name,
                      replacement->cpu_milli,
                      replacement->memory_mib,
                      replacement->pods,
                      {}});
  }
  return FitsElsewhere(pods, others);
}

std::vector<ConsolidationAction> PlanConsolidation(double now, const std::vector<NodeLoad>& nodes,
                                                   const std::map<std::string, double>& last_change,
                                                   const std::map<std::string, int>& group_sizes,
                                                   const std::vector<NodeGroup>& groups,
                                                   const AutoscalerConfig& config,
                                                   const FitCheck& fit) {
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
  // Fewest pods first, then name.
  std::vector<const NodeLoad*> order;
  for (const NodeLoad& n : nodes) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(), [](const NodeLoad* a, const NodeLoad* b) {
    return a->pods.size() != b->pods.size() ? a->pods.size() < b->pods.size() : a->name < b->name;
  });
  // Every node not in `removed`.
  auto kept_of = [&](const std::vector<const NodeLoad*>& removed) {
    std::vector<const NodeLoad*> kept;
    for (const NodeLoad& o : nodes) {
      if (std::find(removed.begin(), removed.end(), &o) == removed.end()) kept.push_back(&o);
    }
    return kept;
  };
  // The cheapest group cheaper than `below` with room whose one new node, with the kept
  // nodes, holds the removed nodes' pods; nullptr when none.
  auto cheapest_replacement = [&](const std::vector<const NodeLoad*>& removed, double below) {
    const std::vector<const NodeLoad*> kept = kept_of(removed);
    const NodeGroup* best = nullptr;
    for (const NodeGroup& g : groups) {
      if (g.price_per_hour >= below) continue;
      if (sizes[g.name] >= g.max) continue;
      if (best != nullptr && g.price_per_hour >= best->price_per_hour) continue;
      if (fit(removed, kept, &g)) best = &g;
    }
    return best;
  };
  // An action for removing `removed` at once (delete, else replace), or nullopt.
  auto consolidate = [&](const std::vector<const NodeLoad*>& removed,
                         bool multi) -> std::optional<ConsolidationAction> {
    ConsolidationAction a;
    a.multi_node = multi;
    double price = 0;
    for (const NodeLoad* n : removed) {
      a.nodes.push_back(n->name);
      price += FindGroup(groups, n->group)->price_per_hour;
    }
    if (fit(removed, kept_of(removed), nullptr)) return a;
    if (const NodeGroup* g = cheapest_replacement(removed, price); g != nullptr) {
      a.kind = ConsolidationAction::Kind::kReplace;
      a.replacement_group = g->name;
      return a;
    }
    return std::nullopt;
  };

  // 2. Multi-node: the longest consolidatable prefix of the candidates (length >= 2).
  std::vector<const NodeLoad*> candidates;
  for (const NodeLoad* n : order) {
    if (!n->pods.empty() && eligible(*n)) candidates.push_back(n);
  }
  if (candidates.size() > kMaxMultiNodeCandidates) candidates.resize(kMaxMultiNodeCandidates);
  // A prefix must also leave every group at or above its min.
  auto within_min = [&](size_t k) {
    std::map<std::string, int> left = sizes;
    for (size_t i = 0; i < k; ++i) {
      const NodeGroup* g = FindGroup(groups, candidates[i]->group);
      if (--left[g->name] < g->min) return false;
    }
    return true;
  };
  size_t lo = 2;
  size_t hi = std::min(candidates.size(), static_cast<size_t>(budget));
  std::optional<ConsolidationAction> best;
  while (lo <= hi) {
    const size_t mid = lo + (hi - lo) / 2;
    std::optional<ConsolidationAction> a;
    if (within_min(mid)) {
      a = consolidate({candidates.begin(), candidates.begin() + mid}, /*multi=*/true);
    }
    if (a.has_value()) {
      best = std::move(a);
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (best.has_value()) {
    actions.push_back(*std::move(best));
    return actions;
  }

  // 3. Single node: delete, else replace.
  for (const NodeLoad* n : order) {
    if (!eligible(*n)) continue;
    if (fit({n}, kept_of({n}), nullptr)) {
      actions.push_back({ConsolidationAction::Kind::kDelete, {n->name}, "", false});
      return actions;
    }
  }
  for (const NodeLoad* n : order) {
    if (!eligible(*n)) continue;
    const NodeGroup* current = FindGroup(groups, n->group);
    if (const NodeGroup* g = cheapest_replacement({n}, current->price_per_hour); g != nullptr) {
      actions.push_back({ConsolidationAction::Kind::kReplace, {n->name}, g->name, false});
      return actions;
    }
  }
  return actions;
}

}  // namespace trimaran::sim
