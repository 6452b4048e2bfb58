#pragma once
// Binding (core/v1): the body of POST /api/v1/namespaces/{ns}/pods/{name}/binding, by
// which the scheduler assigns a pod to a node. metadata names the pod (uid, when set,
// is checked by the apiserver as a precondition); annotations are copied to the pod.
//
// Thread-safety: a plain value; externally synchronized.

#include <string>

#include "kube/api/object_meta.h"
#include "kube/api/object_reference.h"

namespace trimaran::kube {

struct Binding {
  ObjectMeta metadata;
  // {apiVersion: v1, kind: Node, name: <node>}.
  ObjectReference target;

  bool operator==(const Binding&) const = default;
};

// The binding of `pod_meta` (name, namespace, uid) to node `node_name`.
Binding MakeBinding(const ObjectMeta& pod_meta, std::string node_name);

}  // namespace trimaran::kube
