#pragma once
// The /debug/decisions JSON (the contract in docs/operations.md, "Live decisions"):
//
//   {"capacity": 1000,
//    "decisions": [{"time": "2026-11-26T21:00:00.123Z", "pod": "default/web-1",
//                   "uid": "...", "profile": "trimaran", "result": "Bound",
//                   "node": "node-7", "evaluatedNodes": 5000, "feasibleNodes": 812,
//                   "fallbacks": [], "message": "",
//                   "top": [{"node": "node-7", "total": 412,
//                            "scores": {"TargetLoadPacking": 97, ...}}]}]}
//
// `time` is UTC with milliseconds; `scores` keeps the profile's plugin order. The
// decoder is for clients (trimaranctl explain): it is as strict as the encoder is
// exact about names and types, and ignores fields it does not know, so that the
// server may add fields.
//
// Thread-safety: pure functions.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/decisions/decision.h"

namespace trimaran::sched::decisions {

// What a /debug/decisions answer holds.
struct DecisionList {
  size_t capacity = 0;
  std::vector<Decision> decisions;  // newest first
};

std::string EncodeDecisions(size_t capacity,
                            const std::vector<std::shared_ptr<const Decision>>& decisions);

// InvalidArgument naming the JSON path of the first bad value.
absl::StatusOr<DecisionList> DecodeDecisions(absl::string_view json);

// "2026-11-26T21:00:00.123Z".
std::string FormatDecisionTime(absl::Time t);

}  // namespace trimaran::sched::decisions
