#pragma once
// Test fixtures of the decisions and of `trimaranctl explain`'s output, shared by
// scheduler/decisions/explain_format_test.cc and cmd/trimaranctl/explain_test.cc: the pod
// default/web-1 and its two recorded attempts.
//
// Thread-safety: pure functions.

#include <string>

#include "kube/api/pod.h"
#include "scheduler/decisions/decision_json.h"

namespace trimaran::sched::decisions::testing {

// default/web-1 (uid uid-web-1) as the API shows it now, bound to `node`.
kube::Pod WebPod(const std::string& node);

// The ring's answer for default/web-1 (capacity 1000): the newest attempt bound the pod
// to node-7 (20 nodes evaluated, 12 feasible, a fallback, the top 3 with per-plugin
// scores); an earlier one found no room.
DecisionList TwoAttempts();

}  // namespace trimaran::sched::decisions::testing
