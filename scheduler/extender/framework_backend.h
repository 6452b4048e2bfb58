#pragma once
// FrameworkBackend: the extender's ExtenderBackend over one profile's Framework and the
// daemon's cache (the same informers, CacheImpl and Snapshot as trimaran-scheduler's
// scheduling loop; the extender runs no loop of its own).
//
//   Filter      snapshot refresh -> candidates (the snapshot's NodeInfo by name; a node
//               the cache does not know yet: a NodeInfo of the object kube-scheduler sent,
//               without pods, or FailedNodes "not in the extender's cache" for a name
//               only) -> PreFilter over the whole snapshot (a rejection is every node's
//               verdict, a PreFilterResult leaves out the nodes it does not list) ->
//               Filter with nominated pods, in parallel on the Handle's parallelizer.
//   Prioritize  snapshot refresh -> PreFilter (state for PreScore; its rejections do not
//               matter here) -> PreScore -> Score, NormalizeScore, weights (the runtime's
//               RunScorePlugins) -> ToExtenderPriority(total, 100 × Σ active weights).
//               Unknown names get 0.
//   Bind        only when BindOptions has a client (Unimplemented otherwise), in steps:
//               the names must be valid object names (InvalidArgument: nothing odd
//               reaches a request path); the pod must be in the pod source, with the
//               UID sent, pending (no nodeName, not terminating) and of one of
//               BindOptions::scheduler_names (FailedPrecondition / PermissionDenied);
//               the node must pass the profile's PreFilter and Filter for it
//               (FailedPrecondition with the reason); then POST pods/<name>/binding
//               with the pod's UID (as DefaultBinder).
//
// Statuses: kUnschedulable -> FailedNodes, kUnschedulableAndUnresolvable ->
// FailedAndUnresolvableNodes (message: the status's reasons); a plugin kError fails the
// request (Internal naming the point and, for Filter, the node).
//
// Thread-safety: safe for concurrent calls; Filter and Prioritize run one at a time
// (one mutex: they share the snapshot and the score buffers, as scheduling cycles do),
// Bind runs concurrently with them.

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "kube/client.h"
#include "scheduler/extender/extender_backend.h"
#include "scheduler/framework/handle.h"
#include "scheduler/runtime/framework.h"

namespace trimaran::sched::extender {

// What /bind needs (docs/extender.md, "The verbs").
struct BindOptions {
  // Null: binding is off.
  kube::Client* client = nullptr;
  // The pod named by a binding request, or null when there is none (the daemon's pod
  // informer store). Called from any request thread.
  std::function<std::shared_ptr<const kube::Pod>(const std::string& namespace_name,
                                                 const std::string& name)>
      pods;
  // Only pods whose spec.schedulerName is one of these are bound (the kube-scheduler
  // profiles that call the extender; --extender-bind-scheduler-names).
  std::vector<std::string> scheduler_names = {"default-scheduler"};
};

class FrameworkBackend final : public ExtenderBackend {
 public:
  // Brings the snapshot the Framework's Handle reads up to date and returns it
  // (Scheduler::RefreshSnapshot in the daemon). Called under the backend's mutex.
  using SnapshotSource = std::function<absl::StatusOr<const NodeInfoLister*>()>;

  // `framework` (and bind.client, when not null) must outlive the backend.
  FrameworkBackend(Framework& framework, SnapshotSource snapshot, BindOptions bind = {});

  absl::StatusOr<FilterVerdicts> Filter(const kube::Pod& pod,
                                        std::span<const CandidateNode> nodes) override;
  absl::StatusOr<std::vector<HostPriority>> Prioritize(
      const kube::Pod& pod, std::span<const CandidateNode> nodes) override;
  absl::Status Bind(const ExtenderBindingArgs& args) override;

 private:
  static absl::Status CheckBindingNames(const ExtenderBindingArgs& args);
  absl::StatusOr<std::shared_ptr<const kube::Pod>> PendingPodToBind(
      const ExtenderBindingArgs& args) const;
  absl::Status CheckNodeFits(const kube::Pod& pod, const std::string& node);

  Framework& framework_;
  const SnapshotSource snapshot_;
  const BindOptions bind_;
  absl::Mutex mu_;
  Framework::ScoreBuffers scores_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched::extender
