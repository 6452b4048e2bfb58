#pragma once
// Parsed pod (anti-)affinity terms (upstream framework.AffinityTerm, spec
// kube-scheduler-constraints.md §1.1):
//
//   - `selector`: the term's labelSelector (missing -> matches nothing, {} -> everything);
//   - `namespaces`: the term's list; when the list is empty AND namespaceSelector is
//     missing, the pod's own namespace;
//   - `namespace_selector`: missing -> matches nothing; {} -> every namespace.
//
// Term T matches pod P, given the labels of P's namespace, iff
//   (P.ns in T.namespaces OR T.namespace_selector matches them) AND T.selector matches
//   P's labels.
//
// matchLabelKeys / mismatchLabelKeys: `key = <the term's pod's value>` /
// `key != <value>` ANDed onto the selector for each key the pod has (kube-apiserver
// 1.29+ also merges them into labelSelector at creation; the same requirement twice
// selects the same pods).
//
// Thread-safety: immutable values after parsing.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/api/affinity.h"
#include "kube/api/pod.h"
#include "scheduler/plugins/helper/label_selector.h"

namespace trimaran::sched::plugins {

struct AffinityTerm {
  std::set<std::string, std::less<>> namespaces;
  helper::Selector namespace_selector;  // Nothing() unless the term has one
  helper::Selector selector;
  std::string topology_key;

  // `ns_labels`: the labels of `pod`'s namespace (nullptr: none, matched as an empty set).
  bool Matches(const kube::Pod& pod, const kube::Labels* ns_labels) const;
};

struct WeightedAffinityTerm {
  AffinityTerm term;
  int32_t weight = 0;
};

// Parses the terms of `pod` (whose namespace defaults `namespaces`). InvalidArgument
// for a bad selector.
absl::StatusOr<std::vector<AffinityTerm>> ParseTerms(
    const kube::Pod& pod, const std::vector<kube::PodAffinityTerm>& terms);
absl::StatusOr<std::vector<WeightedAffinityTerm>> ParseWeightedTerms(
    const kube::Pod& pod, const std::vector<kube::WeightedPodAffinityTerm>& terms);

// The four lists of a pod.
struct PodAffinityTerms {
  std::vector<AffinityTerm> required_affinity;
  std::vector<AffinityTerm> required_anti_affinity;
  std::vector<WeightedAffinityTerm> preferred_affinity;
  std::vector<WeightedAffinityTerm> preferred_anti_affinity;
};

// The incoming pod's terms; the first parse error fails (PreFilter then rejects the pod
// as UnschedulableAndUnresolvable "parsing pod: ...").
absl::StatusOr<PodAffinityTerms> ParsePodAffinityTerms(const kube::Pod& pod);
// An existing pod's terms: a list that does not parse is empty (upstream ignores the
// error for pods already placed).
PodAffinityTerms ParseExistingPodAffinityTerms(const kube::Pod& pod);

// True when `pod` matches every term (namespaces already resolved to names, so no
// namespace labels are needed).
bool MatchesAllTerms(const std::vector<AffinityTerm>& terms, const kube::Pod& pod);

}  // namespace trimaran::sched::plugins
