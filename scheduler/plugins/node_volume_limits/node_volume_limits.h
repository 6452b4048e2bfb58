#pragma once
// NodeVolumeLimits: keeps a pod off nodes where attaching its volumes would exceed a
// CSI driver's attach limit (spec kube-scheduler-constraints.md §7.1; upstream
// plugins/nodevolumelimits/csi.go, 1.31 behaviour).
//
// Limits of node N: N's allocatable entries named "attachable-volumes-*", overridden
// per driver by its CSINode's spec.drivers[].allocatable.count (key
// VolumeLimitKey(driver), csi_translation.h). Keys without a limit are unlimited.
// Volumes count by (driver, handle):
//   claim bound to a PV with a CSI source            the PV's driver and handle
//   claim bound to a PV of a migratable in-tree type its CSI translation, when N has a
//                                                    CSINode (migration is GA), else ignored
//   claim unbound, or its PV missing                 the class's provisioner (translated
//                                                    likewise) and "<random>-<ns>/<claim>",
//                                                    so a claim shared by pods counts once;
//                                                    no class / class missing: ignored
//   generic ephemeral volume                         its claim "<pod>-<volume>", as above
//   inline EBS / GCE PD / Azure Disk / Cinder        its translation, as for PVs
// Filter(N): the pod's volumes not already attached on N (shared volumes are free) are
// added per driver to those of N's pods; above the limit: Unschedulable
// "node(s) exceed max volume count". For the pod itself a missing claim is
// UnschedulableAndUnresolvable "looking up PVC <ns>/<name>: persistentvolumeclaims
// "<name>" not found" and an ephemeral claim it does not own an Error; for the pods on
// the node a missing claim is skipped.
// PreFilter skips pods without claims, ephemeral volumes or migratable inline volumes;
// otherwise it lists the pod's volumes once (for nodes with and without a CSINode) into
// the CycleState, with the lookup error if any, which Filter returns for every node.
//
// Thread-safety: Filter only reads the CycleState, the NodeInfo and the StorageLister
// and is safe for concurrent use.

#include <memory>
#include <span>
#include <string>
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

class NodeVolumeLimits final : public PreFilterPlugin,
                               public FilterPlugin,
                               public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "NodeVolumeLimits";
  static constexpr absl::string_view kErrReasonMaxVolumeCountExceeded =
      "node(s) exceed max volume count";

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  static PluginDescriptor Descriptor();

  explicit NodeVolumeLimits(Handle& handle);

  absl::string_view Name() const override { return kName; }
  Status PreFilter(CycleState& state, const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                   PreFilterResult& result) override;
  Status Filter(const CycleState& state, const kube::Pod& pod,
                const NodeInfo& node_info) const override;
  // CSINode Add; assigned Pod Delete; PVC Add (upstream's registrations).
  std::vector<ClusterEvent> EventsToRegister() const override;
  // Upstream's hint (spec §7.1): an assigned pod's delete queues only when the pod was
  // scheduled and had a claim, an ephemeral volume or a migratable inline volume;
  // CSINode and PVC adds always.
  absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                    const EventObjects& objects) const override;

 private:
  Handle& handle_;
  // The "<random>" of unbound claims' synthetic handles, fixed per plugin.
  std::string unbound_prefix_;
};

}  // namespace trimaran::sched::plugins
