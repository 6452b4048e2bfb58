#include "scheduler/plugins/inter_pod_affinity/affinity_terms.h"

#include <utility>

#include "common/status_macros.h"

namespace trimaran::sched::plugins {

bool AffinityTerm::Matches(const kube::Pod& pod, const kube::Labels* ns_labels) const {
  static const kube::Labels* const kNoLabels = new kube::Labels();
  const bool ns_match = namespaces.contains(pod.metadata.namespace_name) ||
                        namespace_selector.Matches(ns_labels != nullptr ? *ns_labels : *kNoLabels);
  return ns_match && selector.Matches(pod.metadata.labels);
}

namespace {

absl::StatusOr<AffinityTerm> ParseTerm(const kube::Pod& pod, const kube::PodAffinityTerm& t) {
  AffinityTerm term;
  TRIMARAN_ASSIGN_OR_RETURN(term.selector, helper::Selector::FromOptional(t.label_selector));
  // matchLabelKeys / mismatchLabelKeys: the term's pod's value of each key, ANDed as
  // `key = value` / `key != value` (keys the pod lacks are ignored). kube-apiserver 1.29+
  // already merged them into labelSelector at creation; ANDing the same requirement again
  // changes nothing, and pods from servers that did not merge them are still right.
  for (const std::string& key : t.match_label_keys) {
    if (const auto it = pod.metadata.labels.find(key); it != pod.metadata.labels.end()) {
      term.selector = term.selector.WithEquals(key, it->second);
    }
  }
  for (const std::string& key : t.mismatch_label_keys) {
    if (const auto it = pod.metadata.labels.find(key); it != pod.metadata.labels.end()) {
      term.selector = term.selector.WithNotEquals(key, it->second);
    }
  }
  TRIMARAN_ASSIGN_OR_RETURN(term.namespace_selector,
                            helper::Selector::FromOptional(t.namespace_selector));
  term.namespaces.insert(t.namespaces.begin(), t.namespaces.end());
  if (t.namespaces.empty() && !t.namespace_selector.has_value()) {
    term.namespaces.insert(pod.metadata.namespace_name);
  }
  term.topology_key = t.topology_key;
  return term;
}

const kube::PodAffinity* Of(const std::optional<kube::PodAffinity>& a) {
  return a.has_value() ? &*a : nullptr;
}

}  // namespace

absl::StatusOr<std::vector<AffinityTerm>> ParseTerms(
    const kube::Pod& pod, const std::vector<kube::PodAffinityTerm>& terms) {
  std::vector<AffinityTerm> out;
  out.reserve(terms.size());
  for (const kube::PodAffinityTerm& t : terms) {
    TRIMARAN_ASSIGN_OR_RETURN(AffinityTerm term, ParseTerm(pod, t));
    out.push_back(std::move(term));
  }
  return out;
}

absl::StatusOr<std::vector<WeightedAffinityTerm>> ParseWeightedTerms(
    const kube::Pod& pod, const std::vector<kube::WeightedPodAffinityTerm>& terms) {
  std::vector<WeightedAffinityTerm> out;
  out.reserve(terms.size());
  for (const kube::WeightedPodAffinityTerm& t : terms) {
    TRIMARAN_ASSIGN_OR_RETURN(AffinityTerm term, ParseTerm(pod, t.pod_affinity_term));
    out.push_back({std::move(term), t.weight});
  }
  return out;
}

absl::StatusOr<PodAffinityTerms> ParsePodAffinityTerms(const kube::Pod& pod) {
  PodAffinityTerms out;
  if (!pod.spec.affinity.has_value()) return out;
  if (const kube::PodAffinity* a = Of(pod.spec.affinity->pod_affinity)) {
    TRIMARAN_ASSIGN_OR_RETURN(out.required_affinity, ParseTerms(pod, a->required));
    TRIMARAN_ASSIGN_OR_RETURN(out.preferred_affinity, ParseWeightedTerms(pod, a->preferred));
  }
  if (const kube::PodAffinity* a = Of(pod.spec.affinity->pod_anti_affinity)) {
    TRIMARAN_ASSIGN_OR_RETURN(out.required_anti_affinity, ParseTerms(pod, a->required));
    TRIMARAN_ASSIGN_OR_RETURN(out.preferred_anti_affinity, ParseWeightedTerms(pod, a->preferred));
  }
  return out;
}

PodAffinityTerms ParseExistingPodAffinityTerms(const kube::Pod& pod) {
  PodAffinityTerms out;
  if (!pod.spec.affinity.has_value()) return out;
  if (const kube::PodAffinity* a = Of(pod.spec.affinity->pod_affinity)) {
    out.required_affinity = ParseTerms(pod, a->required).value_or(std::vector<AffinityTerm>{});
    out.preferred_affinity =
        ParseWeightedTerms(pod, a->preferred).value_or(std::vector<WeightedAffinityTerm>{});
  }
  if (const kube::PodAffinity* a = Of(pod.spec.affinity->pod_anti_affinity)) {
    out.required_anti_affinity = ParseTerms(pod, a->required).value_or(std::vector<AffinityTerm>{});
    out.preferred_anti_affinity =
        ParseWeightedTerms(pod, a->preferred).value_or(std::vector<WeightedAffinityTerm>{});
  }
  return out;
}

bool MatchesAllTerms(const std::vector<AffinityTerm>& terms, const kube::Pod& pod) {
  if (terms.empty()) return false;
  for (const AffinityTerm& t : terms) {
    if (!t.Matches(pod, nullptr)) return false;
  }
  return true;
}

}  // namespace trimaran::sched::plugins
