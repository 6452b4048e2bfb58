#include "scheduler/backend/cache/storage_store.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace trimaran::sched {
namespace {

std::string Key(const kube::StorageObject& o) {
  return kube::IsNamespaced(o.resource())
             ? absl::StrCat(o.metadata.namespace_name, "/", o.metadata.name)
             : o.metadata.name;
}

// A pointer to the T inside `o` that keeps `o` alive (nullptr for another kind).
template <typename T>
std::shared_ptr<const T> Typed(std::shared_ptr<const kube::StorageObject> o) {
  if (o == nullptr) return nullptr;
  const T* typed = std::get_if<T>(&o->object);
  if (typed == nullptr) return nullptr;
  return std::shared_ptr<const T>(std::move(o), typed);
}

}  // namespace

void StorageStore::Apply(std::shared_ptr<const kube::StorageObject> object) {
  if (object == nullptr) return;
  std::string key = Key(*object);
  const size_t index = Index(object->resource());
  absl::MutexLock lock(&mu_);
  objects_[index][std::move(key)] = std::move(object);
}

void StorageStore::Apply(kube::PersistentVolume pv) {
  Apply(std::make_shared<const kube::StorageObject>(kube::StorageObject::Make(std::move(pv))));
}
void StorageStore::Apply(kube::PersistentVolumeClaim claim) {
  Apply(std::make_shared<const kube::StorageObject>(kube::StorageObject::Make(std::move(claim))));
}
void StorageStore::Apply(kube::StorageClass storage_class) {
  Apply(std::make_shared<const kube::StorageObject>(
      kube::StorageObject::Make(std::move(storage_class))));
}
void StorageStore::Apply(kube::CSINode csi_node) {
  Apply(
      std::make_shared<const kube::StorageObject>(kube::StorageObject::Make(std::move(csi_node))));
}

void StorageStore::Apply(kube::CSIDriver driver) {
  Apply(std::make_shared<const kube::StorageObject>(kube::StorageObject::Make(std::move(driver))));
}
void StorageStore::Apply(kube::CSIStorageCapacity capacity) {
  Apply(
      std::make_shared<const kube::StorageObject>(kube::StorageObject::Make(std::move(capacity))));
}

void StorageStore::Remove(const kube::StorageObject& object) {
  const std::string key = Key(object);
  absl::MutexLock lock(&mu_);
  auto& objects = objects_[Index(object.resource())];
  if (auto it = objects.find(key); it != objects.end()) objects.erase(it);
}

size_t StorageStore::Size(kube::StorageResource resource) const {
  absl::ReaderMutexLock lock(&mu_);
  return objects_[Index(resource)].size();
}

std::shared_ptr<const kube::StorageObject> StorageStore::Find(kube::StorageResource resource,
                                                              std::string_view key) const {
  absl::ReaderMutexLock lock(&mu_);
  const auto& objects = objects_[Index(resource)];
  auto it = objects.find(key);
  return it == objects.end() ? nullptr : it->second;
}

std::shared_ptr<const kube::PersistentVolume> StorageStore::GetPersistentVolume(
    std::string_view name) const {
  return Typed<kube::PersistentVolume>(Find(kube::StorageResource::kPersistentVolumes, name));
}

std::shared_ptr<const kube::PersistentVolumeClaim> StorageStore::GetPersistentVolumeClaim(
    std::string_view ns, std::string_view name) const {
  return Typed<kube::PersistentVolumeClaim>(
      Find(kube::StorageResource::kPersistentVolumeClaims,
           absl::StrCat(absl::string_view(ns.data(), ns.size()), "/",
                        absl::string_view(name.data(), name.size()))));
}

std::shared_ptr<const kube::StorageClass> StorageStore::GetStorageClass(
    std::string_view name) const {
  return Typed<kube::StorageClass>(Find(kube::StorageResource::kStorageClasses, name));
}

std::shared_ptr<const kube::CSINode> StorageStore::GetCSINode(std::string_view name) const {
  return Typed<kube::CSINode>(Find(kube::StorageResource::kCSINodes, name));
}

template <typename T>
std::vector<std::shared_ptr<const T>> StorageStore::ListTyped(
    kube::StorageResource resource) const {
  std::vector<std::shared_ptr<const kube::StorageObject>> all;
  {
    absl::ReaderMutexLock lock(&mu_);
    const auto& objects = objects_[Index(resource)];
    all.reserve(objects.size());
    for (const auto& [key, o] : objects) all.push_back(o);
  }
  std::vector<std::shared_ptr<const T>> out;
  out.reserve(all.size());
  for (auto& o : all) {
    if (auto typed = Typed<T>(std::move(o))) out.push_back(std::move(typed));
  }
  return out;
}

std::vector<std::shared_ptr<const kube::PersistentVolume>> StorageStore::ListPersistentVolumes()
    const {
  return ListTyped<kube::PersistentVolume>(kube::StorageResource::kPersistentVolumes);
}

std::shared_ptr<const kube::CSIDriver> StorageStore::GetCSIDriver(std::string_view name) const {
  return Typed<kube::CSIDriver>(Find(kube::StorageResource::kCSIDrivers, name));
}

std::vector<std::shared_ptr<const kube::CSIStorageCapacity>>
StorageStore::ListCSIStorageCapacities() const {
  return ListTyped<kube::CSIStorageCapacity>(kube::StorageResource::kCSIStorageCapacities);
}

}  // namespace trimaran::sched
