#pragma once
// Taint/toleration matching, upstream's v1helper (ToleratesTaint,
// TolerationsTolerateTaint, FindMatchingUntoleratedTaint), shared by TaintToleration,
// NodeUnschedulable and (later) PodTopologySpread's nodeTaintsPolicy.
//
// A toleration t tolerates a taint x iff (spec kube-scheduler.md §3.4):
//   (t.effect is empty (kAll) or t.effect == x.effect) AND
//   (t.key == x.key, or t.key is empty and t.operator is Exists: every key) AND
//   (t.operator is Exists, or t.value == x.value).
// Difference from upstream's code: an empty key with operator Equal matches only taints
// whose key is empty (upstream would match any key with an equal value). The apiserver
// rejects that toleration ("operator must be Exists when key is empty"), so real pods
// never show the difference.
//
// Thread-safety: pure functions. Allocation-free.

#include <span>

#include "absl/functional/function_ref.h"
#include "kube/api/taint.h"

namespace trimaran::sched::plugins::helper {

bool ToleratesTaint(const kube::Toleration& toleration, const kube::Taint& taint);

// Whether any of `tolerations` tolerates `taint`.
bool TolerationsTolerateTaint(std::span<const kube::Toleration> tolerations,
                              const kube::Taint& taint);

// The first taint of `taints` (in order) for which `filter` returns true and that no
// toleration tolerates; nullptr when there is none.
const kube::Taint* FindMatchingUntoleratedTaint(std::span<const kube::Taint> taints,
                                                std::span<const kube::Toleration> tolerations,
                                                absl::FunctionRef<bool(const kube::Taint&)> filter);

// NoSchedule or NoExecute: the taints Filter enforces (upstream's
// DoNotScheduleTaintsFilterFunc).
inline bool IsDoNotScheduleTaint(const kube::Taint& taint) {
  return taint.effect == kube::TaintEffect::kNoSchedule ||
         taint.effect == kube::TaintEffect::kNoExecute;
}

}  // namespace trimaran::sched::plugins::helper
