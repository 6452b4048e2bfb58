#include "sim/autoscaler.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace trimaran::sim {
namespace {

struct Bin {
  int64_t cpu = 0;
  int64_t mem = 0;
  int64_t pods = 0;
};

bool Fits(const Bin& free, const Request& r) {
  return free.cpu >= r.cpu_milli && free.mem >= r.memory_mib && free.pods >= 1;
}

void Take(Bin& free, const Request& r) {
  free.cpu -= r.cpu_milli;
  free.mem -= r.memory_mib;
  free.pods -= 1;
}

// Sorted by dominant share against (cpu, mem), largest first; stable.
std::vector<Request> Decreasing(std::vector<Request> pods, double cpu, double mem) {
  std::stable_sort(pods.begin(), pods.end(), [&](const Request& a, const Request& b) {
    return std::max(a.cpu_milli / cpu, a.memory_mib / mem) >
           std::max(b.cpu_milli / cpu, b.memory_mib / mem);
  });
  return pods;
}

}  // namespace

ScaleUpOption EstimateGroup(const NodeGroup& group, const std::vector<Request>& pending,
                            int max_nodes) {
  ScaleUpOption option;
  option.group = group.name;
  const Bin empty{group.cpu_milli, group.memory_mib, group.pods};
  std::vector<Bin> bins;
  int64_t req_cpu = 0;
  int64_t req_mem = 0;
  for (const Request& r : Decreasing(pending, static_cast<double>(group.cpu_milli),
                                     static_cast<double>(group.memory_mib))) {
    if (!Fits(empty, r)) continue;
    bool placed = false;
    for (Bin& b : bins) {
      if (Fits(b, r)) {
        Take(b, r);
        placed = true;
        break;
      }
    }
    if (!placed) {
      if (static_cast<int>(bins.size()) >= max_nodes) continue;
      bins.push_back(empty);
      Take(bins.back(), r);
    }
    req_cpu += r.cpu_milli;
    req_mem += r.memory_mib;
    ++option.pods;
  }
  option.nodes = static_cast<int>(bins.size());
  if (option.nodes > 0) {
    const double cpu = static_cast<double>(option.nodes) * group.cpu_milli;
    const double mem = static_cast<double>(option.nodes) * group.memory_mib;
    option.waste = (cpu - req_cpu) / cpu + (mem - req_mem) / mem;
  }
  option.price_per_hour = option.nodes * group.price_per_hour;
  return option;
}

ScaleUpPlan PlanScaleUp(const std::vector<GroupCapacity>& groups,
                        const std::vector<Request>& pending, Expander expander,
                        int max_nodes_per_scale_up, std::mt19937_64& rng) {
  ScaleUpPlan plan;
  for (const GroupCapacity& g : groups) {
    const int limit = std::min(g.headroom, max_nodes_per_scale_up);
    if (limit <= 0) continue;
    ScaleUpOption option = EstimateGroup(*g.group, pending, limit);
    if (option.pods > 0) plan.options.push_back(std::move(option));
  }
  if (plan.options.empty()) return plan;
  // A lower key is better; options with the best key tie, and ties go at random.
  auto key = [&](const ScaleUpOption& o) -> double {
    switch (expander) {
      case Expander::kLeastWaste:
        return o.waste;
      case Expander::kPrice:
        // Cost per pending pod helped: the cheapest way to run the pods.
        return o.price_per_hour / o.pods;
      case Expander::kMostPods:
        return -o.pods;
      case Expander::kLeastNodes:
        return o.nodes;
      case Expander::kRandom:
        return 0;
    }
    return 0;
  };
  double best = key(plan.options.front());
  for (const ScaleUpOption& o : plan.options) best = std::min(best, key(o));
  std::vector<size_t> tied;
  for (size_t i = 0; i < plan.options.size(); ++i) {
    if (std::abs(key(plan.options[i]) - best) <= 1e-12) tied.push_back(i);
  }
  if (tied.size() == 1) {
    plan.chosen = tied.front();
  } else {
    std::uniform_int_distribution<size_t> pick(0, tied.size() - 1);
    plan.chosen = tied[pick(rng)];
  }
  return plan;
}

bool FitsElsewhere(const std::vector<Request>& pods, const std::vector<NodeLoad>& others) {
  std::vector<Bin> free;
  for (const NodeLoad& n : others) {
    Bin b{n.alloc_cpu_milli, n.alloc_memory_mib,
          n.alloc_pods - static_cast<int64_t>(n.pods.size())};
    for (const Request& r : n.pods) {
      b.cpu -= r.cpu_milli;
      b.mem -= r.memory_mib;
    }
    free.push_back(b);
  }
  for (const Request& r : Decreasing(pods, 1000.0, 1024.0)) {
    bool placed = false;
    for (Bin& b : free) {
      if (Fits(b, r)) {
        Take(b, r);
        placed = true;
        break;
      }
    }
    if (!placed) return false;
  }
  return true;
}

std::vector<std::string> ScaleDownState::Scan(double now, const std::vector<NodeLoad>& nodes,
                                              const std::map<std::string, int>& group_sizes,
                                              const std::vector<NodeGroup>& groups) {
  std::set<std::string> present;
  std::vector<const NodeLoad*> ripe_empty;
  std::vector<const NodeLoad*> ripe_busy;
  for (const NodeLoad& n : nodes) {
    present.insert(n.name);
    int64_t cpu = 0;
    int64_t mem = 0;
    for (const Request& r : n.pods) {
      cpu += r.cpu_milli;
      mem += r.memory_mib;
    }
    const double util = std::max(static_cast<double>(cpu) / n.alloc_cpu_milli,
                                 static_cast<double>(mem) / n.alloc_memory_mib);
    bool unneeded = util < config_.scale_down_utilization_threshold;
    if (unneeded && !n.pods.empty()) {
      std::vector<NodeLoad> others;
      for (const NodeLoad& o : nodes) {
        if (o.name != n.name) others.push_back(o);
      }
      unneeded = FitsElsewhere(n.pods, others);
    }
    if (!unneeded) {
      unneeded_since_.erase(n.name);
      continue;
    }
    auto [it, inserted] = unneeded_since_.emplace(n.name, now);
    if (now - it->second >= config_.scale_down_unneeded_time) {
      (n.pods.empty() ? ripe_empty : ripe_busy).push_back(&n);
    }
  }
  for (auto it = unneeded_since_.begin(); it != unneeded_since_.end();) {
    it = present.contains(it->first) ? std::next(it) : unneeded_since_.erase(it);
  }
  std::vector<std::string> remove;
  if (last_scale_up_.has_value() && now - *last_scale_up_ < config_.scale_down_delay_after_add) {
    return remove;
  }
  std::map<std::string, int> sizes = group_sizes;
  auto allowed = [&](const NodeLoad& n) {
    for (const NodeGroup& g : groups) {
      if (g.name == n.group) return sizes[n.group] > g.min;
    }
    return false;
  };
  // Longest-unneeded first, then by name (deterministic).
  auto order = [&](std::vector<const NodeLoad*>& v) {
    std::stable_sort(v.begin(), v.end(), [&](const NodeLoad* a, const NodeLoad* b) {
      const double sa = unneeded_since_.at(a->name);
      const double sb = unneeded_since_.at(b->name);
      return sa != sb ? sa < sb : a->name < b->name;
    });
  };
  order(ripe_empty);
  order(ripe_busy);
  for (const NodeLoad* n : ripe_empty) {
    if (static_cast<int>(remove.size()) >= config_.max_empty_bulk_delete) break;
    if (!allowed(*n)) continue;
    --sizes[n->group];
    remove.push_back(n->name);
  }
  if (!remove.empty()) return remove;
  for (const NodeLoad* n : ripe_busy) {
    if (static_cast<int>(remove.size()) >= config_.max_drain_parallelism) break;
    if (!allowed(*n)) continue;
    --sizes[n->group];
    remove.push_back(n->name);
  }
  for (const std::string& name : remove) unneeded_since_.erase(name);
  return remove;
}

std::optional<double> ScaleDownState::UnneededSince(const std::string& node) const {
  auto it = unneeded_since_.find(node);
  if (it == unneeded_since_.end()) return std::nullopt;
  return it->second;
}

}  // namespace trimaran::sim
