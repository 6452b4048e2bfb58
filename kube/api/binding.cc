#include "kube/api/binding.h"

#include <utility>

namespace trimaran::kube {

Binding MakeBinding(const ObjectMeta& pod_meta, std::string node_name) {
  Binding b;
  b.metadata.name = pod_meta.name;
  b.metadata.namespace_name = pod_meta.namespace_name;
  b.metadata.uid = pod_meta.uid;
  b.target.api_version = "v1";
  b.target.kind = "Node";
  b.target.name = std::move(node_name);
  return b;
}

}  // namespace trimaran::kube
