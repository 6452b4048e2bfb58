#pragma once
// VolumeZone: keeps a pod off nodes outside the zones and regions of its bound
// PersistentVolumes (spec kube-scheduler-constraints.md §6; upstream
// plugins/volumezone, 1.31 behaviour).
//
// PreFilter reads, for each persistentVolumeClaim volume of the pod (ephemeral volumes
// are not considered), the claim and its PV through Handle::storage_lister():
//   claimName ""                          UAU "PersistentVolumeClaim had no name"
//   claim missing                         UAU `persistentvolumeclaim "<name>" not found`
//   unbound, no class                     UAU "PersistentVolumeClaim had no pv name and
//   storageClass name" unbound, class missing                UAU `storageclasses.storage.k8s.io
//   "<name>" not found` unbound, class without binding mode   UAU `VolumeBindingMode not set for
//   StorageClass "<name>"` unbound, WaitForFirstConsumer         ignored (VolumeBinding handles its
//   topology) unbound, any other mode               UAU "PersistentVolume had no name" bound, PV
//   missing                     UAU `persistentvolume "<name>" not found`
// and records the PV's topology labels (the beta and GA zone and region keys), each
// value split on "__" (multi-zone PVs). Nothing recorded: Skip.
// Filter: a node with none of the four labels passes; otherwise for every recorded
// (key, values) the node's value of the key (for the beta keys, the GA key when the
// beta one is absent) must be one of the values, else UAU
// "node(s) had no available volume zone".
//
// Thread-safety: PreFilter runs on the scheduling thread; Filter only reads the
// CycleState and the NodeInfo and is safe for concurrent use.

#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cluster_event.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/status.h"

namespace trimaran::sched::plugins {

class VolumeZone final : public PreFilterPlugin, public FilterPlugin, public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "VolumeZone";
  static constexpr absl::string_view kPreFilterStateKey = "PreFilterVolumeZone";
  static constexpr absl::string_view kErrReasonConflict = "node(s) had no available volume zone";

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  static PluginDescriptor Descriptor();

  explicit VolumeZone(Handle& handle) : handle_(handle) {}

  absl::string_view Name() const override { return kName; }
  Status PreFilter(CycleState& state, const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                   PreFilterResult& result) override;
  Status Filter(const CycleState& state, const kube::Pod& pod,
                const NodeInfo& node_info) const override;
  // StorageClass Add; Node Add/UpdateNodeLabel/UpdateNodeTaint; PVC Add/Update; PV
  // Add/Update (upstream's registrations).
  std::vector<ClusterEvent> EventsToRegister() const override;
  // Upstream's hints (spec §6.2): a StorageClass add queues only for a
  // WaitForFirstConsumer class; a PVC event only for one of the pod's claims; a PV
  // update only when its zone/region labels changed; PV adds and node events always.
  absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                    const EventObjects& objects) const override;

 private:
  Handle& handle_;
};

}  // namespace trimaran::sched::plugins
