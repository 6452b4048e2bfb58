#include "scheduler/plugins/volume_zone/volume_zone.h"

#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "scheduler/plugins/helper/pod_claims.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr absl::string_view kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr absl::string_view kZone = "topology.kubernetes.io/zone";
constexpr absl::string_view kRegion = "topology.kubernetes.io/region";
constexpr absl::string_view kTopologyLabels[] = {kBetaZone, kBetaRegion, kZone, kRegion};

struct Topology {
  std::string key;
  std::set<std::string, std::less<>> values;

  bool operator==(const Topology&) const = default;
};

class PreFilterState final : public StateData {
 public:
  explicit PreFilterState(std::vector<Topology> topologies) : topologies_(std::move(topologies)) {}
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(topologies_);
  }
  const std::vector<Topology>& topologies() const { return topologies_; }

 private:
  std::vector<Topology> topologies_;
};

Status Unresolvable(std::string reason) {
  return Status::UnschedulableAndUnresolvable(reason).WithPlugin(VolumeZone::kName);
}

// The topology labels of a PV, values split on "__"; unparsable (empty) ones skipped.
std::vector<Topology> TopologiesOf(const kube::PersistentVolume& pv) {
  std::vector<Topology> out;
  for (absl::string_view key : kTopologyLabels) {
    auto it = pv.metadata.labels.find(std::string_view(key.data(), key.size()));
    if (it == pv.metadata.labels.end()) continue;
    Topology t{.key = std::string(key), .values = {}};
    for (absl::string_view v : absl::StrSplit(it->second, "__", absl::SkipEmpty())) {
      t.values.insert(std::string(v));
    }
    if (t.values.empty()) continue;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> VolumeZone::New(const PluginArgs& /*args*/,
                                                        Handle& handle) {
  return std::make_unique<VolumeZone>(handle);
}

PluginDescriptor VolumeZone::Descriptor() { return DescriptorFor<VolumeZone>(); }

Status VolumeZone::PreFilter(CycleState& state, const kube::Pod& pod,
                             std::span<const NodeInfo* const> /*nodes*/,
                             PreFilterResult& /*result*/) {
  const StorageLister& storage = handle_.storage_lister();
  std::vector<Topology> topologies;
  for (const kube::Volume& volume : pod.spec.volumes) {
    if (!volume.persistent_volume_claim) continue;
    const std::string& claim_name = volume.persistent_volume_claim->claim_name;
    if (claim_name.empty()) return Unresolvable("PersistentVolumeClaim had no name");
    auto claim = storage.GetPersistentVolumeClaim(pod.metadata.namespace_name, claim_name);
    if (claim == nullptr) {
      return Unresolvable(absl::StrCat("persistentvolumeclaim \"", claim_name, "\" not found"));
    }
    const std::string& pv_name = claim->spec.volume_name;
    if (pv_name.empty()) {
      const std::string class_name = kube::ClaimClass(*claim);
      if (class_name.empty()) {
        return Unresolvable("PersistentVolumeClaim had no pv name and storageClass name");
      }
      auto storage_class = storage.GetStorageClass(class_name);
      if (storage_class == nullptr) {
        return Unresolvable(
            absl::StrCat("storageclasses.storage.k8s.io \"", class_name, "\" not found"));
      }
      if (!storage_class->volume_binding_mode) {
        return Unresolvable(
            absl::StrCat("VolumeBindingMode not set for StorageClass \"", class_name, "\""));
      }
      if (*storage_class->volume_binding_mode == kube::kBindingWaitForFirstConsumer) continue;
      return Unresolvable("PersistentVolume had no name");
    }
    auto pv = storage.GetPersistentVolume(pv_name);
    if (pv == nullptr) {
      return Unresolvable(absl::StrCat("persistentvolume \"", pv_name, "\" not found"));
    }
    for (Topology& t : TopologiesOf(*pv)) topologies.push_back(std::move(t));
  }
  if (topologies.empty()) return Status::Skip();
  state.Write(kPreFilterStateKey, std::make_unique<PreFilterState>(std::move(topologies)));
  return Status();
}

Status VolumeZone::Filter(const CycleState& state, const kube::Pod& /*pod*/,
                          const NodeInfo& node_info) const {
  const kube::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found").WithPlugin(kName);
  const kube::Labels& labels = node->metadata.labels;
  bool has_topology = false;
  for (absl::string_view key : kTopologyLabels) {
    has_topology |= labels.contains(std::string_view(key.data(), key.size()));
  }
  if (!has_topology) return Status();
  const absl::StatusOr<const PreFilterState*> s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (!s.ok()) return Status::FromAbsl(s.status()).WithPlugin(kName);
  for (const Topology& t : (*s)->topologies()) {
    auto it = labels.find(t.key);
    if (it == labels.end()) {
      // A beta key on the PV is satisfied by the GA label on the node.
      absl::string_view ga = t.key == kBetaZone ? kZone : t.key == kBetaRegion ? kRegion : "";
      if (!ga.empty()) it = labels.find(std::string_view(ga.data(), ga.size()));
    }
    if (it == labels.end() || !t.values.contains(it->second)) {
      return Status::UnschedulableAndUnresolvable(kErrReasonConflict).WithPlugin(kName);
    }
  }
  return Status();
}

std::vector<ClusterEvent> VolumeZone::EventsToRegister() const {
  return {
      ClusterEvent{EventResource::kStorageClass, ActionType::kAdd, "StorageClassAdd"},
      ClusterEvent{EventResource::kNode,
                   ActionType::kAdd | ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeTaint,
                   "NodeAdd"},
      ClusterEvent{EventResource::kPersistentVolumeClaim, ActionType::kAdd | ActionType::kUpdate,
                   "PvcAddOrUpdate"},
      ClusterEvent{EventResource::kPersistentVolume, ActionType::kAdd | ActionType::kUpdate,
                   "PvAddOrUpdate"},
  };
}

absl::StatusOr<QueueingHint> VolumeZone::Hint(const kube::Pod& pod, const ClusterEvent& event,
                                              const EventObjects& objects) const {
  const auto queue_if = [](bool b) { return b ? QueueingHint::kQueue : QueueingHint::kQueueSkip; };
  switch (event.resource) {
    case EventResource::kStorageClass:
      if (const auto* sc = EventStorage<kube::StorageClass>(objects)) {
        return queue_if(sc->volume_binding_mode &&
                        *sc->volume_binding_mode == kube::kBindingWaitForFirstConsumer);
      }
      return QueueingHint::kQueue;
    case EventResource::kPersistentVolumeClaim:
      if (const auto* claim = EventStorage<kube::PersistentVolumeClaim>(objects)) {
        return queue_if(helper::PodUsesClaim(pod, *claim, /*include_ephemeral=*/false));
      }
      return QueueingHint::kQueue;
    case EventResource::kPersistentVolume: {
      const auto* old_pv = OldEventStorage<kube::PersistentVolume>(objects);
      const auto* new_pv = EventStorage<kube::PersistentVolume>(objects);
      if (old_pv == nullptr || new_pv == nullptr || old_pv == new_pv) return QueueingHint::kQueue;
      return queue_if(TopologiesOf(*old_pv) != TopologiesOf(*new_pv));
    }
    default:
      return QueueingHint::kQueue;  // node events
  }
}

}  // namespace trimaran::sched::plugins
