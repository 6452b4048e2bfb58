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

#include <string>

#include "kube/api/pod.h"
#include "scheduler/decisions/decision_json.h"

namespace trimaran::sched::decisions {

// `decisions` holds the pod's decisions, newest first, at least one.
std::string FormatExplainTable(const kube::Pod& pod, const DecisionList& list);
std::string FormatExplainJson(const kube::Pod& pod, const DecisionList& list);

}  // namespace trimaran::sched::decisions
