#pragma once
// ConditionStatus (core/v1): the tri-state status of pod and node conditions.
//
// Thread-safety: an enum and pure functions.

#include <string_view>

#include "kube/api/unrecognized.h"

namespace trimaran::kube {

enum class ConditionStatus {
  kTrue,
  kFalse,
  kUnknown,       // the controller cannot tell; treat as neither true nor false
  kUnrecognized,  // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(ConditionStatus s) {
  switch (s) {
    case ConditionStatus::kTrue:
      return "True";
    case ConditionStatus::kFalse:
      return "False";
    case ConditionStatus::kUnknown:
      return "Unknown";
    case ConditionStatus::kUnrecognized:
      return kUnrecognizedEnumValue;
  }
  return "";
}

}  // namespace trimaran::kube
