#include "scheduler/backend/cache/object_store.h"

#include <utility>

namespace trimaran::sched {
namespace {

std::string_view NamespaceOf(kube::SelectorResource resource, std::string_view ns) {
  return kube::IsNamespaced(resource) ? ns : std::string_view();
}

}  // namespace

void ObjectStore::Apply(kube::SelectorResource resource,
                        std::shared_ptr<const kube::SelectorObject> object) {
  if (object == nullptr) return;
  const std::string ns(NamespaceOf(resource, object->metadata.namespace_name));
  const std::string name = object->metadata.name;
  absl::MutexLock lock(&mu_);
  objects_[Index(resource)][ns][name] = std::move(object);
}

void ObjectStore::Remove(kube::SelectorResource resource, const kube::SelectorObject& object) {
  const std::string_view ns = NamespaceOf(resource, object.metadata.namespace_name);
  absl::MutexLock lock(&mu_);
  ByNamespace& by_ns = objects_[Index(resource)];
  auto it = by_ns.find(ns);
  if (it == by_ns.end()) return;
  if (auto obj = it->second.find(object.metadata.name); obj != it->second.end()) {
    it->second.erase(obj);
  }
  if (it->second.empty()) by_ns.erase(it);
}

size_t ObjectStore::Size(kube::SelectorResource resource) const {
  absl::ReaderMutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [ns, by_name] : objects_[Index(resource)]) n += by_name.size();
  return n;
}

std::shared_ptr<const kube::SelectorObject> ObjectStore::Get(kube::SelectorResource resource,
                                                             std::string_view ns,
                                                             std::string_view name) const {
  absl::ReaderMutexLock lock(&mu_);
  const ByNamespace& by_ns = objects_[Index(resource)];
  auto it = by_ns.find(NamespaceOf(resource, ns));
  if (it == by_ns.end()) return nullptr;
  auto obj = it->second.find(name);
  return obj == it->second.end() ? nullptr : obj->second;
}

std::vector<std::shared_ptr<const kube::SelectorObject>> ObjectStore::List(
    kube::SelectorResource resource, std::string_view ns) const {
  std::vector<std::shared_ptr<const kube::SelectorObject>> out;
  absl::ReaderMutexLock lock(&mu_);
  const ByNamespace& by_ns = objects_[Index(resource)];
  auto it = by_ns.find(NamespaceOf(resource, ns));
  if (it == by_ns.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [name, obj] : it->second) out.push_back(obj);
  return out;
}

}  // namespace trimaran::sched
