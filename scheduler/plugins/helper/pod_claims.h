#pragma once
// The PersistentVolumeClaims a pod uses, for the volume plugins' QueueingHints
// (upstream's "is this PVC one of the pod's" checks in volumebinding, volumezone and
// volumerestrictions).
//
// Thread-safety: pure functions.

#include <string>

#include "kube/api/pod.h"
#include "kube/api/storage.h"

namespace trimaran::sched::plugins::helper {

// The claim name of a pod volume: persistentVolumeClaim.claimName, or
// "<pod>-<volume>" for a generic ephemeral volume; "" for other volumes.
std::string ClaimNameOf(const kube::Pod& pod, const kube::Volume& volume);

// Whether `claim` is one of `pod`'s claims: same namespace and named by one of its
// persistentVolumeClaim or (when `include_ephemeral`) ephemeral volumes.
bool PodUsesClaim(const kube::Pod& pod, const kube::PersistentVolumeClaim& claim,
                  bool include_ephemeral = true);

}  // namespace trimaran::sched::plugins::helper
