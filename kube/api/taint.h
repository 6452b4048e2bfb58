#pragma once
// Taint (on a node) and Toleration (on a pod), core/v1. A pod may only be placed on a
// node whose NoSchedule/NoExecute taints it all tolerates; PreferNoSchedule taints only
// lower the score. Data only; matching lives with the TaintToleration plugin.
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "kube/api/unrecognized.h"

namespace trimaran::kube {

enum class TaintEffect {
  // Only valid on a Toleration: tolerates every effect (JSON "" or missing).
  kAll,
  // Filter rejects the node for pods that don't tolerate it.
  kNoSchedule,
  // Scoring prefers other nodes; never rejects.
  kPreferNoSchedule,
  // As NoSchedule, and the node lifecycle controller evicts running pods.
  kNoExecute,
  kUnrecognized,  // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(TaintEffect effect) {
  switch (effect) {
    case TaintEffect::kAll:
      return "";
    case TaintEffect::kNoSchedule:
      return "NoSchedule";
    case TaintEffect::kPreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::kNoExecute:
      return "NoExecute";
    case TaintEffect::kUnrecognized:
      return kUnrecognizedEnumValue;
  }
  return "";
}

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;
  // Only set for NoExecute taints added by the node controller.
  std::optional<absl::Time> time_added;

  bool operator==(const Taint&) const = default;
};

enum class TolerationOperator {
  kEqual,         // key and value must match (the default when JSON omits "operator")
  kExists,        // key must match (an empty key with Exists tolerates every taint)
  kUnrecognized,  // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(TolerationOperator op) {
  if (op == TolerationOperator::kUnrecognized) return kUnrecognizedEnumValue;
  return op == TolerationOperator::kExists ? "Exists" : "Equal";
}

struct Toleration {
  std::string key;
  TolerationOperator op = TolerationOperator::kEqual;  // JSON "operator"
  std::string value;
  TaintEffect effect = TaintEffect::kAll;
  // For NoExecute: how long the pod stays bound after the taint appears.
  std::optional<int64_t> toleration_seconds;

  bool operator==(const Toleration&) const = default;
};

}  // namespace trimaran::kube
