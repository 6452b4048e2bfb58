#pragma once
// DefaultPreemptionArgs (kubescheduler.config.k8s.io/v1, spec
// kube-scheduler-constraints.md §9.1): how many candidate nodes a preemption dry run
// looks for before it stops.
//
//   args:
//     minCandidateNodesPercentage: 10   # 0..100
//     minCandidateNodesAbsolute: 100    # >= 0; not both zero
//
// Thread-safety: plain values and pure functions.

#include <cstdint>

#include "absl/status/statusor.h"
#include "scheduler/framework/plugin_args.h"

namespace trimaran::sched::plugins {

struct DefaultPreemptionArgs {
  int32_t min_candidate_nodes_percentage = 10;
  int32_t min_candidate_nodes_absolute = 100;

  friend bool operator==(const DefaultPreemptionArgs&, const DefaultPreemptionArgs&) = default;
};

// Decodes `args.args` (Null: all defaults) and validates it. Unknown fields, wrongly typed
// values and out-of-range values are field errors naming their path
// ("profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 101: not in
// valid range [0, 100]"); all are reported together as InvalidArgument.
absl::StatusOr<DefaultPreemptionArgs> DecodeDefaultPreemptionArgs(const PluginArgs& args);

// How many candidates a dry run over `num_nodes` potential nodes collects:
// min(num_nodes, max(num_nodes * percentage / 100, absolute)) (integer arithmetic).
int32_t NumCandidates(const DefaultPreemptionArgs& args, int32_t num_nodes);

}  // namespace trimaran::sched::plugins
