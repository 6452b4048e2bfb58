#pragma once
// VolumeRestrictions: inline disks that cannot be shared and ReadWriteOncePod claims
// (spec kube-scheduler-constraints.md §5; upstream plugins/volumerestrictions, 1.31).
//
// Disk conflicts: a volume of the pod conflicts with one of a pod on the node when
//   gcePersistentDisk     same pdName, unless both are readOnly
//   awsElasticBlockStore  same volumeID (readOnly does not matter)
//   iscsi                 same iqn, unless both are readOnly
//   rbd                   a common monitor, same pool and image, unless both readOnly
// ReadWriteOncePod: PreFilter looks up each claim of the pod (missing:
// UnschedulableAndUnresolvable `persistentvolumeclaim "<name>" not found`), keeps those
// with the ReadWriteOncePod access mode and counts how many are used by a scheduled pod
// anywhere in the snapshot (upstream's usedPVCSet, same namespace). AddPod/RemovePod
// move that count by the added/removed pod's claims of those names (so preemption can
// free one). PreFilter skips when the pod has no GCE/EBS/RBD/iSCSI volume and the count
// is 0.
// Filter: a disk conflict with a pod on the node -> Unschedulable
// "node(s) had no available disk"; a count > 0 -> Unschedulable "node has pod using
// PersistentVolumeClaim with the same name and ReadWriteOncePod access mode" (for every
// node).
//
// Thread-safety: PreFilter runs on the scheduling thread; Filter only reads and is safe
// for concurrent use.

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

class VolumeRestrictions final : public PreFilterPlugin,
                                 public PreFilterExtensions,
                                 public FilterPlugin,
                                 public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "VolumeRestrictions";
  static constexpr absl::string_view kPreFilterStateKey = "PreFilterVolumeRestrictions";
  static constexpr absl::string_view kErrReasonDiskConflict = "node(s) had no available disk";
  static constexpr absl::string_view kErrReasonReadWriteOncePodConflict =
      "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access "
      "mode";

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  static PluginDescriptor Descriptor();

  explicit VolumeRestrictions(Handle& handle) : handle_(handle) {}

  absl::string_view Name() const override { return kName; }
  Status PreFilter(CycleState& state, const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                   PreFilterResult& result) override;
  const PreFilterExtensions* GetPreFilterExtensions() const override { return this; }
  Status AddPod(CycleState& state, const kube::Pod& pod_to_schedule, const PodInfo& pod_to_add,
                const NodeInfo& node_info) const override;
  Status RemovePod(CycleState& state, const kube::Pod& pod_to_schedule,
                   const PodInfo& pod_to_remove, const NodeInfo& node_info) const override;
  Status Filter(const CycleState& state, const kube::Pod& pod,
                const NodeInfo& node_info) const override;
  // Assigned Pod Delete; Node Add; PVC Add (upstream's registrations).
  std::vector<ClusterEvent> EventsToRegister() const override;
  // Upstream's hints (spec §5.4): an assigned pod's delete queues only for a pod of the
  // same namespace whose inline disk conflicted with it or that shares a claim name; a
  // PVC add only for one of the pod's claims; node adds always.
  absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                    const EventObjects& objects) const override;

  // Whether volume `a` of one pod and `b` of another conflict (the table above).
  static bool Conflicts(const kube::Volume& a, const kube::Volume& b);

 private:
  Handle& handle_;
};

}  // namespace trimaran::sched::plugins
