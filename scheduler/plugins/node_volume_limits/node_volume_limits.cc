#include "scheduler/plugins/node_volume_limits/node_volume_limits.h"

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/plugins/node_volume_limits/csi_translation.h"

namespace trimaran::sched::plugins {
namespace {

// Sorted, without duplicates.
using VolumeList = std::vector<CsiVolumeId>;

bool Less(const CsiVolumeId& a, const CsiVolumeId& b) {
  return std::tie(a.driver, a.handle) < std::tie(b.driver, b.handle);
}

void SortUnique(VolumeList& v) {
  std::sort(v.begin(), v.end(), Less);
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Why a pod's volumes could not be listed.
struct VolumesError {
  Code code = Code::kSuccess;
  std::string message;
};

bool NeedsCounting(const kube::Pod& pod) {
  for (const kube::Volume& v : pod.spec.volumes) {
    if (v.persistent_volume_claim || v.ephemeral || CsiVolumeOfInline(v)) return true;
  }
  return false;
}

bool OwnedBy(const kube::PersistentVolumeClaim& claim, const kube::Pod& pod) {
  const kube::OwnerReference* ref = kube::ControllerRef(claim.metadata);
  return ref != nullptr && ref->uid == pod.metadata.uid;
}

// Appends `pod`'s counted volumes on a node with (`migrated`) or without a CSINode to
// `out` (unsorted). For the incoming pod (`strict`) a missing claim is an error; for the
// pods already on the node it is skipped.
VolumesError PodVolumes(const kube::Pod& pod, bool migrated, const StorageLister& storage,
                        const std::string& unbound_prefix, bool strict, VolumeList& out) {
  for (const kube::Volume& v : pod.spec.volumes) {
    if (!v.persistent_volume_claim && !v.ephemeral) {
      if (!migrated) continue;
      if (std::optional<CsiVolumeId> id = CsiVolumeOfInline(v)) out.push_back(*std::move(id));
      continue;
    }
    const std::string claim_name = v.ephemeral ? absl::StrCat(pod.metadata.name, "-", v.name)
                                               : v.persistent_volume_claim->claim_name;
    if (claim_name.empty()) continue;
    const std::string& ns = pod.metadata.namespace_name;
    auto claim = storage.GetPersistentVolumeClaim(ns, claim_name);
    if (claim == nullptr) {
      if (!strict) continue;
      return {Code::kUnschedulableAndUnresolvable,
              absl::StrCat("looking up PVC ", ns, "/", claim_name, ": persistentvolumeclaims \"",
                           claim_name, "\" not found")};
    }
    if (v.ephemeral && !OwnedBy(*claim, pod)) {
      if (!strict) continue;
      return {Code::kError, absl::StrCat("PVC ", ns, "/", claim_name, " was not created for pod ",
                                         ns, "/", pod.metadata.name, " (pod is not owner)")};
    }
    std::shared_ptr<const kube::PersistentVolume> pv;
    if (!claim->spec.volume_name.empty()) pv = storage.GetPersistentVolume(claim->spec.volume_name);
    if (pv != nullptr) {
      if (!pv->spec.csi && !migrated) continue;  // in-tree, not migrated on this node
      if (std::optional<CsiVolumeId> id = CsiVolumeOf(*pv)) out.push_back(*std::move(id));
      continue;
    }
    // Unbound (or its PV is missing): the driver the class provisions with.
    const std::string class_name = kube::ClaimClass(*claim);
    if (class_name.empty()) continue;
    auto storage_class = storage.GetStorageClass(class_name);
    if (storage_class == nullptr) continue;
    std::string driver = storage_class->provisioner;
    if (std::string_view translated = CsiDriverForInTreePlugin(driver); !translated.empty()) {
      if (!migrated) continue;
      driver = std::string(translated);
    }
    if (driver.empty()) continue;
    out.push_back({std::move(driver), absl::StrCat(unbound_prefix, "-", ns, "/", claim_name)});
  }
  return {};
}

// The pod's volumes, for nodes with and without a CSINode, computed once per cycle.
class PreFilterState final : public StateData {
 public:
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
  VolumesError error;
  VolumeList with_csi_node;
  VolumeList without_csi_node;
};

constexpr absl::string_view kStateKey = "PreFilterNodeVolumeLimits";

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> NodeVolumeLimits::New(const PluginArgs& /*args*/,
                                                              Handle& handle) {
  return std::make_unique<NodeVolumeLimits>(handle);
}

PluginDescriptor NodeVolumeLimits::Descriptor() { return DescriptorFor<NodeVolumeLimits>(); }

NodeVolumeLimits::NodeVolumeLimits(Handle& handle) : handle_(handle) {
  std::random_device rd;
  unbound_prefix_ =
      absl::StrCat(absl::Hex(rd(), absl::kZeroPad8), absl::Hex(rd(), absl::kZeroPad8),
                   absl::Hex(rd(), absl::kZeroPad8), absl::Hex(rd(), absl::kZeroPad8));
}

Status NodeVolumeLimits::PreFilter(CycleState& state, const kube::Pod& pod,
                                   std::span<const NodeInfo* const> /*nodes*/,
                                   PreFilterResult& /*result*/) {
  if (!NeedsCounting(pod)) return Status::Skip();
  auto s = std::make_unique<PreFilterState>();
  const StorageLister& storage = handle_.storage_lister();
  s->error = PodVolumes(pod, true, storage, unbound_prefix_, true, s->with_csi_node);
  if (s->error.code == Code::kSuccess) {
    PodVolumes(pod, false, storage, unbound_prefix_, true, s->without_csi_node);
    SortUnique(s->with_csi_node);
    SortUnique(s->without_csi_node);
  }
  state.Write(kStateKey, std::move(s));
  return Status();
}

Status NodeVolumeLimits::Filter(const CycleState& state, const kube::Pod& /*pod*/,
                                const NodeInfo& node_info) const {
  const kube::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found").WithPlugin(kName);
  const absl::StatusOr<const PreFilterState*> read = state.Read<PreFilterState>(kStateKey);
  if (!read.ok()) return Status::FromAbsl(read.status()).WithPlugin(kName);
  const PreFilterState& s = **read;
  if (s.error.code == Code::kError) return Status::Error(s.error.message).WithPlugin(kName);
  if (s.error.code != Code::kSuccess) {
    return Status::UnschedulableAndUnresolvable(s.error.message).WithPlugin(kName);
  }
  const StorageLister& storage = handle_.storage_lister();
  const std::shared_ptr<const kube::CSINode> csi_node = storage.GetCSINode(node->metadata.name);
  const VolumeList& wanted = csi_node != nullptr ? s.with_csi_node : s.without_csi_node;
  if (wanted.empty()) return Status();

  // The limit of each driver the pod uses: the CSINode's count, else the node's
  // allocatable attachable-volumes-* entry of the driver's key.
  bool legacy_limits = false;
  for (const auto& [name, quantity] : node->status.allocatable) {
    legacy_limits |= kube::IsAttachableVolumeResourceName(name);
  }
  std::vector<std::pair<std::string_view, int64_t>> limits;  // driver -> limit
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (i > 0 && wanted[i].driver == wanted[i - 1].driver) continue;
    const std::string& driver = wanted[i].driver;
    std::optional<int64_t> limit;
    if (csi_node != nullptr) {
      for (const kube::CSINodeDriver& d : csi_node->drivers) {
        if (d.name == driver && d.allocatable_count) limit = *d.allocatable_count;
      }
    }
    if (!limit && legacy_limits) {
      auto it = node->status.allocatable.find(VolumeLimitKey(driver));
      if (it != node->status.allocatable.end()) limit = it->second.Value();
    }
    if (limit) limits.emplace_back(driver, *limit);
  }
  if (limits.empty()) return Status();
  // An upper bound first: every volume of every pod on the node plus the pod's own. At
  // or under every limit, no driver can exceed its limit (the usual case; no lookups).
  int64_t bound = static_cast<int64_t>(wanted.size());
  for (const PodInfo& p : node_info.pods())
    bound += static_cast<int64_t>(p.pod->spec.volumes.size());
  bool may_exceed = false;
  for (const auto& [driver, limit] : limits) may_exceed |= bound > limit;
  if (!may_exceed) return Status();

  VolumeList attached;
  for (const PodInfo& p : node_info.pods()) {
    if (p.pod->spec.volumes.empty()) continue;
    PodVolumes(*p.pod, csi_node != nullptr, storage, unbound_prefix_, false, attached);
  }
  SortUnique(attached);
  for (const auto& [driver, limit] : limits) {
    int64_t count = 0;
    for (const CsiVolumeId& a : attached) count += a.driver == driver;
    for (const CsiVolumeId& w : wanted) {
      if (w.driver == driver && !std::binary_search(attached.begin(), attached.end(), w, Less)) {
        ++count;
      }
    }
    if (count > limit) {
      return Status::Unschedulable(kErrReasonMaxVolumeCountExceeded).WithPlugin(kName);
    }
  }
  return Status();
}

std::vector<ClusterEvent> NodeVolumeLimits::EventsToRegister() const {
  return {
      ClusterEvent{EventResource::kCSINode, ActionType::kAdd, "CSINodeAdd"},
      kAssignedPodDeleteEvent,
      ClusterEvent{EventResource::kPersistentVolumeClaim, ActionType::kAdd, "PvcAdd"},
  };
}

absl::StatusOr<QueueingHint> NodeVolumeLimits::Hint(const kube::Pod& /*pod*/,
                                                    const ClusterEvent& event,
                                                    const EventObjects& objects) const {
  if (event.resource != EventResource::kPod) return QueueingHint::kQueue;
  // A deleted pod frees attachments only if it was scheduled and had volumes we count.
  const kube::Pod* deleted = objects.old_pod;
  if (deleted == nullptr) return QueueingHint::kQueue;
  return !deleted->spec.node_name.empty() && NeedsCounting(*deleted) ? QueueingHint::kQueue
                                                                     : QueueingHint::kQueueSkip;
}

}  // namespace trimaran::sched::plugins
