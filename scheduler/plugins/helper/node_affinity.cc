#include "scheduler/plugins/helper/node_affinity.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace trimaran::sched::plugins::helper {
namespace {

using kube::NodeSelectorOperator;

// Strict base-10 int64 (optional sign, digits only), like Go's strconv.ParseInt:
// absl::SimpleAtoi would also accept surrounding whitespace.
bool ParseInt64(absl::string_view text, int64_t& out) {
  if (text.empty()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '+' || c == '-') && i == 0) continue;
    if (c < '0' || c > '9') return false;
  }
  return absl::SimpleAtoi(text, &out);
}

void ValidateLabelRequirement(const kube::NodeSelectorRequirement& r, absl::string_view path,
                              std::vector<std::string>& errors) {
  if (r.key.empty()) errors.push_back(absl::StrCat(path, ".key: Required value"));
  switch (r.op) {
    case NodeSelectorOperator::kIn:
    case NodeSelectorOperator::kNotIn:
      if (r.values.empty()) {
        errors.push_back(absl::StrCat(
            path, ".values: Required value: must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case NodeSelectorOperator::kExists:
    case NodeSelectorOperator::kDoesNotExist:
      if (!r.values.empty()) {
        errors.push_back(
            absl::StrCat(path,
                         ".values: Forbidden: may not be specified when `operator` is 'Exists' "
                         "or 'DoesNotExist'"));
      }
      break;
    case NodeSelectorOperator::kGt:
    case NodeSelectorOperator::kLt: {
      int64_t unused = 0;
      if (r.values.size() != 1) {
        errors.push_back(absl::StrCat(
            path,
            ".values: Required value: must be specified single value when `operator` is "
            "'Lt' or 'Gt'"));
      } else if (!ParseInt64(r.values[0], unused)) {
        errors.push_back(absl::StrCat(path, ".values[0]: Invalid value: \"", r.values[0],
                                      "\": must be an integer"));
      }
      break;
    }
    case NodeSelectorOperator::kUnrecognized:
      // As upstream's NodeSelectorRequirementsAsSelector: the term is invalid and so
      // matches no node.
      errors.push_back(
          absl::StrCat(path, ".operator: Invalid value: not a valid selector operator"));
      break;
  }
}

void ValidateFieldRequirement(const kube::NodeSelectorRequirement& r, absl::string_view path,
                              std::vector<std::string>& errors) {
  if (r.key != kNodeFieldName) {
    errors.push_back(absl::StrCat(path, ".key: Invalid value: \"", r.key,
                                  "\": not a valid field selector key (only \"", kNodeFieldName,
                                  "\" is supported)"));
  }
  if (r.op != NodeSelectorOperator::kIn && r.op != NodeSelectorOperator::kNotIn) {
    const std::string_view op = kube::ToString(r.op);
    errors.push_back(absl::StrCat(path, ".operator: Invalid value: \"",
                                  absl::string_view(op.data(), op.size()),
                                  "\": not a valid selector operator (In or NotIn)"));
  }
  if (r.values.size() != 1) {
    errors.push_back(absl::StrCat(path, ".values: Required value: must have one element"));
  }
}

}  // namespace

void ValidateNodeSelectorTerm(const kube::NodeSelectorTerm& term, absl::string_view path,
                              std::vector<std::string>& errors) {
  for (size_t i = 0; i < term.match_expressions.size(); ++i) {
    ValidateLabelRequirement(term.match_expressions[i],
                             absl::StrCat(path, ".matchExpressions[", i, "]"), errors);
  }
  for (size_t i = 0; i < term.match_fields.size(); ++i) {
    ValidateFieldRequirement(term.match_fields[i], absl::StrCat(path, ".matchFields[", i, "]"),
                             errors);
  }
}

std::optional<NodeSelectorTermMatcher> NodeSelectorTermMatcher::Parse(
    const kube::NodeSelectorTerm& term) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return std::nullopt;
  std::vector<std::string> errors;
  ValidateNodeSelectorTerm(term, "", errors);
  if (!errors.empty()) return std::nullopt;
  NodeSelectorTermMatcher m;
  auto convert = [](const kube::NodeSelectorRequirement& r) {
    Requirement out{r.key, r.op, r.values, 0};
    if (r.op == NodeSelectorOperator::kGt || r.op == NodeSelectorOperator::kLt) {
      ParseInt64(r.values[0], out.bound);  // validated above
    }
    return out;
  };
  m.labels_.reserve(term.match_expressions.size());
  for (const auto& r : term.match_expressions) m.labels_.push_back(convert(r));
  m.fields_.reserve(term.match_fields.size());
  for (const auto& r : term.match_fields) m.fields_.push_back(convert(r));
  return m;
}

bool NodeSelectorTermMatcher::MatchValue(const Requirement& r, bool present,
                                         absl::string_view value) {
  auto in_values = [&] {
    return std::find(r.values.begin(), r.values.end(), value) != r.values.end();
  };
  switch (r.op) {
    case NodeSelectorOperator::kIn:
      return present && in_values();
    case NodeSelectorOperator::kNotIn:
      return !present || !in_values();
    case NodeSelectorOperator::kExists:
      return present;
    case NodeSelectorOperator::kDoesNotExist:
      return !present;
    case NodeSelectorOperator::kGt:
    case NodeSelectorOperator::kLt: {
      int64_t v = 0;
      if (!present || !ParseInt64(value, v)) return false;
      return r.op == NodeSelectorOperator::kGt ? v > r.bound : v < r.bound;
    }
    case NodeSelectorOperator::kUnrecognized:
      return false;
  }
  return false;
}

bool NodeSelectorTermMatcher::Matches(const kube::Node& node) const {
  const kube::Labels& labels = node.metadata.labels;
  for (const Requirement& r : labels_) {
    const auto it = labels.find(r.key);
    const bool present = it != labels.end();
    if (!MatchValue(r, present, present ? absl::string_view(it->second) : absl::string_view())) {
      return false;
    }
  }
  // Fields: only metadata.name (validated), always present.
  for (const Requirement& r : fields_) {
    if (!MatchValue(r, /*present=*/true, node.metadata.name)) return false;
  }
  return true;
}

std::optional<std::vector<std::string>> NodeSelectorTermMatcher::PinnedNodeNames(
    const kube::NodeSelectorTerm& term) {
  std::optional<std::vector<std::string>> names;
  for (const kube::NodeSelectorRequirement& r : term.match_fields) {
    if (r.key != kNodeFieldName || r.op != NodeSelectorOperator::kIn) continue;
    std::vector<std::string> values = r.values;
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (!names.has_value()) {
      names = std::move(values);
    } else {
      std::vector<std::string> both;
      std::set_intersection(names->begin(), names->end(), values.begin(), values.end(),
                            std::back_inserter(both));
      names = std::move(both);
    }
  }
  return names;
}

NodeSelectorMatcher::NodeSelectorMatcher(const kube::NodeSelector& selector) {
  terms_.reserve(selector.node_selector_terms.size());
  for (const kube::NodeSelectorTerm& term : selector.node_selector_terms) {
    if (auto parsed = NodeSelectorTermMatcher::Parse(term)) terms_.push_back(std::move(*parsed));
  }
}

bool NodeSelectorMatcher::Matches(const kube::Node& node) const {
  for (const NodeSelectorTermMatcher& term : terms_) {
    if (term.Matches(node)) return true;
  }
  return false;
}

PreferredSchedulingTerms::PreferredSchedulingTerms(
    std::span<const kube::PreferredSchedulingTerm> terms) {
  for (const kube::PreferredSchedulingTerm& term : terms) {
    if (term.weight == 0) continue;
    if (auto parsed = NodeSelectorTermMatcher::Parse(term.preference)) {
      terms_.emplace_back(term.weight, std::move(*parsed));
    }
  }
}

int64_t PreferredSchedulingTerms::Score(const kube::Node& node) const {
  int64_t score = 0;
  for (const auto& [weight, term] : terms_) {
    if (term.Matches(node)) score += weight;
  }
  return score;
}

RequiredNodeAffinity::RequiredNodeAffinity(const kube::Pod& pod) {
  node_selector_.reserve(pod.spec.node_selector.size());
  for (const auto& [key, value] : pod.spec.node_selector) node_selector_.emplace_back(key, value);
  const auto& affinity = pod.spec.affinity;
  if (affinity.has_value() && affinity->node_affinity.has_value() &&
      affinity->node_affinity->required.has_value()) {
    required_.emplace(*affinity->node_affinity->required);
  }
}

bool RequiredNodeAffinity::Matches(const kube::Node& node) const {
  const kube::Labels& labels = node.metadata.labels;
  for (const auto& [key, value] : node_selector_) {
    const auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return !required_.has_value() || required_->Matches(node);
}

}  // namespace trimaran::sched::plugins::helper
