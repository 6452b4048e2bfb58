#include "scheduler/plugins/volume_binding/volume_binding.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/logging.h"
#include "scheduler/plugins/helper/csi_topology.h"
#include "scheduler/plugins/helper/label_selector.h"
#include "scheduler/plugins/helper/node_affinity.h"
#include "scheduler/plugins/helper/pod_claims.h"

namespace trimaran::sched::plugins {
namespace {

using ClaimPtr = std::shared_ptr<const kube::PersistentVolumeClaim>;
using VolumePtr = std::shared_ptr<const kube::PersistentVolume>;

constexpr absl::string_view kNoProvisioner = "kubernetes.io/no-provisioner";

// The result of Filter for one node: what Reserve assumes and PreBind writes.
struct PodVolumes {
  std::vector<std::pair<ClaimPtr, VolumePtr>> static_bindings;
  std::vector<ClaimPtr> dynamic_provisions;
};

class State final : public StateData {
 public:
  std::unique_ptr<StateData> Clone() const override {
    auto c = std::make_unique<State>();
    c->bound = bound;
    c->bound_volumes = bound_volumes;
    c->bound_migrated = bound_migrated;
    c->delayed = delayed;
    c->volumes_by_class = volumes_by_class;
    c->all_bound = all_bound;
    c->node = node;
    c->capacities = capacities;
    absl::MutexLock lock(&mu_);
    absl::MutexLock clone_lock(&c->mu_);
    c->by_node_ = by_node_;
    c->assumed_ = assumed_;
    return c;
  }

  void SetNode(const std::string& name, PodVolumes v) const {
    absl::MutexLock lock(&mu_);
    by_node_[name] = std::move(v);
  }
  std::optional<PodVolumes> ForNode(absl::string_view name) const {
    absl::MutexLock lock(&mu_);
    auto it = by_node_.find(name);
    if (it == by_node_.end()) return std::nullopt;
    return it->second;
  }
  void SetAssumed(PodVolumes v) {
    absl::MutexLock lock(&mu_);
    assumed_ = std::move(v);
  }
  std::optional<PodVolumes> Assumed() const {
    absl::MutexLock lock(&mu_);
    return assumed_;
  }

  std::vector<ClaimPtr> bound;
  // The PV of each bound claim (nullptr when missing), read once per cycle.
  std::vector<VolumePtr> bound_volumes;
  // Parallel to bound_volumes: an in-tree PV's plugin and its CSI translation (translated
  // once per cycle; used on nodes that migrated the plugin), else ("", nullptr).
  std::vector<std::pair<std::string_view, VolumePtr>> bound_migrated;
  std::vector<ClaimPtr> delayed;
  // The candidate PVs of each delayed claim's class, captured once per cycle.
  std::map<std::string, std::vector<VolumePtr>, std::less<>> volumes_by_class;
  bool all_bound = false;
  // Every CSIStorageCapacity, captured once per cycle for pods with delayed claims
  // (empty when capacity tracking is off).
  std::vector<std::shared_ptr<const kube::CSIStorageCapacity>> capacities;
  // The node chosen in Reserve (its labels are read again in PreBind).
  std::shared_ptr<const kube::Node> node;

 private:
  mutable absl::Mutex mu_;
  mutable std::map<std::string, PodVolumes, std::less<>> by_node_ ABSL_GUARDED_BY(mu_);
  std::optional<PodVolumes> assumed_ ABSL_GUARDED_BY(mu_);
};

bool FullyBound(const kube::PersistentVolumeClaim& claim) {
  return !claim.spec.volume_name.empty() &&
         claim.metadata.annotations.contains(std::string_view(kube::kAnnBindCompleted));
}

bool AffinityAdmits(const kube::PersistentVolume& pv, const kube::Node& node) {
  if (!pv.spec.node_affinity) return true;
  return helper::NodeSelectorMatcher(*pv.spec.node_affinity).Matches(node);
}

// As AffinityAdmits, for a bound PV checked on a node whose CSINode is `csi_node`
// (nullptr: none): an in-tree PV whose plugin the node has migrated to CSI is checked
// with its zone translated to the CSI driver's topology key (helper/csi_topology.h), as
// upstream's binder does before CheckNodeAffinity.
bool BoundAffinityAdmits(const kube::PersistentVolume& pv, const kube::Node& node,
                         const kube::CSINode* csi_node) {
  const std::string_view plugin = helper::InTreePluginOf(pv);
  if (plugin.empty() || !helper::PluginMigratedOnNode(plugin, csi_node)) {
    return AffinityAdmits(pv, node);
  }
  return AffinityAdmits(helper::TranslateInTreeTopology(pv, helper::CsiTopologyKey(plugin)), node);
}

std::string_view SelectedNode(const kube::PersistentVolumeClaim& claim) {
  auto it = claim.metadata.annotations.find(std::string_view(kube::kAnnSelectedNode));
  return it == claim.metadata.annotations.end() ? std::string_view() : it->second;
}

std::string_view ModeOrFilesystem(const std::optional<std::string>& mode) {
  return mode ? std::string_view(*mode) : kube::kVolumeModeFilesystem;
}

bool ClaimRefIs(const kube::PersistentVolume& pv, const kube::PersistentVolumeClaim& claim) {
  const auto& ref = pv.spec.claim_ref;
  return ref && ref->name == claim.metadata.name &&
         ref->namespace_name == claim.metadata.namespace_name &&
         (ref->uid.empty() || ref->uid == claim.metadata.uid);
}

bool HasAccessModes(const kube::PersistentVolume& pv, const kube::PersistentVolumeClaim& claim) {
  for (const std::string& m : claim.spec.access_modes) {
    if (std::find(pv.spec.access_modes.begin(), pv.spec.access_modes.end(), m) ==
        pv.spec.access_modes.end()) {
      return false;
    }
  }
  return true;
}

// The PV for `claim` on `node` among `volumes` (skipping `taken`), or nullptr.
VolumePtr FindMatchingVolume(const kube::PersistentVolumeClaim& claim,
                             const std::vector<VolumePtr>& volumes,
                             const std::vector<std::string>& taken, const kube::Node& node) {
  absl::StatusOr<helper::Selector> selector = helper::Selector::Everything();
  if (claim.spec.selector) selector = helper::Selector::Compile(*claim.spec.selector);
  const int64_t request = kube::ClaimRequestBytes(claim);
  const std::string claim_class = kube::ClaimClass(claim);
  VolumePtr best;
  int64_t best_capacity = 0;
  for (const VolumePtr& pv : volumes) {
    if (std::find(taken.begin(), taken.end(), pv->metadata.name) != taken.end()) continue;
    if (ClaimRefIs(*pv, claim)) {
      // Pre-bound to this claim: that PV or none.
      return AffinityAdmits(*pv, node) ? pv : nullptr;
    }
    if (pv->spec.claim_ref) continue;
    const int64_t capacity = pv->spec.capacity ? pv->spec.capacity->Value() : 0;
    if (capacity < request) continue;
    if (ModeOrFilesystem(pv->spec.volume_mode) != ModeOrFilesystem(claim.spec.volume_mode)) {
      continue;
    }
    if (pv->metadata.deletion_timestamp) continue;
    if (pv->phase != kube::kPhaseAvailable) continue;
    if (!selector.ok() || !selector->Matches(pv->metadata.labels)) continue;
    if (kube::VolumeClass(*pv) != claim_class) continue;
    if (!AffinityAdmits(*pv, node)) continue;
    if (!HasAccessModes(*pv, claim)) continue;
    if (best == nullptr || capacity < best_capacity) {
      best = pv;
      best_capacity = capacity;
    }
  }
  return best;
}

bool TopologyAllows(const kube::StorageClass& sc, const kube::Node& node) {
  if (sc.allowed_topologies.empty()) return true;
  for (const kube::TopologySelectorTerm& term : sc.allowed_topologies) {
    bool all = true;
    for (const kube::TopologySelectorLabelRequirement& r : term.match_label_expressions) {
      auto it = node.metadata.labels.find(r.key);
      if (it == node.metadata.labels.end() ||
          std::find(r.values.begin(), r.values.end(), it->second) == r.values.end()) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

// Whether `node` can get a volume of `claim` provisioned from `sc` (spec §4.4, upstream's
// hasEnoughCapacity): yes without a storage request, without a CSIDriver named after the
// provisioner or when that driver does not ask for capacity checks; else some capacity
// object of the class whose nodeTopology admits the node must have maximumVolumeSize
// (else capacity) >= the request.
bool HasEnoughCapacity(const StorageLister& lister, const State& s,
                       const kube::PersistentVolumeClaim& claim, const kube::StorageClass& sc,
                       const kube::Node& node) {
  if (!claim.spec.request || !lister.CapacityTracking()) return true;
  const std::shared_ptr<const kube::CSIDriver> driver = lister.GetCSIDriver(sc.provisioner);
  if (driver == nullptr || !driver->storage_capacity.value_or(false)) return true;
  const int64_t request = claim.spec.request->Value();
  for (const auto& capacity : s.capacities) {
    if (capacity->storage_class_name != sc.metadata.name || !capacity->node_topology) continue;
    absl::StatusOr<helper::Selector> topology = helper::Selector::Compile(*capacity->node_topology);
    if (!topology.ok() || !topology->Matches(node.metadata.labels)) continue;
    const std::optional<kube::Quantity> limit = kube::CapacityLimit(*capacity);
    if (limit && limit->Value() >= request) return true;
  }
  return false;
}

Status Unresolvable(std::string reason) {
  return Status::UnschedulableAndUnresolvable(reason).WithPlugin(VolumeBinding::kName);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> VolumeBinding::New(const PluginArgs& args, Handle& handle) {
  absl::StatusOr<VolumeBindingArgs> decoded = DecodeVolumeBindingArgs(args);
  if (!decoded.ok()) return decoded.status();
  return std::make_unique<VolumeBinding>(*decoded, handle);
}

PluginDescriptor VolumeBinding::Descriptor() {
  PluginDescriptor d = DescriptorFor<VolumeBinding>();
  d.validate_args = ArgsValidatorFrom(&DecodeVolumeBindingArgs);
  return d;
}

VolumeBinding::VolumeBinding(VolumeBindingArgs args, Handle& handle)
    : args_(args), handle_(handle), cache_(handle.storage_lister()) {}

Status VolumeBinding::PreFilter(CycleState& state, const kube::Pod& pod,
                                std::span<const NodeInfo* const> /*nodes*/,
                                PreFilterResult& /*result*/) {
  const std::string& ns = pod.metadata.namespace_name;
  std::vector<ClaimPtr> claims;
  for (const kube::Volume& v : pod.spec.volumes) {
    if (!v.persistent_volume_claim && !v.ephemeral) continue;
    const std::string name = v.ephemeral ? absl::StrCat(pod.metadata.name, "-", v.name)
                                         : v.persistent_volume_claim->claim_name;
    ClaimPtr claim = cache_.GetClaim(ns, name);
    if (claim == nullptr) {
      if (v.ephemeral) {
        return Unresolvable(absl::StrCat(
            "waiting for ephemeral volume controller to create the persistentvolumeclaim \"", name,
            "\""));
      }
      return Unresolvable(absl::StrCat("persistentvolumeclaim \"", name, "\" not found"));
    }
    if (claim->phase == kube::kPhaseLost) {
      return Unresolvable(absl::StrCat("persistentvolumeclaim \"", name,
                                       "\" bound to non-existent persistentvolume \"",
                                       claim->spec.volume_name, "\""));
    }
    if (claim->metadata.deletion_timestamp) {
      return Unresolvable(absl::StrCat("persistentvolumeclaim \"", name, "\" is being deleted"));
    }
    if (v.ephemeral) {
      const kube::OwnerReference* owner = kube::ControllerRef(claim->metadata);
      if (owner == nullptr || owner->uid != pod.metadata.uid) {
        return Unresolvable(absl::StrCat("PVC ", ns, "/", name, " was not created for pod ", ns,
                                         "/", pod.metadata.name, " (pod is not owner)"));
      }
    }
    claims.push_back(std::move(claim));
  }
  auto s = std::make_unique<State>();
  if (claims.empty()) {
    s->all_bound = true;
    state.Write(kStateKey, std::move(s));
    return Status::Skip();
  }
  for (ClaimPtr& claim : claims) {
    if (FullyBound(*claim)) {
      VolumePtr pv = cache_.GetVolume(claim->spec.volume_name);
      const std::string_view plugin = pv ? helper::InTreePluginOf(*pv) : std::string_view();
      s->bound_migrated.emplace_back(
          plugin, plugin.empty()
                      ? nullptr
                      : std::make_shared<const kube::PersistentVolume>(
                            helper::TranslateInTreeTopology(*pv, helper::CsiTopologyKey(plugin))));
      s->bound_volumes.push_back(std::move(pv));
      s->bound.push_back(std::move(claim));
      continue;
    }
    const std::string class_name = kube::ClaimClass(*claim);
    bool delayed = false;
    if (!class_name.empty() && claim->spec.volume_name.empty()) {
      if (auto sc = handle_.storage_lister().GetStorageClass(class_name)) {
        if (!sc->volume_binding_mode) {
          return Status::Error(absl::StrCat("VolumeBindingMode not set for StorageClass \"",
                                            class_name, "\""))
              .WithPlugin(kName);
        }
        delayed = *sc->volume_binding_mode == kube::kBindingWaitForFirstConsumer;
      }
    }
    if (!delayed) return Unresolvable(std::string(kErrReasonUnboundImmediate));
    if (!s->volumes_by_class.contains(class_name)) {
      s->volumes_by_class[class_name] = cache_.VolumesOfClass(class_name);
    }
    s->delayed.push_back(std::move(claim));
  }
  s->all_bound = s->delayed.empty();
  if (!s->delayed.empty() && handle_.storage_lister().CapacityTracking()) {
    s->capacities = handle_.storage_lister().ListCSIStorageCapacities();
  }
  state.Write(kStateKey, std::move(s));
  return Status();
}

Status VolumeBinding::Filter(const CycleState& state, const kube::Pod& /*pod*/,
                             const NodeInfo& node_info) const {
  const kube::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found").WithPlugin(kName);
  const absl::StatusOr<const State*> read = state.Read<State>(kStateKey);
  if (!read.ok()) return Status::FromAbsl(read.status()).WithPlugin(kName);
  const State& s = **read;

  bool bound_satisfied = true, unbound_satisfied = true, pv_found = true, sufficient_storage = true;
  std::optional<std::shared_ptr<const kube::CSINode>> csi_node;  // read once, when needed
  for (size_t i = 0; i < s.bound_volumes.size(); ++i) {
    const VolumePtr& pv = s.bound_volumes[i];
    if (pv == nullptr) {
      pv_found = false;
      continue;
    }
    const auto& [plugin, translated] = s.bound_migrated[i];
    const kube::PersistentVolume* checked = pv.get();
    if (!plugin.empty()) {
      if (!csi_node) csi_node = handle_.storage_lister().GetCSINode(node->metadata.name);
      if (helper::PluginMigratedOnNode(plugin, csi_node->get())) checked = translated.get();
    }
    if (!AffinityAdmits(*checked, *node)) {
      bound_satisfied = false;
      break;
    }
  }

  PodVolumes result;
  std::vector<ClaimPtr> to_match, to_provision;
  for (const ClaimPtr& claim : s.delayed) {
    const std::string_view selected = SelectedNode(*claim);
    if (selected.empty()) {
      to_match.push_back(claim);
    } else if (selected != node->metadata.name) {
      unbound_satisfied = false;
      to_match.clear();
      to_provision.clear();
      break;
    } else {
      to_provision.push_back(claim);
    }
  }
  if (unbound_satisfied && !to_match.empty()) {
    std::stable_sort(to_match.begin(), to_match.end(), [](const ClaimPtr& a, const ClaimPtr& b) {
      return kube::ClaimRequestBytes(*a) < kube::ClaimRequestBytes(*b);
    });
    std::vector<std::string> taken;
    for (const ClaimPtr& claim : to_match) {
      auto it = s.volumes_by_class.find(kube::ClaimClass(*claim));
      VolumePtr pv;
      if (it != s.volumes_by_class.end()) pv = FindMatchingVolume(*claim, it->second, taken, *node);
      if (pv == nullptr) {
        to_provision.push_back(claim);
        unbound_satisfied = false;
        continue;
      }
      taken.push_back(pv->metadata.name);
      result.static_bindings.emplace_back(claim, std::move(pv));
    }
  }
  if (!to_provision.empty()) {
    unbound_satisfied = true;
    for (const ClaimPtr& claim : to_provision) {
      const std::string class_name = kube::ClaimClass(*claim);
      if (class_name.empty()) {
        return Status::Error(absl::StrCat("no class for claim \"", claim->metadata.namespace_name,
                                          "/", claim->metadata.name, "\""))
            .WithPlugin(kName);
      }
      auto sc = handle_.storage_lister().GetStorageClass(class_name);
      if (sc == nullptr) {
        return Status::Error(absl::StrCat("failed to find storage class \"", class_name, "\""))
            .WithPlugin(kName);
      }
      if (sc->provisioner.empty() || sc->provisioner == kNoProvisioner ||
          !TopologyAllows(*sc, *node)) {
        unbound_satisfied = false;
        continue;
      }
      if (!HasEnoughCapacity(handle_.storage_lister(), s, *claim, *sc, *node)) {
        sufficient_storage = false;
        continue;
      }
      result.dynamic_provisions.push_back(claim);
    }
  }

  std::vector<std::string> reasons;
  if (!bound_satisfied) reasons.emplace_back(kErrReasonNodeConflict);
  if (!unbound_satisfied) reasons.emplace_back(kErrReasonBindConflict);
  if (!sufficient_storage) reasons.emplace_back(kErrReasonNotEnoughSpace);
  if (!pv_found) reasons.emplace_back(kErrReasonPVNotExist);
  if (!reasons.empty()) {
    return Status::UnschedulableAndUnresolvable(std::move(reasons)).WithPlugin(kName);
  }
  // Only pods with claims to bind need the per-node result (Reserve).
  if (!s.delayed.empty()) s.SetNode(node->metadata.name, std::move(result));
  return Status();
}

Status VolumeBinding::Reserve(CycleState& state, const kube::Pod& /*pod*/,
                              absl::string_view node_name) {
  absl::StatusOr<State*> read = state.ReadMutable<State>(kStateKey);
  if (!read.ok()) return Status();  // PreFilter skipped: nothing to bind
  State& s = **read;
  std::optional<PodVolumes> volumes = s.ForNode(node_name);
  if (s.all_bound || !volumes) {
    s.all_bound = true;
    return Status();
  }
  if (absl::StatusOr<const NodeInfo*> ni = handle_.snapshot_lister().NodeInfos().Get(node_name);
      ni.ok()) {
    s.node = (*ni)->shared_node();
  }
  // Claims that got bound meanwhile need nothing.
  bool all_bound = true;
  for (const ClaimPtr& c : s.delayed) {
    ClaimPtr now = cache_.GetClaim(c->metadata.namespace_name, c->metadata.name);
    all_bound &= now != nullptr && FullyBound(*now);
  }
  if (all_bound) {
    s.all_bound = true;
    return Status();
  }
  PodVolumes assumed;
  auto restore = [this, &assumed] {
    for (const auto& [claim, pv] : assumed.static_bindings) cache_.RestoreVolume(pv->metadata.name);
    for (const ClaimPtr& claim : assumed.dynamic_provisions) {
      cache_.RestoreClaim(claim->metadata.namespace_name, claim->metadata.name);
    }
  };
  for (const auto& [claim, pv] : volumes->static_bindings) {
    kube::PersistentVolume copy = *pv;
    if (!ClaimRefIs(copy, *claim) || copy.spec.claim_ref->uid.empty()) {
      copy.spec.claim_ref = kube::ObjectReference{
          .api_version = "v1",
          .kind = "PersistentVolumeClaim",
          .namespace_name = claim->metadata.namespace_name,
          .name = claim->metadata.name,
          .uid = claim->metadata.uid,
          .resource_version = claim->metadata.resource_version,
      };
      copy.metadata.annotations[std::string(kube::kAnnBoundByController)] = "yes";
    }
    auto shared = std::make_shared<const kube::PersistentVolume>(copy);
    if (absl::Status st = cache_.AssumeVolume(std::move(copy)); !st.ok()) {
      restore();
      return Status::Error(st.ToString()).WithPlugin(kName);
    }
    assumed.static_bindings.emplace_back(claim, std::move(shared));
  }
  for (const ClaimPtr& claim : volumes->dynamic_provisions) {
    kube::PersistentVolumeClaim copy = *claim;
    copy.metadata.annotations[std::string(kube::kAnnSelectedNode)] = std::string(node_name);
    auto shared = std::make_shared<const kube::PersistentVolumeClaim>(copy);
    if (absl::Status st = cache_.AssumeClaim(std::move(copy)); !st.ok()) {
      restore();
      return Status::Error(st.ToString()).WithPlugin(kName);
    }
    assumed.dynamic_provisions.push_back(std::move(shared));
  }
  s.SetAssumed(std::move(assumed));
  return Status();
}

void VolumeBinding::Unreserve(CycleState& state, const kube::Pod& /*pod*/,
                              absl::string_view /*node_name*/) {
  absl::StatusOr<State*> read = state.ReadMutable<State>(kStateKey);
  if (!read.ok()) return;
  std::optional<PodVolumes> assumed = (*read)->Assumed();
  if (!assumed) return;
  for (const auto& [claim, pv] : assumed->static_bindings) cache_.RestoreVolume(pv->metadata.name);
  for (const ClaimPtr& claim : assumed->dynamic_provisions) {
    cache_.RestoreClaim(claim->metadata.namespace_name, claim->metadata.name);
  }
}

Status VolumeBinding::PreBindPreFlight(CycleState& state, const kube::Pod& pod,
                                       absl::string_view node_name) {
  (void)pod;
  (void)node_name;
  absl::StatusOr<const State*> read = state.Read<State>(kStateKey);
  if (!read.ok() || (*read)->all_bound) return Status::Skip();
  const std::optional<PodVolumes> assumed = (*read)->Assumed();
  if (!assumed || (assumed->static_bindings.empty() && assumed->dynamic_provisions.empty())) {
    return Status::Skip();
  }
  return Status();
}

Status VolumeBinding::PreBind(CycleState& state, const kube::Pod& pod,
                              absl::string_view node_name) {
  absl::StatusOr<State*> read = state.ReadMutable<State>(kStateKey);
  if (!read.ok()) return Status();
  State& s = **read;
  if (s.all_bound) return Status();
  std::optional<PodVolumes> assumed = s.Assumed();
  if (!assumed) return Status();
  kube::Client& client = handle_.client();

  // 1. The API writes, in order; what is written stays written on a later failure.
  std::map<std::string, int64_t> written_pv, written_claim;  // key -> resourceVersion
  size_t done_pvs = 0, done_claims = 0;
  auto fail = [&](const absl::Status& st) {
    for (size_t i = done_pvs; i < assumed->static_bindings.size(); ++i) {
      cache_.RestoreVolume(assumed->static_bindings[i].second->metadata.name);
    }
    for (size_t i = done_claims; i < assumed->dynamic_provisions.size(); ++i) {
      const ClaimPtr& c = assumed->dynamic_provisions[i];
      cache_.RestoreClaim(c->metadata.namespace_name, c->metadata.name);
    }
    return Status::Error(absl::StrCat("binding volumes: ", st.message())).WithPlugin(kName);
  };
  for (const auto& [claim, pv] : assumed->static_bindings) {
    kube::StoragePatch patch{.resource_version = pv->metadata.resource_version};
    if (auto it = pv->metadata.annotations.find(std::string_view(kube::kAnnBoundByController));
        it != pv->metadata.annotations.end()) {
      patch.annotations[it->first] = it->second;
    }
    patch.claim_ref = pv->spec.claim_ref;
    absl::StatusOr<kube::StorageObject> out = client.PatchStorageObject(
        kube::StorageResource::kPersistentVolumes, "", pv->metadata.name, patch);
    if (!out.ok()) return fail(out.status());
    written_pv[pv->metadata.name] = ResourceVersionOf(out->metadata);
    if (auto* typed = std::get_if<kube::PersistentVolume>(&out->object)) {
      (void)cache_.AssumeVolume(*typed);
    }
    ++done_pvs;
  }
  for (const ClaimPtr& claim : assumed->dynamic_provisions) {
    kube::StoragePatch patch{.resource_version = claim->metadata.resource_version};
    patch.annotations[std::string(kube::kAnnSelectedNode)] = std::string(node_name);
    absl::StatusOr<kube::StorageObject> out =
        client.PatchStorageObject(kube::StorageResource::kPersistentVolumeClaims,
                                  claim->metadata.namespace_name, claim->metadata.name, patch);
    if (!out.ok()) return fail(out.status());
    written_claim[claim->metadata.namespace_name + "/" + claim->metadata.name] =
        ResourceVersionOf(out->metadata);
    if (auto* typed = std::get_if<kube::PersistentVolumeClaim>(&out->object)) {
      (void)cache_.AssumeClaim(*typed);
    }
    ++done_claims;
  }

  // 2. Wait for the PV controller (and provisioners) to finish.
  const std::shared_ptr<const kube::Node> node = s.node;
  const std::shared_ptr<const kube::CSINode> csi_node =
      node == nullptr ? nullptr : handle_.storage_lister().GetCSINode(node->metadata.name);
  auto check = [&]() -> absl::StatusOr<bool> {
    if (!handle_.PodExists(pod)) return absl::NotFoundError("pod does not exist any more");
    bool done = true;
    for (const auto& [claim, pv] : assumed->static_bindings) {
      VolumePtr api_pv = cache_.GetApiVolume(pv->metadata.name);
      if (api_pv == nullptr ||
          ResourceVersionOf(api_pv->metadata) < written_pv[pv->metadata.name]) {
        done = false;
        continue;
      }
      if (node != nullptr && !BoundAffinityAdmits(*api_pv, *node, csi_node.get())) {
        return absl::InternalError(absl::StrCat(
            "pv \"", pv->metadata.name, "\" node affinity doesn't match node \"", node_name, "\""));
      }
      if (!api_pv->spec.claim_ref || api_pv->spec.claim_ref->uid.empty()) {
        return absl::InternalError(
            absl::StrCat("ClaimRef got reset for pv \"", pv->metadata.name, "\""));
      }
      ClaimPtr api_claim = cache_.GetApiClaim(claim->metadata.namespace_name, claim->metadata.name);
      if (api_claim == nullptr || !FullyBound(*api_claim)) done = false;
    }
    for (const ClaimPtr& claim : assumed->dynamic_provisions) {
      const std::string key = claim->metadata.namespace_name + "/" + claim->metadata.name;
      ClaimPtr api_claim = cache_.GetApiClaim(claim->metadata.namespace_name, claim->metadata.name);
      if (api_claim == nullptr || ResourceVersionOf(api_claim->metadata) < written_claim[key]) {
        done = false;
        continue;
      }
      const std::string_view selected = SelectedNode(*api_claim);
      if (!api_claim->metadata.annotations.contains(std::string_view(kube::kAnnSelectedNode))) {
        return absl::InternalError(
            absl::StrCat("selectedNode annotation reset for PVC \"", claim->metadata.name, "\""));
      }
      if (selected != std::string_view(node_name.data(), node_name.size())) {
        return absl::InternalError(
            absl::StrCat("provisioning failed for PVC \"", claim->metadata.name, "\""));
      }
      if (!api_claim->spec.volume_name.empty()) {
        VolumePtr api_pv = cache_.GetApiVolume(api_claim->spec.volume_name);
        if (api_pv == nullptr) {
          done = false;
          continue;
        }
        if (node != nullptr && !BoundAffinityAdmits(*api_pv, *node, csi_node.get())) {
          return absl::InternalError(absl::StrCat("pv \"", api_pv->metadata.name,
                                                  "\" node affinity doesn't match node \"",
                                                  node_name, "\""));
        }
      }
      if (!FullyBound(*api_claim)) done = false;
    }
    return done;
  };
  const Clock& clock = handle_.clock();
  const kube::CallOptions options = handle_.binding_call_options();
  const absl::Time deadline = clock.Now() + absl::Seconds(args_.bind_timeout_seconds);
  // The wait ends early when the binding is fenced (leadership lost) or the scheduler
  // shuts down.
  std::stop_source cancel;
  std::stop_callback on_fence(options.stop, [&cancel] { cancel.request_stop(); });
  std::stop_callback on_shutdown(handle_.shutdown_token(), [&cancel] { cancel.request_stop(); });
  while (true) {
    absl::StatusOr<bool> done = check();
    if (!done.ok()) {
      return Status::Error(absl::StrCat("binding volumes: ", done.status().message()))
          .WithPlugin(kName);
    }
    if (*done) return Status();
    const absl::Time now = clock.Now();
    if (now >= deadline) {
      return Status::Error(absl::StrCat("binding volumes: context deadline exceeded (pod ",
                                        pod.metadata.namespace_name, "/", pod.metadata.name, ")"))
          .WithPlugin(kName);
    }
    if (!clock.SleepUntil(std::min(now + absl::Seconds(1), deadline), cancel.get_token())) {
      return Status::Error("binding volumes: cancelled").WithPlugin(kName);
    }
  }
}

std::vector<ClusterEvent> VolumeBinding::EventsToRegister() const {
  const ActionType add_update = ActionType::kAdd | ActionType::kUpdate;
  return {
      ClusterEvent{EventResource::kStorageClass, add_update, "StorageClassAddOrUpdate"},
      ClusterEvent{EventResource::kPersistentVolumeClaim, add_update, "PvcAddOrUpdate"},
      ClusterEvent{EventResource::kPersistentVolume, add_update, "PvAddOrUpdate"},
      ClusterEvent{EventResource::kNode,
                   ActionType::kAdd | ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeTaint,
                   "NodeAdd"},
      ClusterEvent{EventResource::kCSINode, add_update, "CSINodeAddOrUpdate"},
      ClusterEvent{EventResource::kCSIDriver, add_update, "CSIDriverAddOrUpdate"},
      ClusterEvent{EventResource::kCSIStorageCapacity, add_update, "CSIStorageCapacityAddOrUpdate"},
  };
}

absl::StatusOr<QueueingHint> VolumeBinding::Hint(const kube::Pod& pod, const ClusterEvent& event,
                                                 const EventObjects& objects) const {
  const auto queue_if = [](bool b) { return b ? QueueingHint::kQueue : QueueingHint::kQueueSkip; };
  switch (event.resource) {
    case EventResource::kPersistentVolumeClaim:
      if (const auto* claim = EventStorage<kube::PersistentVolumeClaim>(objects)) {
        return queue_if(helper::PodUsesClaim(pod, *claim));
      }
      return QueueingHint::kQueue;
    case EventResource::kStorageClass: {
      const auto* old_sc = OldEventStorage<kube::StorageClass>(objects);
      const auto* new_sc = EventStorage<kube::StorageClass>(objects);
      if (old_sc == nullptr || new_sc == nullptr || old_sc == new_sc) return QueueingHint::kQueue;
      return queue_if(old_sc->allowed_topologies != new_sc->allowed_topologies);
    }
    case EventResource::kCSINode: {
      const auto* old_node = OldEventStorage<kube::CSINode>(objects);
      const auto* new_node = EventStorage<kube::CSINode>(objects);
      if (old_node == nullptr || new_node == nullptr || old_node == new_node) {
        return QueueingHint::kQueue;
      }
      const auto migrated = [](const kube::CSINode& n) -> std::optional<std::string> {
        auto it = n.metadata.annotations.find(std::string_view(kube::kAnnMigratedPlugins));
        if (it == n.metadata.annotations.end()) return std::nullopt;
        return it->second;
      };
      return queue_if(migrated(*old_node) != migrated(*new_node));
    }
    case EventResource::kCSIStorageCapacity: {
      const auto* old_cap = OldEventStorage<kube::CSIStorageCapacity>(objects);
      const auto* new_cap = EventStorage<kube::CSIStorageCapacity>(objects);
      if (old_cap == nullptr || new_cap == nullptr || old_cap == new_cap) {
        return QueueingHint::kQueue;
      }
      const std::optional<kube::Quantity> before = kube::CapacityLimit(*old_cap);
      const std::optional<kube::Quantity> after = kube::CapacityLimit(*new_cap);
      if (!after) return QueueingHint::kQueueSkip;
      return queue_if(!before || after->Value() > before->Value());
    }
    default:
      // PV, node and CSIDriver events: always.
      return QueueingHint::kQueue;
  }
}

}  // namespace trimaran::sched::plugins
