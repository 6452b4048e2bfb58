#include "scheduler/plugins/volume_restrictions/volume_restrictions.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/plugins/helper/pod_claims.h"

namespace trimaran::sched::plugins {
namespace {

class PreFilterState final : public StateData {
 public:
  PreFilterState(std::set<std::string> claims, int64_t count)
      : rwop_claims(std::move(claims)), conflicts(count) {}
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(rwop_claims, conflicts);
  }
  // Names of the pod's claims with the ReadWriteOncePod access mode.
  std::set<std::string> rwop_claims;
  // How many of them a scheduled pod uses.
  int64_t conflicts = 0;
};

bool HasInlineDisk(const kube::Pod& pod) {
  for (const kube::Volume& v : pod.spec.volumes) {
    if (v.gce_persistent_disk || v.aws_elastic_block_store || v.rbd || v.iscsi) return true;
  }
  return false;
}

// How many of `pod`'s claim volumes name a claim in `names` (names only, as upstream).
int64_t CountClaims(const kube::Pod& pod, const std::set<std::string>& names) {
  int64_t n = 0;
  for (const kube::Volume& v : pod.spec.volumes) {
    if (v.persistent_volume_claim && names.contains(v.persistent_volume_claim->claim_name)) ++n;
  }
  return n;
}

Status UpdateCount(CycleState& state, const PodInfo& pod, int64_t sign) {
  absl::StatusOr<PreFilterState*> s =
      state.ReadMutable<PreFilterState>(VolumeRestrictions::kPreFilterStateKey);
  if (!s.ok()) return Status::FromAbsl(s.status()).WithPlugin(VolumeRestrictions::kName);
  (*s)->conflicts += sign * CountClaims(*pod.pod, (*s)->rwop_claims);
  return Status();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> VolumeRestrictions::New(const PluginArgs& /*args*/,
                                                                Handle& handle) {
  return std::make_unique<VolumeRestrictions>(handle);
}

PluginDescriptor VolumeRestrictions::Descriptor() { return DescriptorFor<VolumeRestrictions>(); }

bool VolumeRestrictions::Conflicts(const kube::Volume& a, const kube::Volume& b) {
  if (a.gce_persistent_disk && b.gce_persistent_disk) {
    return a.gce_persistent_disk->pd_name == b.gce_persistent_disk->pd_name &&
           !(a.gce_persistent_disk->read_only && b.gce_persistent_disk->read_only);
  }
  if (a.aws_elastic_block_store && b.aws_elastic_block_store) {
    return a.aws_elastic_block_store->volume_id == b.aws_elastic_block_store->volume_id;
  }
  if (a.iscsi && b.iscsi) {
    return a.iscsi->iqn == b.iscsi->iqn && !(a.iscsi->read_only && b.iscsi->read_only);
  }
  if (a.rbd && b.rbd) {
    const bool common_monitor =
        std::any_of(a.rbd->monitors.begin(), a.rbd->monitors.end(), [&b](const std::string& m) {
          return std::find(b.rbd->monitors.begin(), b.rbd->monitors.end(), m) !=
                 b.rbd->monitors.end();
        });
    return common_monitor && a.rbd->pool == b.rbd->pool && a.rbd->image == b.rbd->image &&
           !(a.rbd->read_only && b.rbd->read_only);
  }
  return false;
}

Status VolumeRestrictions::PreFilter(CycleState& state, const kube::Pod& pod,
                                     std::span<const NodeInfo* const> /*nodes*/,
                                     PreFilterResult& /*result*/) {
  const StorageLister& storage = handle_.storage_lister();
  std::set<std::string> rwop;
  for (const kube::Volume& v : pod.spec.volumes) {
    if (!v.persistent_volume_claim) continue;
    const std::string& name = v.persistent_volume_claim->claim_name;
    auto claim = storage.GetPersistentVolumeClaim(pod.metadata.namespace_name, name);
    if (claim == nullptr) {
      return Status::UnschedulableAndUnresolvable(
                 absl::StrCat("persistentvolumeclaim \"", name, "\" not found"))
          .WithPlugin(kName);
    }
    const auto& modes = claim->spec.access_modes;
    if (std::find(modes.begin(), modes.end(), kube::kReadWriteOncePod) != modes.end()) {
      rwop.insert(name);
    }
  }
  // How many of those claims a scheduled pod uses (upstream's usedPVCSet: claims are
  // namespaced, so only pods of the same namespace count).
  int64_t conflicts = 0;
  if (!rwop.empty()) {
    std::set<std::string> used;
    for (const NodeInfo* node : handle_.snapshot_lister().NodeInfos().List()) {
      for (const PodInfo& p : node->pods()) {
        if (p.pod->metadata.namespace_name != pod.metadata.namespace_name) continue;
        if (p.pod->metadata.uid == pod.metadata.uid) continue;
        for (const kube::Volume& v : p.pod->spec.volumes) {
          if (v.persistent_volume_claim && rwop.contains(v.persistent_volume_claim->claim_name)) {
            used.insert(v.persistent_volume_claim->claim_name);
          }
        }
      }
    }
    conflicts = static_cast<int64_t>(used.size());
  }
  if (!HasInlineDisk(pod) && conflicts == 0) return Status::Skip();
  state.Write(kPreFilterStateKey, std::make_unique<PreFilterState>(std::move(rwop), conflicts));
  return Status();
}

Status VolumeRestrictions::AddPod(CycleState& state, const kube::Pod& /*pod_to_schedule*/,
                                  const PodInfo& pod_to_add, const NodeInfo& /*node_info*/) const {
  return UpdateCount(state, pod_to_add, 1);
}

Status VolumeRestrictions::RemovePod(CycleState& state, const kube::Pod& /*pod_to_schedule*/,
                                     const PodInfo& pod_to_remove,
                                     const NodeInfo& /*node_info*/) const {
  return UpdateCount(state, pod_to_remove, -1);
}

Status VolumeRestrictions::Filter(const CycleState& state, const kube::Pod& pod,
                                  const NodeInfo& node_info) const {
  for (const kube::Volume& v : pod.spec.volumes) {
    if (!v.gce_persistent_disk && !v.aws_elastic_block_store && !v.rbd && !v.iscsi) continue;
    for (const PodInfo& existing : node_info.pods()) {
      for (const kube::Volume& e : existing.pod->spec.volumes) {
        if (Conflicts(v, e)) return Status::Unschedulable(kErrReasonDiskConflict).WithPlugin(kName);
      }
    }
  }
  const absl::StatusOr<const PreFilterState*> s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (!s.ok()) return Status::FromAbsl(s.status()).WithPlugin(kName);
  if ((*s)->conflicts > 0) {
    return Status::Unschedulable(kErrReasonReadWriteOncePodConflict).WithPlugin(kName);
  }
  return Status();
}

absl::StatusOr<QueueingHint> VolumeRestrictions::Hint(const kube::Pod& pod,
                                                      const ClusterEvent& event,
                                                      const EventObjects& objects) const {
  const auto queue_if = [](bool b) { return b ? QueueingHint::kQueue : QueueingHint::kQueueSkip; };
  switch (event.resource) {
    case EventResource::kPod: {
      const kube::Pod* deleted = objects.old_pod;
      if (deleted == nullptr) return QueueingHint::kQueue;
      if (deleted->metadata.namespace_name != pod.metadata.namespace_name) {
        return QueueingHint::kQueueSkip;
      }
      for (const kube::Volume& v : pod.spec.volumes) {
        for (const kube::Volume& e : deleted->spec.volumes) {
          if (Conflicts(v, e)) return QueueingHint::kQueue;
          if (v.persistent_volume_claim && e.persistent_volume_claim &&
              v.persistent_volume_claim->claim_name == e.persistent_volume_claim->claim_name) {
            return QueueingHint::kQueue;
          }
        }
      }
      return QueueingHint::kQueueSkip;
    }
    case EventResource::kPersistentVolumeClaim:
      if (const auto* claim = EventStorage<kube::PersistentVolumeClaim>(objects)) {
        return queue_if(helper::PodUsesClaim(pod, *claim, /*include_ephemeral=*/false));
      }
      return QueueingHint::kQueue;
    default:
      return QueueingHint::kQueue;  // node adds
  }
}

std::vector<ClusterEvent> VolumeRestrictions::EventsToRegister() const {
  return {
      kAssignedPodDeleteEvent,
      ClusterEvent{EventResource::kNode, ActionType::kAdd, "NodeAdd"},
      ClusterEvent{EventResource::kPersistentVolumeClaim, ActionType::kAdd, "PvcAdd"},
  };
}

}  // namespace trimaran::sched::plugins
