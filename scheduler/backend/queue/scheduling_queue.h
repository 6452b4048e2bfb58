#pragma once
// SchedulingQueue: the pods waiting to be scheduled, in the order the scheduler should
// try them, and the rules that bring a failed pod back (spec kube-scheduler.md §5.1–5.3;
// upstream's pkg/scheduler/backend/queue SchedulingQueue). The implementation is
// PriorityQueue (priority_queue.h).
//
// A pending pod is in at most one of three places (activeQ, backoffQ, the
// unschedulable pool); between Pop and Done it is also tracked as "in flight":
//
//   from                    to                 when
//   Add/Update (new pod)    activeQ            PreEnqueue plugins pass
//                           unschedulable      a PreEnqueue plugin rejects it (gated)
//   activeQ                 in flight          Pop (attempts + 1, scheduling cycle + 1)
//   in flight               backoffQ           AddUnschedulableIfNotPresent, if a move
//                                              request came during its cycle, or no
//                                              plugin rejected it (an error)
//   in flight               unschedulable      AddUnschedulableIfNotPresent otherwise
//   backoffQ                activeQ            its backoff expired (flush every 1 s)
//   unschedulable           backoffQ/activeQ   a cluster event a rejecting plugin
//                                              registered for, a helpful Update, or more
//                                              than 5 min in the pool (flush every 30 s):
//                                              backoffQ while still backing off
//
//   activeQ            heap ordered by the QueueSort plugin (PrioritySort: higher
//                      priority first, then earlier timestamp). Pop blocks on it.
//   backoffQ           heap ordered by backoff expiry (backoff.h): timestamp +
//                      min(initial × 2^(attempts−1), max).
//   unschedulablePods  pods rejected by plugins, waiting for a ClusterEvent that one of
//                      their rejecting plugins registered for (or for the 5-minute
//                      flush); also the gated pods a PreEnqueue plugin keeps out.
//
// The move-request rule for events that arrive while a pod is in flight: every
// MoveAllToActiveOrBackoffQueue (and the AssignedPod* helpers) records the current
// scheduling cycle as the moveRequestCycle, whatever the hints say. A pod that fails in cycle c
// goes to backoffQ instead of unschedulablePods when moveRequestCycle >= c, because the event that
// arrived during its attempt may already have made it schedulable.
//
// Nominated pods (preemption): the queue also keeps the nominator (nominator.h); Add,
// Update, Delete and AddUnschedulableIfNotPresent keep it in sync with the pods'
// status.nominatedNodeName.
//
// Thread-safety: every method is safe for concurrent use. Pop blocks until a pod is in
// activeQ or Close() is called; it is woken by Add/Update/moves from other threads.
//
// Ownership: the queue owns its QueuedPodInfo records; pods are shared immutable
// objects (std::shared_ptr<const kube::Pod>), never copied. Pop hands the record to the
// caller, who gives it back through AddUnschedulableIfNotPresent on failure.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cluster_event.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/pod_nominator.h"
#include "scheduler/framework/types.h"

namespace trimaran::sched {

// Optional filter of MoveAllToActiveOrBackoffQueue: only pods for which it returns true
// are considered (upstream's PreEnqueueCheck). An empty function accepts every pod.
using PreEnqueueCheck = std::function<bool(const kube::Pod& pod)>;

// How many pods are where (a consistent snapshot), for tests, logs and debugging.
struct QueueCounts {
  size_t active = 0;
  size_t backoff = 0;
  size_t unschedulable = 0;  // not counting gated pods
  size_t gated = 0;
  size_t in_flight = 0;
};

class SchedulingQueue : public PodNominator {
 public:
  virtual ~SchedulingQueue() = default;

  // ---- Pods from the informer (unassigned pods of this scheduler's profiles) ----

  // A new pending pod: into activeQ with timestamp now and 0 attempts, or into the
  // unschedulable pool as gated when a PreEnqueue plugin rejects it. A pod already
  // queued or in flight is treated as Update(its current version, pod).
  virtual void Add(std::shared_ptr<const kube::Pod> pod) = 0;
  // A queued pod changed. In activeQ/backoffQ: updated in place (order fixed, timestamp
  // and attempts kept). In unschedulablePods: if the change may help (anything but
  // status, resourceVersion and generation changed), moved to backoffQ when still
  // backing off, else to activeQ (gated pods re-run PreEnqueue); otherwise updated in
  // place. In flight: remembered, and the failed attempt is re-queued with the new
  // version (to backoffQ if the change may help). Not known: treated as Add.
  virtual void Update(const kube::Pod& old_pod, std::shared_ptr<const kube::Pod> new_pod) = 0;
  // The pod is gone (deleted, or bound by someone else): removed from every sub-queue
  // and from the nominator. An in-flight pod is remembered as deleted, so that its
  // AddUnschedulableIfNotPresent drops it.
  virtual void Delete(const kube::Pod& pod) = 0;

  // ---- The scheduling loop ----

  // Blocks until activeQ has a pod or the queue is closed; nullopt once closed. The
  // popped pod has attempts + 1, initial_attempt_timestamp set on its first pop, empty
  // unschedulable/pending plugin sets, and is in flight until Done. Increments the
  // scheduling cycle.
  virtual std::optional<QueuedPodInfo> Pop() = 0;
  // The scheduling cycle of the pod last popped (0 before the first Pop).
  virtual int64_t SchedulingCycle() const = 0;
  // The pod's scheduling attempt is over (success or failure): no longer in flight.
  virtual void Done(const kube::Pod& pod) = 0;
  // Re-queues a pod whose attempt in `pod_scheduling_cycle` failed; the caller has set
  // pod_info.unschedulable_plugins / pending_plugins from the Diagnosis (both empty for
  // an error). The pod's timestamp becomes now. Goes to backoffQ when a move request
  // arrived during the attempt (moveRequestCycle >= pod_scheduling_cycle) or when no
  // plugin rejected it (an error); otherwise to unschedulablePods. Returns
  // AlreadyExists when the pod is already queued (nothing changes); OK without
  // queueing when the pod was deleted while in flight.
  virtual absl::Status AddUnschedulableIfNotPresent(QueuedPodInfo pod_info,
                                                    int64_t pod_scheduling_cycle) = 0;

  // ---- Cluster events ----

  // Moves the unschedulable (and gated) pods that `event` may help: those for which
  // pre_check (if any) returns true and one of whose rejecting plugins
  // (unschedulable_plugins ∪ pending_plugins, or the gating plugin) registered an
  // event that Matches `event` and, asked about `objects`, gives QueueingHint kQueue
  // (no hint, or a hint error, counts as kQueue); a pod with no recorded plugin, and
  // any pod for a wildcard event, moves. A Pending plugin that says kQueue sends the pod
  // to activeQ at once; otherwise to backoffQ if still backing off, else activeQ.
  // Records the move request.
  virtual void MoveAllToActiveOrBackoffQueue(const ClusterEvent& event,
                                             const EventObjects& objects = {},
                                             const PreEnqueueCheck& pre_check = nullptr) = 0;
  // An assigned pod was added (event AssignedPodAdd, objects {new_pod = pod}): every
  // unschedulable pod is a candidate and the hints decide (upstream with
  // SchedulerQueueingHints on). Records the move request.
  virtual void AssignedPodAdded(const kube::Pod& pod) = 0;
  // An assigned pod changed (`actions` = the update sub-kinds the handler detected),
  // as AssignedPodAdded with objects {old_pod, new_pod}.
  virtual void AssignedPodUpdated(const kube::Pod& old_pod, const kube::Pod& new_pod,
                                  ActionType actions) = 0;

  // ---- Periodic flushes (Run calls them; tests call them with a FakeClock) ----

  // Moves every backoffQ pod whose backoff expired (expiry <= now) to activeQ.
  virtual void FlushBackoffQCompleted() = 0;
  // Moves pods that stayed in unschedulablePods longer than
  // podMaxInUnschedulablePodsDuration (5 min) to backoffQ (still backing off) or activeQ
  // (event UnschedulableTimeout).
  virtual void FlushUnschedulablePodsLeftover() = 0;

  // ---- Nominated pods (preemption) ----
  // The PodNominator methods (pod_nominator.h): AddNominatedPod,
  // DeleteNominatedPodIfExists, NominatedPodsForNode, HasNominatedPods.

  // ---- Lifecycle and introspection ----

  // Starts the periodic flushers on a thread (backoff every 1 s, leftover every 30 s, on
  // the queue's Clock). They stop when `stop` is requested, on Close(), or when the
  // queue is destroyed. At most one call.
  virtual void Run(std::stop_token stop = {}) = 0;
  // Wakes every blocked Pop (which returns nullopt from now on) and stops the flushers.
  // Idempotent.
  virtual void Close() = 0;

  // Every pending pod (activeQ, backoffQ, unschedulablePods), not the in-flight ones.
  virtual std::vector<std::shared_ptr<const kube::Pod>> PendingPods() const = 0;
  virtual QueueCounts Counts() const = 0;
};

}  // namespace trimaran::sched
