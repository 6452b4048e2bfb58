#pragma once
// The extender's score mapping (docs/extender.md, "Scores"): a profile's weighted total
// Σ_p weight_p × score_p (each score in [0, 100]) becomes an extender priority in
// [0, 10] relative to the profile's largest possible total, 100 × Σ_p weight_p over the
// score plugins that ran:
//
//   priority = round(10 × total / max_total)      (halves round up; clamped to [0, 10])
//
// It is absolute, not relative to the nodes of one request: a node at 30 % of the
// profile's maximum gets 3 whatever the other candidates score, so a priority means the
// same thing from one pod to the next, and small differences between nodes are not
// stretched into 0-vs-10. kube-scheduler then adds priority × weight × 10 (spec §4.2),
// i.e. the profile counts like one of kube-scheduler's own plugins of that weight.
//
// Thread-safety: pure functions.

#include <cstdint>

namespace trimaran::sched::extender {

// max_total <= 0 (no score plugin ran): 0.
int64_t ToExtenderPriority(int64_t total, int64_t max_total);

}  // namespace trimaran::sched::extender
