#pragma once
// Affinity (core/v1): node affinity and inter-pod (anti-)affinity of a pod spec.
// "required" terms are hard constraints (Filter); "preferred" terms are weighted
// preferences (Score). Data only.
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kube/api/label_selector.h"
#include "kube/api/node_selector.h"

namespace trimaran::kube {

struct NodeAffinity {
  // requiredDuringSchedulingIgnoredDuringExecution
  std::optional<NodeSelector> required;
  // preferredDuringSchedulingIgnoredDuringExecution
  std::vector<PreferredSchedulingTerm> preferred;

  bool operator==(const NodeAffinity&) const = default;
};

// The set of pods (selected by label_selector in `namespaces` / namespace_selector)
// that must or must not be co-located within the topology domain named by
// topology_key. With neither `namespaces` nor namespace_selector, the term applies to
// the pod's own namespace; an empty namespace_selector means all namespaces.
struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;
  std::vector<std::string> namespaces;
  std::string topology_key;
  std::optional<LabelSelector> namespace_selector;
  std::vector<std::string> match_label_keys;
  std::vector<std::string> mismatch_label_keys;

  bool operator==(const PodAffinityTerm&) const = default;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;  // 1..100
  PodAffinityTerm pod_affinity_term;

  bool operator==(const WeightedPodAffinityTerm&) const = default;
};

// Used for both podAffinity and podAntiAffinity (same shape).
struct PodAffinity {
  std::vector<PodAffinityTerm> required;           // requiredDuring...IgnoredDuringExecution
  std::vector<WeightedPodAffinityTerm> preferred;  // preferredDuring...IgnoredDuringExecution

  bool operator==(const PodAffinity&) const = default;
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAffinity> pod_anti_affinity;

  bool operator==(const Affinity&) const = default;
};

}  // namespace trimaran::kube
