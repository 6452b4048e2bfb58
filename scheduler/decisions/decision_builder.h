#pragma once
// MakeDecision: a Decision (decision.h) from what one scheduling cycle already computed
// (nothing is rescored): the cycle's ScheduleResult, the scores the algorithm left in
// SchedulingAlgorithmState (valid until the next cycle; result.scored says whether there
// are any) and the Framework's Score plugins with their weights.
//
//   top: the chosen node first, then the best other nodes by weighted total (ties: the
//        higher exact total, then the cycle's node order), at most kMaxTopNodes; each with
//        weight x normalized score per Score plugin that ran (skipped ones are left
//        out). A cycle that did not score (one feasible node, the nominated node) lists
//        the chosen node alone, with total 0 and no scores.
//   fallbacks: Framework::AppendFallbackNotes (at most kMaxFallbacks lines).
//
// The outcome (result, node, message, time) is the caller's (the scheduler records Bound
// when the binding cycle ends).
//
// Cost: one pass over the feasible nodes' totals (O(feasible x kMaxTopNodes) integer
// comparisons at worst, no NodeInfo touched: the chosen node's index comes from
// ScheduleResult::selected_index) and a few small strings for the 5 nodes kept; called
// on the scheduling thread only when a DecisionRing is configured.
//
// Thread-safety: reads `algo` and `state`, which the scheduling thread owns.

#include "kube/api/pod.h"
#include "scheduler/decisions/decision.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/runtime/framework.h"
#include "scheduler/runtime/schedule_algorithm.h"

namespace trimaran::sched::decisions {

Decision MakeDecision(const Framework& framework, const CycleState& state, const kube::Pod& pod,
                      const ScheduleResult& result, const SchedulingAlgorithmState& algo);

}  // namespace trimaran::sched::decisions
