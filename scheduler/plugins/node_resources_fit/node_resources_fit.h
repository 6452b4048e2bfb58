#pragma once
// NodeResourcesFit: does the pod fit the node's free resources (Filter), and how full
// would the node be with it (Score)? Upstream's noderesources.Fit; spec §2.1–§2.5.
//
// PreFilter computes the pod's request once (kube::ComputePodRequests, the only
// definition of a pod's request; docs/architecture.md invariant 1) into the CycleState.
// Filter checks, in upstream's order, and reports every failing check:
//   1. pod count: pods on the node + 1 > allocatable pods    -> "Too many pods"
//   2. (a pod requesting nothing stops here)
//   3. cpu, 4. memory, 5. ephemeral-storage: request > allocatable − requested
//                                            -> "Insufficient cpu" / "... memory" / ...
//   6. each scalar resource with a positive request (hugepages, extended, ...), except
//      extended resources named in ignoredResources or whose domain is in
//      ignoredResourceGroups                -> "Insufficient <name>" (sorted by name)
// The status is kUnschedulable, or kUnschedulableAndUnresolvable when some resource
// request exceeds the node's total allocatable (preemption cannot help; upstream
// ≥ 1.32). "Too many pods" alone is always kUnschedulable.
//
// PreScore computes the pod's request for each configured scoring resource (cpu and
// memory with the non-zero defaults of §2.5). Score, for each resource i with
// allocatable alloc_i > 0 (a scalar resource the pod does not request is skipped):
//   req_i = node's non-zero requested (cpu, memory) or requested (others) + pod's request
//   LeastAllocated:  s_i = req_i > alloc_i ? 0 : (alloc_i − req_i)·100 / alloc_i
//   MostAllocated:   s_i = min(req_i, alloc_i)·100 / alloc_i
//   score = Σ s_i·w_i / Σ w_i  (integer division; 0 when no resource counts)
//   RequestedToCapacityRatio: U_i = req_i > alloc_i ? 100 : req_i·100 / alloc_i, f the
//   broken-linear shape (scores ×10), and only resources with f(U_i) > 0 count:
//   score = round(Σ f_i·w_i / Σ w_i) (half away from zero).
// Products are computed in 128 bits, so no input overflows.
//
// Exact scores (issue 4): every strategy also reports ScoreResult::exact, the same
// formula in double precision without the integer truncations (for RTCR: over the same
// contributing resources), so the runtime can break integer ties by real utilisation.
// exact is within [0, 100] and differs from score by less than one point for
// LeastAllocated and MostAllocated (RTCR: up to the shape's slope × 1%, plus rounding).
//
// Thread-safety: the plugin is immutable after construction. PreFilter/PreScore run on
// the scheduling thread; Filter and Score only read the CycleState and NodeInfo and are
// safe for concurrent use across nodes. Neither allocates in the common case: fixed
// rejections are prebuilt, scalar resources are looked up without copying names; only
// a rejection naming a scalar resource builds a new Status.
// Ownership: the plugin owns its args; the CycleState owns the per-pod data.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "kube/api/pod_resources.h"
#include "scheduler/framework/cluster_event.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"
#include "scheduler/plugins/helper/resource_allocation.h"
#include "scheduler/plugins/node_resources_fit/args.h"

namespace trimaran::sched::plugins {

class NodeResourcesFit final : public PreFilterPlugin,
                               public FilterPlugin,
                               public PreScorePlugin,
                               public ScorePlugin,
                               public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "NodeResourcesFit";
  // CycleState keys.
  static constexpr absl::string_view kPreFilterStateKey = "PreFilterNodeResourcesFit";
  static constexpr absl::string_view kPreScoreStateKey = "PreScoreNodeResourcesFit";

  // Factory for Registry::Register: decodes, defaults and validates the args
  // (InvalidArgument listing every field error).
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New, the extension points of its
  // interfaces, and an args validator that decodes the args exactly as New does; a
  // profile scoring with it packs when scoringStrategy is MostAllocated or
  // RequestedToCapacityRatio.
  static PluginDescriptor Descriptor();

  // `args` must be valid (ValidateNodeResourcesFitArgs); checked.
  explicit NodeResourcesFit(NodeResourcesFitArgs args = DefaultNodeResourcesFitArgs());

  absl::string_view Name() const override { return kName; }
  const NodeResourcesFitArgs& args() const { return args_; }

  // Stores the pod's request (kube::ComputePodRequests). Always Success.
  Status PreFilter(CycleState& state, const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                   PreFilterResult& result) override;
  Status Filter(const CycleState& state, const kube::Pod& pod,
                const NodeInfo& node_info) const override;

  // Stores the pod's request for each scoring resource. Always Success.
  Status PreScore(CycleState& state, const kube::Pod& pod,
                  std::span<const NodeInfo* const> nodes) override;
  // Recomputes the pod's requests when PreScore did not run (as upstream).
  ScoreResult Score(const CycleState& state, const kube::Pod& pod,
                    const NodeInfo& node_info) const override;

  // A node added or its allocatable changed; an assigned pod deleted or scaled down.
  std::vector<ClusterEvent> EventsToRegister() const override;
  // Upstream's hints: a deleted pod queues unless it was neither bound nor nominated; a
  // scaled-down pod only when a resource this pod requests shrank; a node only when the
  // pod fits it empty and, for an update, a resource the pod requests (or the pod count)
  // grew.
  absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                    const EventObjects& objects) const override;

 private:
  // A scoring resource, classified once.
  struct ScoredResource {
    helper::AllocationResource resource;
    int64_t weight;
  };
  // A shape point scaled to node scores (score × 10).
  struct ShapePoint {
    int64_t utilization;
    int64_t score;
  };

  // The pod's request for each scoring resource.
  std::vector<int64_t> ScoringRequests(const kube::Pod& pod) const;
  // Whether Filter skips the scalar resource `name`.
  bool IsIgnored(absl::string_view name) const;
  // Whether `request` fits `node` with no pod on it (upstream's isFit).
  bool FitsEmptyNode(const kube::Resource& request, const kube::Node& node) const;
  // The rejection for fixed checks `mask` (bits below) plus `scalar_failures`.
  Status Rejection(unsigned mask, bool unresolvable,
                   std::span<const std::string* const> scalar_failures) const;
  // f(U) on the integer and the exact path.
  int64_t ShapeScore(int64_t utilization) const;
  double ShapeScoreExact(double utilization) const;

  NodeResourcesFitArgs args_;
  absl::flat_hash_set<std::string> ignored_resources_;
  absl::flat_hash_set<std::string> ignored_groups_;
  std::vector<ScoredResource> resources_;
  std::vector<ShapePoint> shape_;  // RequestedToCapacityRatio only
  // Prebuilt rejections for the fixed checks, indexed [unresolvable][mask] where mask
  // has bit 0 pods, 1 cpu, 2 memory, 3 ephemeral-storage.
  std::array<std::array<Status, 16>, 2> rejections_;
};

}  // namespace trimaran::sched::plugins
