#include "kube/api/object_meta.h"

#include "absl/strings/str_cat.h"

namespace trimaran::kube {

std::string NamespacedName(const ObjectMeta& meta) {
  if (meta.namespace_name.empty()) return meta.name;
  return absl::StrCat(meta.namespace_name, "/", meta.name);
}

const OwnerReference* ControllerRef(const ObjectMeta& meta) {
  for (const OwnerReference& ref : meta.owner_references) {
    if (ref.controller) return &ref;
  }
  return nullptr;
}

}  // namespace trimaran::kube
