#include "scheduler/plugins/helper/pod_claims.h"

#include "absl/strings/str_cat.h"

namespace trimaran::sched::plugins::helper {

std::string ClaimNameOf(const kube::Pod& pod, const kube::Volume& volume) {
  if (volume.persistent_volume_claim) return volume.persistent_volume_claim->claim_name;
  if (volume.ephemeral) return absl::StrCat(pod.metadata.name, "-", volume.name);
  return "";
}

bool PodUsesClaim(const kube::Pod& pod, const kube::PersistentVolumeClaim& claim,
                  bool include_ephemeral) {
  if (pod.metadata.namespace_name != claim.metadata.namespace_name) return false;
  for (const kube::Volume& v : pod.spec.volumes) {
    if (!include_ephemeral && v.ephemeral) continue;
    const std::string name = ClaimNameOf(pod, v);
    if (!name.empty() && name == claim.metadata.name) return true;
  }
  return false;
}

}  // namespace trimaran::sched::plugins::helper
