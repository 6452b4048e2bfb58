#include "kube/api/storage.h"

namespace trimaran::kube {

std::string_view PluralName(StorageResource resource) {
  switch (resource) {
    case StorageResource::kPersistentVolumes:
      return "persistentvolumes";
    case StorageResource::kPersistentVolumeClaims:
      return "persistentvolumeclaims";
    case StorageResource::kStorageClasses:
      return "storageclasses";
    case StorageResource::kCSINodes:
      return "csinodes";
    case StorageResource::kCSIDrivers:
      return "csidrivers";
    case StorageResource::kCSIStorageCapacities:
    case StorageResource::kCSIStorageCapacitiesV1beta1:
      return "csistoragecapacities";
  }
  return "";
}

std::string_view KindName(StorageResource resource) {
  switch (resource) {
    case StorageResource::kPersistentVolumes:
      return "PersistentVolume";
    case StorageResource::kPersistentVolumeClaims:
      return "PersistentVolumeClaim";
    case StorageResource::kStorageClasses:
      return "StorageClass";
    case StorageResource::kCSINodes:
      return "CSINode";
    case StorageResource::kCSIDrivers:
      return "CSIDriver";
    case StorageResource::kCSIStorageCapacities:
    case StorageResource::kCSIStorageCapacitiesV1beta1:
      return "CSIStorageCapacity";
  }
  return "";
}

std::string_view ListKindName(StorageResource resource) {
  switch (resource) {
    case StorageResource::kPersistentVolumes:
      return "PersistentVolumeList";
    case StorageResource::kPersistentVolumeClaims:
      return "PersistentVolumeClaimList";
    case StorageResource::kStorageClasses:
      return "StorageClassList";
    case StorageResource::kCSINodes:
      return "CSINodeList";
    case StorageResource::kCSIDrivers:
      return "CSIDriverList";
    case StorageResource::kCSIStorageCapacities:
    case StorageResource::kCSIStorageCapacitiesV1beta1:
      return "CSIStorageCapacityList";
  }
  return "";
}

std::string_view ApiVersionOf(StorageResource resource) {
  switch (resource) {
    case StorageResource::kPersistentVolumes:
    case StorageResource::kPersistentVolumeClaims:
      return "v1";
    case StorageResource::kStorageClasses:
    case StorageResource::kCSINodes:
    case StorageResource::kCSIDrivers:
    case StorageResource::kCSIStorageCapacities:
      return "storage.k8s.io/v1";
    case StorageResource::kCSIStorageCapacitiesV1beta1:
      return "storage.k8s.io/v1beta1";
  }
  return "";
}

std::string_view CollectionPath(StorageResource resource) {
  switch (resource) {
    case StorageResource::kPersistentVolumes:
      return "/api/v1/persistentvolumes";
    case StorageResource::kPersistentVolumeClaims:
      return "/api/v1/persistentvolumeclaims";
    case StorageResource::kStorageClasses:
      return "/apis/storage.k8s.io/v1/storageclasses";
    case StorageResource::kCSINodes:
      return "/apis/storage.k8s.io/v1/csinodes";
    case StorageResource::kCSIDrivers:
      return "/apis/storage.k8s.io/v1/csidrivers";
    case StorageResource::kCSIStorageCapacities:
      return "/apis/storage.k8s.io/v1/csistoragecapacities";
    case StorageResource::kCSIStorageCapacitiesV1beta1:
      return "/apis/storage.k8s.io/v1beta1/csistoragecapacities";
  }
  return "";
}

StorageObject StorageObject::Empty(StorageResource resource) {
  StorageObject o;
  switch (resource) {
    case StorageResource::kPersistentVolumes:
      o.object = PersistentVolume();
      break;
    case StorageResource::kPersistentVolumeClaims:
      o.object = PersistentVolumeClaim();
      break;
    case StorageResource::kStorageClasses:
      o.object = StorageClass();
      break;
    case StorageResource::kCSINodes:
      o.object = CSINode();
      break;
    case StorageResource::kCSIDrivers:
      o.object = CSIDriver();
      break;
    case StorageResource::kCSIStorageCapacities:
    case StorageResource::kCSIStorageCapacitiesV1beta1:
      o.object = CSIStorageCapacity();
      break;
  }
  return o;
}

std::string ClaimClass(const PersistentVolumeClaim& claim) {
  if (auto it = claim.metadata.annotations.find(std::string(kAnnBetaStorageClass));
      it != claim.metadata.annotations.end()) {
    return it->second;
  }
  return claim.spec.storage_class_name.value_or("");
}

std::string VolumeClass(const PersistentVolume& pv) {
  if (auto it = pv.metadata.annotations.find(std::string(kAnnBetaStorageClass));
      it != pv.metadata.annotations.end()) {
    return it->second;
  }
  return pv.spec.storage_class_name;
}

int64_t ClaimRequestBytes(const PersistentVolumeClaim& claim) {
  return claim.spec.request ? claim.spec.request->Value() : 0;
}

std::optional<Quantity> CapacityLimit(const CSIStorageCapacity& capacity) {
  return capacity.maximum_volume_size ? capacity.maximum_volume_size : capacity.capacity;
}

}  // namespace trimaran::kube
