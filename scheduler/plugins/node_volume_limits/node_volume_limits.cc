#include "scheduler/plugins/node_volume_limits/node_volume_limits.h"

#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/plugins/node_volume_limits/csi_translation.h"

namespace trimaran::sched::plugins {
namespace {


// driver -> handles.
using VolumeSet = std::map<std::string, std::set<std::string>, std::less<>>;

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

Status NodeVolumeLimits::PreFilter(CycleState& /*state*/, const kube::Pod& pod,
                                   std::span<const NodeInfo* const> /*nodes*/,
                                   PreFilterResult& /*result*/) {
  return NeedsCounting(pod) ? Status() : Status::Skip();
}

namespace {

// Adds `pod`'s counted volumes on a node with CSINode `csi_node` (may be null) to
// `out`. For the incoming pod (`strict`) a missing claim is an error; for the pods
// already on the node it is skipped.
VolumesError PodVolumes(const kube::Pod& pod, const kube::CSINode* csi_node,
                        const StorageLister& storage, const std::string& unbound_prefix,
                        bool strict, VolumeSet& out) {
  const bool migrated = csi_node != nullptr;
  auto add = [&out](std::string driver, std::string handle) {
    out[std::move(driver)].insert(std::move(handle));
  };
  for (const kube::Volume& v : pod.spec.volumes) {
    if (!v.persistent_volume_claim && !v.ephemeral) {
      if (std::optional<CsiVolumeId> id = CsiVolumeOfInline(v); id && migrated) {
        add(std::move(id->driver), std::move(id->handle));
      }
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
      std::optional<CsiVolumeId> id = CsiVolumeOf(*pv);
      if (!id) continue;
      if (!pv->spec.csi && !migrated) continue;  // in-tree, not migrated on this node
      add(std::move(id->driver), std::move(id->handle));
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
    add(std::move(driver), absl::StrCat(unbound_prefix, "-", ns, "/", claim_name));
  }
  return {};
}

}  // namespace

Status NodeVolumeLimits::Filter(const CycleState& /*state*/, const kube::Pod& pod,
                                const NodeInfo& node_info) const {
  const kube::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found").WithPlugin(kName);
  const StorageLister& storage = handle_.storage_lister();
  const std::shared_ptr<const kube::CSINode> csi_node = storage.GetCSINode(node->metadata.name);

  VolumeSet wanted;
  if (VolumesError e = PodVolumes(pod, csi_node.get(), storage, unbound_prefix_, true, wanted);
      e.code != Code::kSuccess) {
    if (e.code == Code::kError) return Status::Error(e.message).WithPlugin(kName);
    return Status::UnschedulableAndUnresolvable(e.message).WithPlugin(kName);
  }
  if (wanted.empty()) return Status();

  // Limits: legacy allocatable entries, then the CSINode's counts.
  std::map<std::string, int64_t, std::less<>> limits;
  for (const auto& [name, quantity] : node->status.allocatable) {
    if (kube::IsAttachableVolumeResourceName(name)) limits[name] = quantity.Value();
  }
  if (csi_node != nullptr) {
    for (const kube::CSINodeDriver& d : csi_node->drivers) {
      if (d.allocatable_count) limits[VolumeLimitKey(d.name)] = *d.allocatable_count;
    }
  }
  if (limits.empty()) return Status();

  VolumeSet attached;
  for (const PodInfo& p : node_info.pods()) {
    PodVolumes(*p.pod, csi_node.get(), storage, unbound_prefix_, false, attached);
  }
  for (const auto& [driver, handles] : wanted) {
    auto limit = limits.find(VolumeLimitKey(driver));
    if (limit == limits.end()) continue;
    int64_t count = 0;
    auto on_node = attached.find(driver);
    if (on_node != attached.end()) count = static_cast<int64_t>(on_node->second.size());
    for (const std::string& h : handles) {
      if (on_node == attached.end() || !on_node->second.contains(h)) ++count;
    }
    if (count > limit->second) {
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

}  // namespace trimaran::sched::plugins
