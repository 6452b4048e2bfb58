#pragma once
// Node-affinity matching: parsed forms of the NodeSelector language (kube/api/
// node_selector.h) that answer "does this node match?" without allocating. Upstream's
// component-helpers nodeaffinity package (NodeSelector, PreferredSchedulingTerms,
// RequiredNodeAffinity), shared by NodeAffinity and (later) PodTopologySpread's
// nodeAffinityPolicy.
//
// Semantics (spec kube-scheduler.md §3.3):
//   - A NodeSelector is the OR of its terms; an empty term list matches nothing.
//   - A term is the AND of its matchExpressions (over node labels) and matchFields
//     (over node fields); a term with neither matches nothing.
//   - In: label present and value in values. NotIn: label absent or value not in
//     values. Exists / DoesNotExist: label present / absent. Gt / Lt: label present, its
//     value parses as a base-10 int64 and is > / < the single value.
//   - matchFields: key `metadata.name` only, operator In or NotIn, exactly one value
//     (node name equality / inequality).
//   - A term that fails ValidateNodeSelectorTerm (wrong number of values, a Gt/Lt value
//     that is not an integer, an unsupported field) is dropped: it matches nothing,
//     while the other terms still count. Upstream ignores such parse errors the same
//     way for required terms.
// Difference from upstream: label key and value *syntax* (qualified names, 63
// characters) is not re-checked here; the apiserver validated the pod, and plugin args
// are validated by their own Validate. Upstream's PreScore fails the cycle when a
// preferred term does not parse; here the bad term is dropped like a required one.
//
// Thread-safety: immutable after construction; Matches/Score are safe to call
// concurrently. Ownership: every matcher copies what it needs from its input, so it
// may outlive the pod or args it was built from.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "kube/api/node.h"
#include "kube/api/node_selector.h"
#include "kube/api/pod.h"

namespace trimaran::sched::plugins::helper {

// The only node field matchFields may name.
inline constexpr absl::string_view kNodeFieldName = "metadata.name";

// Appends one "path.field: message" entry to `errors` per invalid requirement of
// `term` (paths like "<path>.matchExpressions[0].values"). Nothing is appended for a
// valid term. Used by the matchers below and by plugin-args validation.
void ValidateNodeSelectorTerm(const kube::NodeSelectorTerm& term, absl::string_view path,
                              std::vector<std::string>& errors);

// One parsed NodeSelectorTerm.
class NodeSelectorTermMatcher {
 public:
  // nullopt when `term` is empty or invalid (it can match no node).
  static std::optional<NodeSelectorTermMatcher> Parse(const kube::NodeSelectorTerm& term);

  bool Matches(const kube::Node& node) const;

  // The names `term` pins with `metadata.name In [...]` requirements (intersected when
  // there are several); nullopt when it has none. Used by NodeAffinity's PreFilter.
  static std::optional<std::vector<std::string>> PinnedNodeNames(
      const kube::NodeSelectorTerm& term);

 private:
  struct Requirement {
    std::string key;
    kube::NodeSelectorOperator op = kube::NodeSelectorOperator::kIn;
    std::vector<std::string> values;
    int64_t bound = 0;  // Gt / Lt
  };
  static bool MatchValue(const Requirement& r, bool present, absl::string_view value);

  std::vector<Requirement> labels_;
  std::vector<Requirement> fields_;
};

// A parsed NodeSelector: the OR of its valid terms.
class NodeSelectorMatcher {
 public:
  explicit NodeSelectorMatcher(const kube::NodeSelector& selector);
  bool Matches(const kube::Node& node) const;

 private:
  std::vector<NodeSelectorTermMatcher> terms_;
};

// Parsed preferredDuringSchedulingIgnoredDuringExecution terms. Terms with weight 0, an
// empty preference or an invalid preference are dropped.
class PreferredSchedulingTerms {
 public:
  PreferredSchedulingTerms() = default;
  explicit PreferredSchedulingTerms(std::span<const kube::PreferredSchedulingTerm> terms);

  bool empty() const { return terms_.empty(); }
  // Σ weight of the terms that match `node`.
  int64_t Score(const kube::Node& node) const;

 private:
  std::vector<std::pair<int64_t, NodeSelectorTermMatcher>> terms_;
};

// What a pod requires of its node: spec.nodeSelector (every key/value equals the
// node's label) AND spec.affinity.nodeAffinity.requiredDuring...Execution (when set).
class RequiredNodeAffinity {
 public:
  explicit RequiredNodeAffinity(const kube::Pod& pod);
  bool Matches(const kube::Node& node) const;

 private:
  std::vector<std::pair<std::string, std::string>> node_selector_;
  std::optional<NodeSelectorMatcher> required_;
};

}  // namespace trimaran::sched::plugins::helper
