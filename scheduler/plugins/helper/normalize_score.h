#pragma once
// DefaultNormalizeScore: upstream's helper.DefaultNormalizeScore (spec kube-scheduler.md
// §4.2), which rescales one plugin's raw scores so the best node gets `max_priority`:
//
//   m = max(score); m == 0 -> every score becomes 0 (max_priority when reverse);
//   otherwise score' = max_priority * score / m (integer division), and
//   score' = max_priority - score' when reverse.
//
// Exact scores (types.h, ScoreResult): `exact` is rescaled the same way in floating
// point, from the raw exact value when the plugin reported one and from the raw
// integer score otherwise, so nodes whose rescaled integers tie because of the integer
// division keep their true order; the result is clamped to [0, max_priority].
//
// Raw scores are assumed non-negative (as upstream). Allocation-free.
//
// Thread-safety: a pure function of its arguments.

#include <cstdint>

#include "scheduler/framework/types.h"

namespace trimaran::sched::plugins::helper {

void DefaultNormalizeScore(int64_t max_priority, bool reverse, NodeScoreList& scores);

}  // namespace trimaran::sched::plugins::helper
