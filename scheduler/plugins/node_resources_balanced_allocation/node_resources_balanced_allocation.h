#pragma once
// NodeResourcesBalancedAllocation: prefers nodes whose resource utilisations stay close
// to each other once the pod is placed (upstream's noderesources.BalancedAllocation,
// the std-dev version of 1.23+; spec §2.6).
//
// PreScore computes the pod's actual request (kube::ComputePodRequests, no non-zero
// defaults) for each configured resource; a pod requesting none of them (best effort)
// returns Skip, so the plugin scores 0 everywhere for it (kubernetes#129138).
// Score, over the resources with allocatable > 0 (a scalar resource the pod does not
// request is skipped):
//   F_i = min(1, (requested_i + pod_i) / allocatable_i)          (double)
//   std = 0 (n ≤ 1) | |F_1 − F_2| / 2 (n = 2) | population std-dev (n > 2)
//   score = int((1 − std)·100)                                   (truncation)
// and reports ScoreResult::exact = (1 − std)·100 unrounded (issue 4's tie-break).
//
// Thread-safety: immutable after construction; Score only reads the CycleState and the
// NodeInfo, is safe for concurrent use across nodes and does not allocate when PreScore
// ran.
// Ownership: the plugin owns its args; the CycleState owns the per-pod requests.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"
#include "scheduler/plugins/helper/resource_allocation.h"
#include "scheduler/plugins/node_resources_balanced_allocation/args.h"

namespace trimaran::sched::plugins {

class NodeResourcesBalancedAllocation final : public PreScorePlugin, public ScorePlugin {
 public:
  static constexpr absl::string_view kName = "NodeResourcesBalancedAllocation";
  static constexpr absl::string_view kPreScoreStateKey = "PreScoreNodeResourcesBalancedAllocation";

  // Factory for Registry::Register: decodes, defaults and validates the args.
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New, the extension points of its
  // interfaces, and an args validator that decodes the args exactly as New does.
  static PluginDescriptor Descriptor();

  // `args` must be valid (ValidateNodeResourcesBalancedAllocationArgs); checked.
  explicit NodeResourcesBalancedAllocation(
      NodeResourcesBalancedAllocationArgs args = DefaultNodeResourcesBalancedAllocationArgs());

  absl::string_view Name() const override { return kName; }
  const NodeResourcesBalancedAllocationArgs& args() const { return args_; }

  // Skip for a pod requesting none of the resources; otherwise stores its requests.
  Status PreScore(CycleState& state, const kube::Pod& pod,
                  std::span<const NodeInfo* const> nodes) override;
  // Recomputes the pod's requests when PreScore did not run (as upstream).
  ScoreResult Score(const CycleState& state, const kube::Pod& pod,
                    const NodeInfo& node_info) const override;

 private:
  std::vector<int64_t> PodRequests(const kube::Pod& pod) const;

  NodeResourcesBalancedAllocationArgs args_;
  std::vector<helper::AllocationResource> resources_;  // classified once
};

}  // namespace trimaran::sched::plugins
