#pragma once
// PluginsRunner: the part of a profile's runtime that a PostFilter plugin re-runs to
// simulate changes to a node (upstream's framework.PluginsRunner, used by
// DefaultPreemption's dry runs): the PreFilter extensions of every PreFilter plugin that
// did not Skip, and the Filters with nominated pods (spec kube-scheduler-constraints.md
// §1.3). The runtime's Framework implements it; Handle::plugins_runner() hands it out.
//
// Thread-safety: every method is safe for concurrent use on distinct CycleStates and
// NodeInfos (the preemption dry run calls them from parallel workers, each on its own
// clones).

#include "kube/api/pod.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/status.h"

namespace trimaran::sched {

class PluginsRunner {
 public:
  virtual ~PluginsRunner() = default;
  // Calls AddPod / RemovePod of every PreFilter plugin's PreFilterExtensions (skipping
  // plugins that returned Skip from PreFilter in `state`), in profile order; the first
  // failure is returned, attributed.
  virtual Status RunPreFilterExtensionAddPod(CycleState& state, const kube::Pod& pod_to_schedule,
                                             const PodInfo& pod_to_add,
                                             const NodeInfo& node_info) const = 0;
  virtual Status RunPreFilterExtensionRemovePod(CycleState& state, const kube::Pod& pod_to_schedule,
                                                const PodInfo& pod_to_remove,
                                                const NodeInfo& node_info) const = 0;
  // The Filters with the pods nominated to the node that have priority >= pod's added
  // (the two-pass check of spec §1.3); Success when both passes pass.
  virtual Status RunFilterPluginsWithNominatedPods(const CycleState& state, const kube::Pod& pod,
                                                   const NodeInfo& node_info) const = 0;
};

}  // namespace trimaran::sched
