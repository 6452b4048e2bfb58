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
//   Bind        POST pods/<name>/binding with the pod's UID (as DefaultBinder), when a
//               client is given; Unimplemented otherwise.
//
// Statuses: kUnschedulable -> FailedNodes, kUnschedulableAndUnresolvable ->
// FailedAndUnresolvableNodes (message: the status's reasons); a plugin kError fails the
// request (Internal naming the point and, for Filter, the node).
//
// Thread-safety: safe for concurrent calls; Filter and Prioritize run one at a time
// (one mutex: they share the snapshot and the score buffers, as scheduling cycles do),
// Bind runs concurrently with them.

#include <functional>
#include <span>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "kube/client.h"
#include "scheduler/extender/extender_backend.h"
#include "scheduler/framework/handle.h"
#include "scheduler/runtime/framework.h"

namespace trimaran::sched::extender {

class FrameworkBackend final : public ExtenderBackend {
 public:
  // Brings the snapshot the Framework's Handle reads up to date and returns it
  // (Scheduler::RefreshSnapshot in the daemon). Called under the backend's mutex.
  using SnapshotSource = std::function<absl::StatusOr<const NodeInfoLister*>()>;

  // `framework` (and `binder`, when not null) must outlive the backend.
  FrameworkBackend(Framework& framework, SnapshotSource snapshot, kube::Client* binder);

  absl::StatusOr<FilterVerdicts> Filter(const kube::Pod& pod,
                                        std::span<const CandidateNode> nodes) override;
  absl::StatusOr<std::vector<HostPriority>> Prioritize(
      const kube::Pod& pod, std::span<const CandidateNode> nodes) override;
  absl::Status Bind(const ExtenderBindingArgs& args) override;

 private:
  Framework& framework_;
  const SnapshotSource snapshot_;
  kube::Client* const binder_;
  absl::Mutex mu_;
  Framework::ScoreBuffers scores_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched::extender
