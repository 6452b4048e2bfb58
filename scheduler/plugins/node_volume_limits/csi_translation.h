#pragma once
// In-tree volume plugins migrated to CSI, as NodeVolumeLimits counts them (spec
// kube-scheduler-constraints.md §7.1; upstream's csi-translation-lib, reduced to what
// counting needs: which CSI driver an in-tree volume or provisioner becomes, and a
// stable handle for it). Migration is GA for the four plugins below, so a node counts
// them as CSI volumes whenever it has a CSINode object.
//
//   in-tree plugin / provisioner   CSI driver
//   kubernetes.io/aws-ebs          ebs.csi.aws.com
//   kubernetes.io/gce-pd           pd.csi.storage.gke.io
//   kubernetes.io/azure-disk       disk.csi.azure.com
//   kubernetes.io/cinder           cinder.csi.openstack.org
//
// Thread-safety: pure functions.

#include <optional>
#include <string>
#include <string_view>

#include "kube/api/storage.h"
#include "kube/api/volume.h"

namespace trimaran::sched::plugins {

// A volume as the attach limit counts it: driver and handle.
struct CsiVolumeId {
  std::string driver;
  std::string handle;

  bool operator==(const CsiVolumeId&) const = default;
};

// The CSI driver an in-tree provisioner or plugin name migrates to; "" when it is not
// one of the four.
std::string_view CsiDriverForInTreePlugin(std::string_view plugin);

// The CSI identity of a PV: its CSI source, or its migrated in-tree source; nullopt
// for anything else (local, hostPath, NFS, ...).
std::optional<CsiVolumeId> CsiVolumeOf(const kube::PersistentVolume& pv);
// The CSI identity of an inline in-tree volume of a pod (EBS, GCE PD, Azure Disk,
// Cinder); nullopt for other volumes (claims, inline CSI, emptyDir, ...).
std::optional<CsiVolumeId> CsiVolumeOfInline(const kube::Volume& volume);

// The node allocatable key of a driver's limit: "attachable-volumes-csi-<driver>", or,
// when that would be 63 characters or longer, the prefix + the first 23 characters of
// the driver + the first 16 hex digits of SHA-1(driver).
std::string VolumeLimitKey(std::string_view driver);

}  // namespace trimaran::sched::plugins
