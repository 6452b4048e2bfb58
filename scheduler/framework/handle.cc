#include "scheduler/framework/handle.h"

namespace trimaran::sched {
namespace {

class EmptyLister final : public ObjectLister {
 public:
  std::shared_ptr<const kube::SelectorObject> Get(kube::SelectorResource /*resource*/,
                                                  std::string_view /*ns*/,
                                                  std::string_view /*name*/) const override {
    return nullptr;
  }
  std::vector<std::shared_ptr<const kube::SelectorObject>> List(
      kube::SelectorResource /*resource*/, std::string_view /*ns*/) const override {
    return {};
  }
};

class EmptyStorage final : public StorageLister {
 public:
  std::shared_ptr<const kube::PersistentVolume> GetPersistentVolume(
      std::string_view /*name*/) const override {
    return nullptr;
  }
  std::shared_ptr<const kube::PersistentVolumeClaim> GetPersistentVolumeClaim(
      std::string_view /*ns*/, std::string_view /*name*/) const override {
    return nullptr;
  }
  std::shared_ptr<const kube::StorageClass> GetStorageClass(
      std::string_view /*name*/) const override {
    return nullptr;
  }
  std::shared_ptr<const kube::CSINode> GetCSINode(std::string_view /*name*/) const override {
    return nullptr;
  }
  std::vector<std::shared_ptr<const kube::PersistentVolume>> ListPersistentVolumes()
      const override {
    return {};
  }
  std::shared_ptr<const kube::CSIDriver> GetCSIDriver(std::string_view /*name*/) const override {
    return nullptr;
  }
  std::vector<std::shared_ptr<const kube::CSIStorageCapacity>> ListCSIStorageCapacities()
      const override {
    return {};
  }
  bool CapacityTracking() const override { return true; }
};

}  // namespace

const StorageLister& EmptyStorageLister() {
  static const EmptyStorage* const kEmpty = new EmptyStorage();
  return *kEmpty;
}

namespace {
class EmptyPodGroups final : public PodGroupLister {
 public:
  absl::Status Health() const override {
    return absl::FailedPreconditionError("the scheduler reads no PodGroups (no informer)");
  }
  std::shared_ptr<const kube::PodGroup> Get(std::string_view, std::string_view) const override {
    return nullptr;
  }
  std::vector<std::shared_ptr<const kube::Pod>> Pods(std::string_view,
                                                     std::string_view) const override {
    return {};
  }
};
}  // namespace

const PodGroupLister& EmptyPodGroupLister() {
  static const EmptyPodGroups* const kEmpty = new EmptyPodGroups();
  return *kEmpty;
}

const ObjectLister& EmptyObjectLister() {
  static const EmptyLister* const kEmpty = new EmptyLister();
  return *kEmpty;
}

}  // namespace trimaran::sched
