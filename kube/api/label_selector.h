#pragma once
// LabelSelector (metav1.LabelSelector): matchLabels AND matchExpressions over an
// object's labels, as used by pod (anti-)affinity terms and topology spread constraints.
// This file defines the data only; matching belongs to the scheduler's helpers.
//
// Semantics to remember: an empty selector (no labels, no expressions) matches
// everything, while a *missing* selector (std::nullopt where the field is optional)
// matches nothing.
//
// Thread-safety: plain values; externally synchronized.

#include <string>
#include <string_view>
#include <vector>

#include "kube/api/object_meta.h"
#include "kube/api/unrecognized.h"

namespace trimaran::kube {

enum class LabelSelectorOperator {
  kIn,            // label present and its value is in `values`
  kNotIn,         // label absent, or its value is not in `values`
  kExists,        // label present (values must be empty)
  kDoesNotExist,  // label absent (values must be empty)
  kUnrecognized,  // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(LabelSelectorOperator op) {
  switch (op) {
    case LabelSelectorOperator::kIn:
      return "In";
    case LabelSelectorOperator::kNotIn:
      return "NotIn";
    case LabelSelectorOperator::kExists:
      return "Exists";
    case LabelSelectorOperator::kDoesNotExist:
      return "DoesNotExist";
    case LabelSelectorOperator::kUnrecognized:
      return kUnrecognizedEnumValue;
  }
  return "";
}

struct LabelSelectorRequirement {
  std::string key;
  LabelSelectorOperator op = LabelSelectorOperator::kIn;  // JSON "operator"
  std::vector<std::string> values;

  bool operator==(const LabelSelectorRequirement&) const = default;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  bool operator==(const LabelSelector&) const = default;
};

}  // namespace trimaran::kube
