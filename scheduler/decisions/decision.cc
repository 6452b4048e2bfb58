#include "scheduler/decisions/decision.h"

#include "absl/strings/str_cat.h"

namespace trimaran::sched::decisions {

absl::string_view DecisionResultName(DecisionResult result) {
  switch (result) {
    case DecisionResult::kBound:
      return "Bound";
    case DecisionResult::kUnschedulable:
      return "Unschedulable";
    case DecisionResult::kError:
      return "Error";
    case DecisionResult::kNominated:
      return "Nominated";
  }
  return "Error";
}

bool ParseDecisionResult(absl::string_view name, DecisionResult* out) {
  for (DecisionResult r : {DecisionResult::kBound, DecisionResult::kUnschedulable,
                           DecisionResult::kError, DecisionResult::kNominated}) {
    if (DecisionResultName(r) == name) {
      *out = r;
      return true;
    }
  }
  return false;
}

std::string BoundedMessage(absl::string_view message) {
  if (message.size() <= kMaxMessageBytes) return std::string(message);
  constexpr absl::string_view kMark = " [...]";
  size_t cut = kMaxMessageBytes - kMark.size();
  // Not inside a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) --cut;
  return absl::StrCat(message.substr(0, cut), kMark);
}

}  // namespace trimaran::sched::decisions
