#pragma once
// DefaultSelector: the pods that "belong with" a pod, for PodTopologySpread's default
// constraints (upstream plugins/helper.DefaultSelector; spec
// kube-scheduler-constraints.md §3.3).
//
// Starting from an empty label set: every Service in the pod's namespace with a
// spec.selector that matches the pod's labels merges its selector map in (later
// services overwrite keys); then the pod's controller owner reference, looked up in the
// pod's namespace:
//   v1 ReplicationController       merges its spec.selector map in;
//   apps/v1 ReplicaSet|StatefulSet ANDs its label selector's requirements (matchLabels
//                                  as `key In (value)`, matchExpressions as written).
// Unknown owner kinds, owners not found and malformed API versions are ignored. The
// result is empty (no requirement) when nothing selects the pod: no default constraint
// then applies.
//
// Thread-safety: a pure function over `objects` (read live).

#include "kube/api/label_selector.h"
#include "kube/api/pod.h"
#include "scheduler/framework/handle.h"

namespace trimaran::sched::plugins::helper {

kube::LabelSelector DefaultSelector(const kube::Pod& pod, const ObjectLister& objects);

// True when `selector` has no requirement at all (upstream labels.Selector.Empty()).
inline bool IsEmptySelector(const kube::LabelSelector& selector) {
  return selector.match_labels.empty() && selector.match_expressions.empty();
}

}  // namespace trimaran::sched::plugins::helper
