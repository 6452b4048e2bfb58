#pragma once
// VolumeBinding: places a pod where its PersistentVolumeClaims can be used, and, after
// the pod is placed, binds its unbound claims there (spec kube-scheduler-constraints.md
// §4; upstream plugins/volumebinding and its volume binder, 1.31 behaviour without the
// VolumeCapacityPriority score, which is alpha and off upstream).
//
// PreFilter classifies the pod's claims (persistentVolumeClaim and generic ephemeral
// volumes, read through the AssumeCache): missing, Lost, being deleted or (ephemeral)
// not owned by the pod -> UnschedulableAndUnresolvable with upstream's message; no
// claims -> Skip; each claim is then *bound* (spec.volumeName and the bind-completed
// annotation), *delayed* (its class is WaitForFirstConsumer and no volume is named) or
// else unbound-immediate -> UnschedulableAndUnresolvable "pod has unbound immediate
// PersistentVolumeClaims" (the PV controller binds those first). A class without a
// binding mode is an Error.
// Filter(N), reasons in this order on one UnschedulableAndUnresolvable status:
//   "node(s) had volume node affinity conflict"        a bound PV's nodeAffinity excludes N
//   "node(s) didn't find available persistent volumes to bind"
//                                                      a delayed claim can neither be matched
//                                                      to an Available PV usable from N nor
//                                                      provisioned on N (no provisioner,
//                                                      kubernetes.io/no-provisioner, or N
//                                                      outside allowedTopologies), or it
//                                                      is already pinned to another node
//   "node(s) did not have enough free storage"       a provisioned claim's CSIDriver asks
//                                                      for capacity checks and no
//                                                      CSIStorageCapacity of the class for
//                                                      N's segment has room (skipped when
//                                                      the apiserver serves no capacity API)
//   "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
// Static matching takes, per claim (smallest request first), a PV pre-bound to it
// (claimRef) if usable from N, else the smallest Available PV of the claim's class with
// enough capacity, the access modes, the volume mode, the selector and a node affinity
// that admits N. The result per node (static bindings, provisions) stays in the
// CycleState.
// Reserve assumes the chosen node's result in the AssumeCache: PVs with claimRef (and
// pv.kubernetes.io/bound-by-controller=yes), claims with volume.kubernetes.io/
// selected-node=<node>; Unreserve restores them.
// PreBind writes them (merge PATCH with the read resourceVersion; kube::Client::
// PatchStorageObject), then waits, checking every second, until every claim is fully
// bound by the PV controller (and an external provisioner), at most bindTimeoutSeconds;
// it fails early when a PV's claimRef was reset, a provisioner removed or changed the
// selected-node annotation ("provisioning failed for PVC ..."), or the bound PV does not
// fit the node, or the pod was deleted ("pod does not exist any more"). A stop of the
// binding call options (leader election lost) or the scheduler's shutdown token cancels
// the wait.
//
// Thread-safety: Filter is safe for concurrent use (the per-node results are behind a
// mutex in the cycle state); the AssumeCache is thread-safe; PreBind runs on binding
// threads.

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
#include "scheduler/framework/pre_bind_pre_flight.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/status.h"
#include "scheduler/plugins/volume_binding/args.h"
#include "scheduler/plugins/volume_binding/assume_cache.h"

namespace trimaran::sched::plugins {

class VolumeBinding final : public PreFilterPlugin,
                            public FilterPlugin,
                            public ReservePlugin,
                            public PreBindPlugin,
                            public PreBindPreFlightExtension,
                            public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "VolumeBinding";
  static constexpr absl::string_view kStateKey = "PreFilterVolumeBinding";
  static constexpr absl::string_view kErrReasonBindConflict =
      "node(s) didn't find available persistent volumes to bind";
  static constexpr absl::string_view kErrReasonNodeConflict =
      "node(s) had volume node affinity conflict";
  static constexpr absl::string_view kErrReasonNotEnoughSpace =
      "node(s) did not have enough free storage";
  static constexpr absl::string_view kErrReasonPVNotExist =
      "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
  static constexpr absl::string_view kErrReasonUnboundImmediate =
      "pod has unbound immediate PersistentVolumeClaims";

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  static PluginDescriptor Descriptor();

  VolumeBinding(VolumeBindingArgs args, Handle& handle);

  absl::string_view Name() const override { return kName; }
  Status PreFilter(CycleState& state, const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                   PreFilterResult& result) override;
  Status Filter(const CycleState& state, const kube::Pod& pod,
                const NodeInfo& node_info) const override;
  Status Reserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) override;
  void Unreserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) override;
  Status PreBind(CycleState& state, const kube::Pod& pod, absl::string_view node_name) override;
  // Skip when PreBind has nothing to write or wait for (no claim, or every claim bound):
  // only pods with volumes to bind take a binding thread of their own.
  Status PreBindPreFlight(CycleState& state, const kube::Pod& pod,
                          absl::string_view node_name) override;
  // StorageClass Add/Update; PVC Add/Update; PV Add/Update; Node Add/UpdateNodeLabel/
  // UpdateNodeTaint; CSINode Add/Update; CSIDriver Add/Update; CSIStorageCapacity
  // Add/Update (upstream's registrations).
  std::vector<ClusterEvent> EventsToRegister() const override;
  // Upstream's hints (spec §4.9): a PVC event queues only a pod using that claim; a
  // StorageClass update only when allowedTopologies changed; a CSINode update only when
  // the migrated-plugins annotation changed; a CSIStorageCapacity update only when the
  // limit (maximumVolumeSize, else capacity) appeared or grew; adds, PV, node and
  // CSIDriver events always. An event without its objects queues.
  absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                    const EventObjects& objects) const override;

  AssumeCache& assume_cache() { return cache_; }

 private:
  const VolumeBindingArgs args_;
  Handle& handle_;
  AssumeCache cache_;
};

}  // namespace trimaran::sched::plugins
