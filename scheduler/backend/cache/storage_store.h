#pragma once
// StorageStore: the scheduler's StorageLister (scheduler/framework/handle.h), fed by the
// informers of PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes,
// CSIDrivers and CSIStorageCapacities (cmd/scheduler/app.cc): Apply on add and update, Remove on
// delete. Objects are kept per resource by key ("ns/name" for claims, "name" otherwise) and handed
// out typed, sharing the informer's object (no copy).
//
// Thread-safety: safe for concurrent use; readers share the stored objects (immutable
// behind shared_ptr<const>).

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "kube/api/storage.h"
#include "scheduler/framework/handle.h"

namespace trimaran::sched {

class StorageStore final : public StorageLister {
 public:
  // Adds or replaces the object with `object`'s kind, namespace and name.
  void Apply(std::shared_ptr<const kube::StorageObject> object);
  // Typed conveniences (tests, benchmarks).
  void Apply(kube::PersistentVolume pv);
  void Apply(kube::PersistentVolumeClaim claim);
  void Apply(kube::StorageClass storage_class);
  void Apply(kube::CSINode csi_node);
  void Apply(kube::CSIDriver driver);
  void Apply(kube::CSIStorageCapacity capacity);
  // Called (once) when the apiserver serves no CSIStorageCapacity API.
  void SetCapacityTracking(bool on) { capacity_tracking_.store(on); }
  // Removes it (no-op when absent).
  void Remove(const kube::StorageObject& object);
  size_t Size(kube::StorageResource resource) const;

  std::shared_ptr<const kube::PersistentVolume> GetPersistentVolume(
      std::string_view name) const override;
  std::shared_ptr<const kube::PersistentVolumeClaim> GetPersistentVolumeClaim(
      std::string_view ns, std::string_view name) const override;
  std::shared_ptr<const kube::StorageClass> GetStorageClass(std::string_view name) const override;
  std::shared_ptr<const kube::CSINode> GetCSINode(std::string_view name) const override;
  std::vector<std::shared_ptr<const kube::PersistentVolume>> ListPersistentVolumes() const override;
  std::shared_ptr<const kube::CSIDriver> GetCSIDriver(std::string_view name) const override;
  std::vector<std::shared_ptr<const kube::CSIStorageCapacity>> ListCSIStorageCapacities()
      const override;
  bool CapacityTracking() const override { return capacity_tracking_.load(); }

 private:
  using ByKey = std::map<std::string, std::shared_ptr<const kube::StorageObject>, std::less<>>;
  static size_t Index(kube::StorageResource resource) { return static_cast<size_t>(resource); }
  std::shared_ptr<const kube::StorageObject> Find(kube::StorageResource resource,
                                                  std::string_view key) const;
  template <typename T>
  std::vector<std::shared_ptr<const T>> ListTyped(kube::StorageResource resource) const;

  mutable absl::Mutex mu_;
  ByKey objects_[std::size(kube::kAllStorageResources)] ABSL_GUARDED_BY(mu_);
  std::atomic<bool> capacity_tracking_{true};
};

}  // namespace trimaran::sched
