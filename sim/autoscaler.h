#pragma once
// The autoscaler model's decisions, as pure functions over requests (spec
// dashboard-and-simulator.md §B3.1 and §B3.3; docs/simulator.md "The autoscaler"):
//
//   PlanScaleUp      Cluster Autoscaler's scale-up: for the pending pods, size each node
//                    group's increase with a first-fit-decreasing bin packing onto the
//                    group's template node (--estimator=binpacking), then pick one group
//                    with the expander (least-waste, price, most-pods, least-nodes,
//                    random; remaining ties at random from the seeded generator).
//   ScaleDownState   CA's scale-down: a node is unneeded while max(cpu, memory) requests
//                    / allocatable < the threshold (0.5) and its pods fit on the other
//                    nodes' free requests; it is removed once unneeded for the unneeded
//                    time (10 min), not within the delay after a scale-up (10 min), not
//                    below the group's min; empty nodes in bulk (10), non-empty ones one
//                    at a time (drain 1).
//
// Fit checks here use requests only (cpu, memory, pod count), like CA's template-node
// check without custom filters; the pods themselves are then placed by the real
// scheduler profile.
//
// Thread-safety: PlanScaleUp is a pure function; ScaleDownState is externally
// synchronized.

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sim/trace.h"

namespace trimaran::sim {

struct Request {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
};

// A group as the scale-up sees it: its shape and how many more nodes it may get.
struct GroupCapacity {
  const NodeGroup* group = nullptr;
  int headroom = 0;  // max - (ready + starting)
};

struct ScaleUpOption {
  std::string group;
  int nodes = 0;
  int pods = 0;  // pending pods the new nodes would take
  // least-waste's score: (alloc-req)/alloc for cpu plus the same for memory, over the
  // new nodes.
  double waste = 0;
  double price_per_hour = 0;  // of the new nodes
};

struct ScaleUpPlan {
  // Every group that helps at least one pod, in group order.
  std::vector<ScaleUpOption> options;
  // The expander's choice (index into options); nullopt: no group helps.
  std::optional<size_t> chosen;
};

// The new nodes `group` needs for `pending` (FFD by dominant share onto empty template
// nodes; pods larger than the template are left out), at most `max_nodes`.
ScaleUpOption EstimateGroup(const NodeGroup& group, const std::vector<Request>& pending,
                            int max_nodes);

ScaleUpPlan PlanScaleUp(const std::vector<GroupCapacity>& groups,
                        const std::vector<Request>& pending, Expander expander,
                        int max_nodes_per_scale_up, std::mt19937_64& rng);

// One node as the scale-down sees it.
struct NodeLoad {
  std::string name;
  std::string group;
  int64_t alloc_cpu_milli = 0;
  int64_t alloc_memory_mib = 0;
  int64_t alloc_pods = 110;
  std::vector<Request> pods;  // its pods' requests
};

// Whether `pods` fit on the free requests of `others` (first fit decreasing).
bool FitsElsewhere(const std::vector<Request>& pods, const std::vector<NodeLoad>& others);

class ScaleDownState {
 public:
  explicit ScaleDownState(AutoscalerConfig config) : config_(config) {}
  // Records a scale-up at `now` (scale-down pauses for the delay after add).
  void ScaledUp(double now) { last_scale_up_ = now; }
  // One scan at `now` over the ready nodes; `group_sizes` counts each group's nodes
  // (ready or starting), `groups` gives their min. Returns the nodes to remove: up to
  // max_empty_bulk_delete empty ones, else up to max_drain_parallelism non-empty ones.
  std::vector<std::string> Scan(double now, const std::vector<NodeLoad>& nodes,
                                const std::map<std::string, int>& group_sizes,
                                const std::vector<NodeGroup>& groups);
  // When `node` became unneeded, if it is.
  std::optional<double> UnneededSince(const std::string& node) const;

 private:
  AutoscalerConfig config_;
  std::optional<double> last_scale_up_;
  std::map<std::string, double> unneeded_since_;
};

}  // namespace trimaran::sim
