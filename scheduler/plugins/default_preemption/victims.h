#pragma once
// SelectVictimsOnNode: the dry run of preemption on one node (upstream's
// DefaultPreemption.SelectVictimsOnNode, spec kube-scheduler-constraints.md §9.3): remove
// every lower-priority pod from a private copy of the node and the cycle state, check the
// preemptor fits, then give pods back in importance order (the ones whose eviction would
// violate a PodDisruptionBudget first) while it still fits; what could not be given back
// are the victims.
//
// Thread-safety: pure functions over the caller's private NodeInfo and CycleState copies;
// the PluginsRunner is safe for concurrent use, so different nodes may be dry-run in
// parallel.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/time/time.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/plugins_runner.h"
#include "scheduler/framework/status.h"
#include "scheduler/plugins/default_preemption/disruption_budget.h"

namespace trimaran::sched::plugins {

inline constexpr absl::string_view kNoPreemptionVictims =
    "No preemption victims found for incoming pod";

struct Victims {
  // Most important first (MoreImportantPod).
  std::vector<std::shared_ptr<const kube::Pod>> pods;
  int64_t num_pdb_violations = 0;
};

// status.startTime, or `now` when the pod has none (upstream GetPodStartTime).
absl::Time PodStartTime(const kube::Pod& pod, absl::Time now);

// Higher priority first; equal priority: earlier start time first.
bool MoreImportantPod(const kube::Pod& a, const kube::Pod& b, absl::Time now);

// Runs the dry run on `node` and `state`, which the caller has cloned and which this
// changes. Success with `out` filled (at least one victim); UnschedulableAndUnresolvable
// kNoPreemptionVictims when no pod has lower priority; the Filters' status when the pod
// does not fit even without them; kError when a PreFilter extension fails.
Status SelectVictimsOnNode(const PluginsRunner& runner, CycleState& state, const kube::Pod& pod,
                           NodeInfo& node, std::span<const DisruptionBudget> budgets,
                           absl::Time now, Victims& out);

}  // namespace trimaran::sched::plugins
