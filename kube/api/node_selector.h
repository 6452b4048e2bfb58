#pragma once
// NodeSelector (core/v1): the node-affinity selector language. A NodeSelector is an OR
// of NodeSelectorTerms; a term is an AND of its matchExpressions (over node labels) and
// matchFields (over node fields; only `metadata.name` is supported upstream).
// Data only; matching lives with the NodeAffinity plugin.
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kube/api/unrecognized.h"

namespace trimaran::kube {

enum class NodeSelectorOperator {
  kIn,            // label value in `values`
  kNotIn,         // label absent or value not in `values`
  kExists,        // label present
  kDoesNotExist,  // label absent
  kGt,            // label value, parsed as an integer, > the single value in `values`
  kLt,            // label value, parsed as an integer, < the single value in `values`
  kUnrecognized,  // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(NodeSelectorOperator op) {
  switch (op) {
    case NodeSelectorOperator::kIn:
      return "In";
    case NodeSelectorOperator::kNotIn:
      return "NotIn";
    case NodeSelectorOperator::kExists:
      return "Exists";
    case NodeSelectorOperator::kDoesNotExist:
      return "DoesNotExist";
    case NodeSelectorOperator::kGt:
      return "Gt";
    case NodeSelectorOperator::kLt:
      return "Lt";
    case NodeSelectorOperator::kUnrecognized:
      return kUnrecognizedEnumValue;
  }
  return "";
}

struct NodeSelectorRequirement {
  std::string key;
  NodeSelectorOperator op = NodeSelectorOperator::kIn;  // JSON "operator"
  std::vector<std::string> values;

  bool operator==(const NodeSelectorRequirement&) const = default;
};

struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> match_expressions;
  std::vector<NodeSelectorRequirement> match_fields;

  bool operator==(const NodeSelectorTerm&) const = default;
};

struct NodeSelector {
  std::vector<NodeSelectorTerm> node_selector_terms;

  bool operator==(const NodeSelector&) const = default;
};

// A weighted term of preferredDuringSchedulingIgnoredDuringExecution.
struct PreferredSchedulingTerm {
  int32_t weight = 0;  // 1..100
  NodeSelectorTerm preference;

  bool operator==(const PreferredSchedulingTerm&) const = default;
};

}  // namespace trimaran::kube
