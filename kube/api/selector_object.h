#pragma once
// SelectorObject: the part of a Namespace, Service, ReplicationController, ReplicaSet,
// StatefulSet or PodDisruptionBudget that the scheduler reads: metadata (names, labels,
// owner references) and the pod selector in spec.selector (and a budget's status). InterPodAffinity
// reads namespaces' labels (namespaceSelector); PodTopologySpread's default constraints read the
// selectors of the Services and controllers that select a pod (upstream helper.DefaultSelector).
// DefaultPreemption reads PodDisruptionBudgets (policy/v1 from 1.21, policy/v1beta1 on a
// 1.20 apiserver: two resources, the daemon watches the one the server serves).
// One type for these resources keeps one informer, one codec and one fake for all.
//
// spec.selector comes in two shapes, both decoded into `selector`:
//   Service, ReplicationController   a map of labels        -> match_labels
//   ReplicaSet, StatefulSet, PDB     a metav1.LabelSelector -> as is
// Namespaces have no selector. A missing (or null) spec.selector is std::nullopt (a
// Service without a selector selects no pod); an empty one is an empty selector.
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/api/label_selector.h"
#include "kube/api/list.h"
#include "kube/api/object_meta.h"

namespace trimaran::kube {

enum class SelectorResource {
  kNamespaces,                   // v1 Namespace
  kServices,                     // v1 Service
  kReplicationControllers,       // v1 ReplicationController
  kReplicaSets,                  // apps/v1 ReplicaSet
  kStatefulSets,                 // apps/v1 StatefulSet
  kPodDisruptionBudgets,         // policy/v1 PodDisruptionBudget (1.21+)
  kPodDisruptionBudgetsV1beta1,  // policy/v1beta1 PodDisruptionBudget (1.20)
};

inline constexpr SelectorResource kAllSelectorResources[] = {
    SelectorResource::kNamespaces,
    SelectorResource::kServices,
    SelectorResource::kReplicationControllers,
    SelectorResource::kReplicaSets,
    SelectorResource::kStatefulSets,
    SelectorResource::kPodDisruptionBudgets,
    SelectorResource::kPodDisruptionBudgetsV1beta1};

// True for the two PodDisruptionBudget versions.
constexpr bool IsDisruptionBudget(SelectorResource resource) {
  return resource == SelectorResource::kPodDisruptionBudgets ||
         resource == SelectorResource::kPodDisruptionBudgetsV1beta1;
}

// The resource's plural name ("services"), as in URLs, RBAC rules and metric labels.
std::string_view PluralName(SelectorResource resource);
// The object kind ("Service") and its list kind ("ServiceList").
std::string_view KindName(SelectorResource resource);
std::string_view ListKindName(SelectorResource resource);
// "v1", "apps/v1", "policy/v1" or "policy/v1beta1".
std::string_view ApiVersionOf(SelectorResource resource);
// The collection path across all namespaces: "/api/v1/services", "/apis/apps/v1/replicasets".
std::string_view CollectionPath(SelectorResource resource);
// True when `resource` is a namespaced resource (everything but namespaces).
constexpr bool IsNamespaced(SelectorResource resource) {
  return resource != SelectorResource::kNamespaces;
}

struct SelectorObject {
  ObjectMeta metadata;
  // spec.selector, see the file comment.
  std::optional<LabelSelector> selector;
  // PodDisruptionBudgets only: status.disruptionsAllowed and the pod names of
  // status.disruptedPods.
  int32_t disruptions_allowed = 0;
  std::vector<std::string> disrupted_pods;

  bool operator==(const SelectorObject&) const = default;
};

using SelectorObjectList = List<SelectorObject>;

}  // namespace trimaran::kube
