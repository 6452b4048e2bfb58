#pragma once
// Volume (core/v1): the part of a pod's spec.volumes[] that the volume plugins read. A
// volume has a name and one source; only the sources that scheduling looks at are
// decoded (claims, generic ephemeral volumes and the in-tree block devices that
// VolumeRestrictions, NodeVolumeLimits and CSI migration know). Any other source
// (emptyDir, configMap, secret, hostPath, ...) decodes to a Volume with none of them set.
//
// The in-tree sources are shared with PersistentVolumeSpec (kube/api/storage.h).
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trimaran::kube {

struct PersistentVolumeClaimVolumeSource {
  std::string claim_name;  // JSON "claimName"
  bool read_only = false;

  bool operator==(const PersistentVolumeClaimVolumeSource&) const = default;
};

struct GCEPersistentDiskVolumeSource {
  std::string pd_name;  // JSON "pdName"
  bool read_only = false;

  bool operator==(const GCEPersistentDiskVolumeSource&) const = default;
};

struct AWSElasticBlockStoreVolumeSource {
  std::string volume_id;  // JSON "volumeID"
  bool read_only = false;

  bool operator==(const AWSElasticBlockStoreVolumeSource&) const = default;
};

struct AzureDiskVolumeSource {
  std::string disk_name;      // JSON "diskName"
  std::string data_disk_uri;  // JSON "diskURI"
  bool read_only = false;

  bool operator==(const AzureDiskVolumeSource&) const = default;
};

struct CinderVolumeSource {
  std::string volume_id;  // JSON "volumeID"
  bool read_only = false;

  bool operator==(const CinderVolumeSource&) const = default;
};

struct ISCSIVolumeSource {
  std::string target_portal;  // JSON "targetPortal"
  std::string iqn;
  int32_t lun = 0;
  bool read_only = false;

  bool operator==(const ISCSIVolumeSource&) const = default;
};

struct RBDVolumeSource {
  std::vector<std::string> monitors;
  std::string image;
  std::string pool = "rbd";  // the apiserver's default
  bool read_only = false;

  bool operator==(const RBDVolumeSource&) const = default;
};

// An inline (ephemeral) CSI volume of a pod, or (with volume_handle) a PV's CSI source.
struct CSIVolumeSource {
  std::string driver;
  std::string volume_handle;  // PV only: JSON "volumeHandle"
  bool read_only = false;

  bool operator==(const CSIVolumeSource&) const = default;
};

struct Volume {
  std::string name;
  std::optional<PersistentVolumeClaimVolumeSource> persistent_volume_claim;
  // A generic ephemeral volume (spec.volumes[].ephemeral): its claim is named
  // "<pod name>-<volume name>" and created by the ephemeral volume controller. Only its
  // presence matters to the scheduler.
  bool ephemeral = false;
  std::optional<GCEPersistentDiskVolumeSource> gce_persistent_disk;
  std::optional<AWSElasticBlockStoreVolumeSource> aws_elastic_block_store;
  std::optional<AzureDiskVolumeSource> azure_disk;
  std::optional<CinderVolumeSource> cinder;
  std::optional<ISCSIVolumeSource> iscsi;
  std::optional<RBDVolumeSource> rbd;
  std::optional<CSIVolumeSource> csi;

  bool operator==(const Volume&) const = default;
};

}  // namespace trimaran::kube
