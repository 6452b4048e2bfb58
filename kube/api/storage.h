#pragma once
// The storage objects the volume plugins read: PersistentVolume, PersistentVolumeClaim
// (core/v1), StorageClass, CSINode, CSIDriver and CSIStorageCapacity (storage.k8s.io/v1;
// CSIStorageCapacity also v1beta1), reduced to the fields scheduling uses, and
// StorageObject, the one type the scheduler's storage informers, the codec and the fake
// client handle (as SelectorObject does for namespaces, services and controllers).
//
// Enum-like strings (access modes, phases, binding modes, volume modes) are kept as
// the API's strings: an unknown value is carried as is and simply matches nothing the
// plugins look for, which is how kube-scheduler treats it.
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kube/api/label_selector.h"
#include "kube/api/list.h"
#include "kube/api/node_selector.h"
#include "kube/api/object_meta.h"
#include "kube/api/object_reference.h"
#include "kube/api/quantity.h"
#include "kube/api/volume.h"

namespace trimaran::kube {

// Access modes, volume modes, phases and binding modes as the API spells them.
inline constexpr std::string_view kReadWriteOnce = "ReadWriteOnce";
inline constexpr std::string_view kReadOnlyMany = "ReadOnlyMany";
inline constexpr std::string_view kReadWriteMany = "ReadWriteMany";
inline constexpr std::string_view kReadWriteOncePod = "ReadWriteOncePod";
inline constexpr std::string_view kVolumeModeFilesystem = "Filesystem";
inline constexpr std::string_view kPhaseAvailable = "Available";
inline constexpr std::string_view kPhaseBound = "Bound";
inline constexpr std::string_view kPhaseLost = "Lost";
inline constexpr std::string_view kBindingImmediate = "Immediate";
inline constexpr std::string_view kBindingWaitForFirstConsumer = "WaitForFirstConsumer";

// Annotations and labels the volume plugins read or write.
inline constexpr std::string_view kAnnSelectedNode = "volume.kubernetes.io/selected-node";
inline constexpr std::string_view kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
inline constexpr std::string_view kAnnBoundByController = "pv.kubernetes.io/bound-by-controller";
inline constexpr std::string_view kAnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class";
inline constexpr std::string_view kAnnMigratedPlugins =
    "storage.alpha.kubernetes.io/migrated-plugins";

struct PersistentVolumeSpec {
  // capacity["storage"].
  std::optional<Quantity> capacity;
  std::vector<std::string> access_modes;
  std::optional<ObjectReference> claim_ref;
  std::string storage_class_name;
  std::optional<std::string> volume_mode;  // nil = Filesystem
  // nodeAffinity.required; nullopt = no affinity (every node).
  std::optional<NodeSelector> node_affinity;
  // The source, when it is one the plugins know.
  std::optional<GCEPersistentDiskVolumeSource> gce_persistent_disk;
  std::optional<AWSElasticBlockStoreVolumeSource> aws_elastic_block_store;
  std::optional<AzureDiskVolumeSource> azure_disk;
  std::optional<CinderVolumeSource> cinder;
  std::optional<CSIVolumeSource> csi;

  bool operator==(const PersistentVolumeSpec&) const = default;
};

struct PersistentVolume {
  ObjectMeta metadata;
  PersistentVolumeSpec spec;
  std::string phase;  // status.phase

  bool operator==(const PersistentVolume&) const = default;
};

struct PersistentVolumeClaimSpec {
  std::vector<std::string> access_modes;
  std::optional<LabelSelector> selector;
  // resources.requests["storage"].
  std::optional<Quantity> request;
  std::string volume_name;
  std::optional<std::string> storage_class_name;
  std::optional<std::string> volume_mode;  // nil = Filesystem

  bool operator==(const PersistentVolumeClaimSpec&) const = default;
};

struct PersistentVolumeClaim {
  ObjectMeta metadata;
  PersistentVolumeClaimSpec spec;
  std::string phase;  // status.phase

  bool operator==(const PersistentVolumeClaim&) const = default;
};

struct TopologySelectorLabelRequirement {
  std::string key;
  std::vector<std::string> values;

  bool operator==(const TopologySelectorLabelRequirement&) const = default;
};

// A term of allowedTopologies: an AND of its requirements.
struct TopologySelectorTerm {
  std::vector<TopologySelectorLabelRequirement> match_label_expressions;

  bool operator==(const TopologySelectorTerm&) const = default;
};

struct StorageClass {
  ObjectMeta metadata;
  std::string provisioner;
  // nullopt when the field is absent (the apiserver defaults it to Immediate).
  std::optional<std::string> volume_binding_mode;
  std::vector<TopologySelectorTerm> allowed_topologies;

  bool operator==(const StorageClass&) const = default;
};

struct CSINodeDriver {
  std::string name;
  std::string node_id;                       // JSON "nodeID"
  std::optional<int32_t> allocatable_count;  // allocatable.count

  bool operator==(const CSINodeDriver&) const = default;
};

struct CSINode {
  ObjectMeta metadata;
  std::vector<CSINodeDriver> drivers;  // spec.drivers

  bool operator==(const CSINode&) const = default;
};

struct CSIDriver {
  ObjectMeta metadata;
  // spec.storageCapacity: the driver publishes CSIStorageCapacity objects and the
  // scheduler must check them before provisioning (nullopt = false).
  std::optional<bool> storage_capacity;

  bool operator==(const CSIDriver&) const = default;
};

// The storage a CSI driver reports for one class in one topology segment (namespaced;
// the fields are top-level, there is no spec).
struct CSIStorageCapacity {
  ObjectMeta metadata;
  std::string storage_class_name;
  // The nodes the capacity is available from; nullopt = none.
  std::optional<LabelSelector> node_topology;
  std::optional<Quantity> capacity;
  std::optional<Quantity> maximum_volume_size;

  bool operator==(const CSIStorageCapacity&) const = default;
};

// The order is StorageObject::Variant's (resource() is the variant index), except the
// last entry, another version of CSIStorageCapacity.
enum class StorageResource {
  kPersistentVolumes,       // v1 PersistentVolume (cluster-scoped)
  kPersistentVolumeClaims,  // v1 PersistentVolumeClaim
  kStorageClasses,          // storage.k8s.io/v1 StorageClass (cluster-scoped)
  kCSINodes,                // storage.k8s.io/v1 CSINode (cluster-scoped)
  kCSIDrivers,              // storage.k8s.io/v1 CSIDriver (cluster-scoped)
  kCSIStorageCapacities,    // storage.k8s.io/v1 CSIStorageCapacity (1.24+)
  // storage.k8s.io/v1beta1 CSIStorageCapacity (1.21-1.23; objects are kCSIStorageCapacities).
  kCSIStorageCapacitiesV1beta1,
};

// One informer each (in this order); kCSIStorageCapacitiesV1beta1 is read by the
// kCSIStorageCapacities informer when v1 is not served.
inline constexpr StorageResource kAllStorageResources[] = {
    StorageResource::kPersistentVolumes, StorageResource::kPersistentVolumeClaims,
    StorageResource::kStorageClasses,    StorageResource::kCSINodes,
    StorageResource::kCSIDrivers,        StorageResource::kCSIStorageCapacities};

// The resource whose objects `resource` serves (itself, except v1beta1 capacities).
constexpr StorageResource ObjectResource(StorageResource resource) {
  return resource == StorageResource::kCSIStorageCapacitiesV1beta1
             ? StorageResource::kCSIStorageCapacities
             : resource;
}

// "persistentvolumes", ...: as in URLs, RBAC rules and metric labels.
std::string_view PluralName(StorageResource resource);
// "PersistentVolume" and "PersistentVolumeList", ...
std::string_view KindName(StorageResource resource);
std::string_view ListKindName(StorageResource resource);
// "v1", "storage.k8s.io/v1" or "storage.k8s.io/v1beta1".
std::string_view ApiVersionOf(StorageResource resource);
// "/api/v1/persistentvolumes", "/apis/storage.k8s.io/v1/csinodes", ...
std::string_view CollectionPath(StorageResource resource);
constexpr bool IsNamespaced(StorageResource resource) {
  return resource == StorageResource::kPersistentVolumeClaims ||
         ObjectResource(resource) == StorageResource::kCSIStorageCapacities;
}

// One of the storage objects. `metadata` mirrors the held object's (the informer
// keys, versions and deletes by it); Make() keeps them in step.
struct StorageObject {
  using Variant = std::variant<PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode,
                               CSIDriver, CSIStorageCapacity>;

  ObjectMeta metadata;
  Variant object;

  template <typename T>
  static StorageObject Make(T value) {
    StorageObject o;
    o.metadata = value.metadata;
    o.object = std::move(value);
    return o;
  }
  // An empty object of `resource` (what a list of that resource decodes into).
  static StorageObject Empty(StorageResource resource);
  StorageResource resource() const { return static_cast<StorageResource>(object.index()); }

  bool operator==(const StorageObject&) const = default;
};

using StorageObjectList = List<StorageObject>;

// What the volume binder writes (kube::Client::PatchStorageObject): annotations to
// set and, for a PV, the claim it is bound to. `resource_version` makes the write
// conditional (a JSON merge patch carrying metadata.resourceVersion).
struct StoragePatch {
  std::string resource_version;
  StringMap annotations;
  std::optional<ObjectReference> claim_ref;

  bool operator==(const StoragePatch&) const = default;
};

// The storage class a claim asks for: the beta annotation wins over
// spec.storageClassName (upstream storagehelpers.GetPersistentVolumeClaimClass); "" when
// neither is set.
std::string ClaimClass(const PersistentVolumeClaim& claim);
// The class of a PV, the same way.
std::string VolumeClass(const PersistentVolume& pv);
// The claim's storage request in bytes (0 when absent).
int64_t ClaimRequestBytes(const PersistentVolumeClaim& claim);
// What a capacity object admits for one volume: maximumVolumeSize when set, else
// capacity; nullopt when neither is.
std::optional<Quantity> CapacityLimit(const CSIStorageCapacity& capacity);

}  // namespace trimaran::kube
