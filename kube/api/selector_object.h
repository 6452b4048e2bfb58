#pragma once
// SelectorObject: the part of a Namespace, Service, ReplicationController, ReplicaSet or
// StatefulSet that the scheduler reads: metadata (names, labels, owner references) and
// the pod selector in spec.selector. InterPodAffinity reads namespaces' labels
// (namespaceSelector); PodTopologySpread's default constraints read the selectors of
// the Services and controllers that select a pod (upstream helper.DefaultSelector).
// One type for the five resources keeps one informer, one codec and one fake for all.
//
// spec.selector comes in two shapes, both decoded into `selector`:
//   Service, ReplicationController   a map of labels        -> match_labels
//   ReplicaSet, StatefulSet          a metav1.LabelSelector -> as is
// Namespaces have no selector. A missing (or null) spec.selector is std::nullopt (a
// Service without a selector selects no pod); an empty one is an empty selector.
//
// Thread-safety: plain values; externally synchronized.

#include <optional>
#include <string_view>

#include "kube/api/label_selector.h"
#include "kube/api/list.h"
#include "kube/api/object_meta.h"

namespace trimaran::kube {

enum class SelectorResource {
  kNamespaces,              // v1 Namespace
  kServices,                // v1 Service
  kReplicationControllers,  // v1 ReplicationController
  kReplicaSets,             // apps/v1 ReplicaSet
  kStatefulSets,            // apps/v1 StatefulSet
};

inline constexpr SelectorResource kAllSelectorResources[] = {
    SelectorResource::kNamespaces, SelectorResource::kServices,
    SelectorResource::kReplicationControllers, SelectorResource::kReplicaSets,
    SelectorResource::kStatefulSets};

// The resource's plural name ("services"), as in URLs, RBAC rules and metric labels.
std::string_view PluralName(SelectorResource resource);
// The object kind ("Service") and its list kind ("ServiceList").
std::string_view KindName(SelectorResource resource);
std::string_view ListKindName(SelectorResource resource);
// "v1" or "apps/v1".
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

  bool operator==(const SelectorObject&) const = default;
};

using SelectorObjectList = List<SelectorObject>;

}  // namespace trimaran::kube
