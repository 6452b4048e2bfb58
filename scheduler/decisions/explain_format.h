#pragma once
// `trimaranctl explain`'s output (cmd/trimaranctl/explain_command.h): the real decision the
// scheduler recorded for one pod (scheduler/decisions/), next to the pod as the API shows it now.
// The table form follows `trimaranctl score`'s (scheduler/explain/report_format.h): a header of
// "Key:  value" lines, then one row per node with a column per Score plugin and TOTAL,
// the chosen node marked "<- chosen". The JSON form is
//   {"pod": "ns/name", "uid": "...", "nodeName": "<spec.nodeName now>",
//    "nodeNameAgrees": true|false|null,      // null: no Bound decision to compare
//    "scheduler": <the /debug/decisions answer for the pod: capacity, decisions>}
//
// Thread-safety: pure functions.

#include <cstddef>
#include <set>
#include <string>

#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/decisions/decision_json.h"

namespace trimaran::sched::decisions {

// `decisions` holds the pod's decisions, newest first, at least one.
std::string FormatExplainTable(const kube::Pod& pod, const DecisionList& list);
std::string FormatExplainJson(const kube::Pod& pod, const DecisionList& list);

// Why a ring of `capacity` decisions holds none for `pod` (`key`: "NAMESPACE/NAME"):
// another scheduler's pod (its schedulerName is none of `ring_profiles`, the profiles of
// the decisions the ring holds, when it holds any), not attempted yet, or decided too
// long ago, by another replica or by another scheduler.
std::string ExplainMissingDecision(const kube::Pod& pod, absl::string_view key, size_t capacity,
                                   const std::set<std::string>& ring_profiles);

}  // namespace trimaran::sched::decisions
