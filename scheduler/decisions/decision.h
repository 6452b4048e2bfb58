#pragma once
// Decision: what the scheduler decided for one pod in one scheduling attempt, as the
// decision ring (decision_ring.h) keeps it and /debug/decisions serves it
// (decision_json.h; the contract is in docs/operations.md, "Live decisions").
//
// Only what "why did my pod land there?" needs, computed from what the cycle already
// had (nothing is rescored): the best nodes by weighted total with each Score plugin's
// weighted score, the Filter counts, the load-aware fallbacks the cycle used and the
// outcome. Its size is bounded: at most kMaxTopNodes nodes, kMaxFallbacks fallback
// lines and kMaxMessageBytes of message (longer ones are cut and marked).
//
// Thread-safety: a plain value; the ring shares finished decisions as
// shared_ptr<const Decision>, immutable once recorded.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace trimaran::sched::decisions {

inline constexpr size_t kMaxTopNodes = 5;
inline constexpr size_t kMaxFallbacks = 8;
inline constexpr size_t kMaxMessageBytes = 1024;

enum class DecisionResult : uint8_t {
  kBound,          // the binding cycle bound the pod to `node`
  kUnschedulable,  // no node fits (or a Reserve/Permit plugin rejected it)
  kError,          // the cycle or the binding failed
  kNominated,      // no node fits; preemption nominated `node` (victims are evicted)
};

// "Bound", "Unschedulable", "Error", "Nominated".
absl::string_view DecisionResultName(DecisionResult result);
// The inverse; false for an unknown name.
bool ParseDecisionResult(absl::string_view name, DecisionResult* out);

// One of the best nodes: its weighted total and, per Score plugin that ran (in the
// profile's order), weight x normalized score.
struct TopNode {
  std::string node;
  int64_t total = 0;
  std::vector<std::pair<std::string, int64_t>> scores;

  friend bool operator==(const TopNode&, const TopNode&) = default;
};

struct Decision {
  absl::Time time = absl::UnixEpoch();  // when the outcome was known
  std::string pod;                      // "namespace/name"
  std::string uid;
  std::string profile;  // the schedulerName whose profile ran
  DecisionResult result = DecisionResult::kError;
  std::string node;  // bound or nominated node; "" otherwise
  int evaluated_nodes = 0;
  int feasible_nodes = 0;
  std::vector<std::string> fallbacks;  // e.g. "TargetLoadPacking: metrics stale on 3 node(s), ..."
  std::string message;                 // the unschedulable / error message; "" when Bound
  std::vector<TopNode> top;            // chosen node first, then by total; at most 5

  friend bool operator==(const Decision&, const Decision&) = default;
};

// Cuts `message` to kMaxMessageBytes (on a UTF-8 boundary), ending it with " [...]".
std::string BoundedMessage(absl::string_view message);

}  // namespace trimaran::sched::decisions
