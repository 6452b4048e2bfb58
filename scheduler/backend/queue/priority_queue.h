#pragma once
// PriorityQueue: the SchedulingQueue implementation (scheduling_queue.h has the
// contract and the state diagram; upstream's PriorityQueue without QueueingHints).
//
//   trimaran::testing::FakeClock clock;
//   stats::Registry registry;
//   PriorityQueue queue(clock, stats::Scope(registry, "scheduler_"),
//                       {.less = PrioritySortLess});
//   queue.Add(pod);
//   std::optional<QueuedPodInfo> p = queue.Pop();   // blocks until a pod or Close()
//
// Time: every timestamp, backoff expiry and flush deadline reads the Clock given at
// construction; tests drive it with FakeClock and call the Flush* methods directly.
//
// Metrics, registered in the given Scope (the Scheduler passes its StatsScopes::upstream)
// under kube-scheduler's names without the "scheduler_" subsystem, which the
// composition root's prefix provides (the daemon's "scheduler_" gives exactly
// scheduler_pending_pods and scheduler_queue_incoming_pods_total):
//   pending_pods{queue}                     gauge; queue ∈ active, backoff,
//                                           unschedulable, gated
//   queue_incoming_pods_total{queue,event}  counter; event ∈ PodAdd, PodUpdate,
//     ScheduleAttemptFailure, BackoffComplete, UnschedulableTimeout, or the label of the
//     ClusterEvent that moved the pod
//   unschedulable_pods{plugin,profile}      gauge, as kube-scheduler 1.37: a queued pod
//     counts once under each plugin that rejected it in its last attempt (Unschedulable,
//     UnschedulableAndUnresolvable or Pending) and under the PreEnqueue plugin that
//     gates it, from its requeue (or gating) until it is popped or deleted; profile is
//     its schedulerName
//
// Differences from upstream (documented choices):
//   - An Update or Add of an in-flight pod does not put a second copy into activeQ; the
//     change is remembered and applied when the attempt is re-queued.
//   - A Delete of an in-flight pod makes its later AddUnschedulableIfNotPresent a no-op.
//   - Pop returns nullopt as soon as the queue is closed, even if pods remain.
//   - AssignedPodAdded over-approximates upstream's affinity-term match (it does not
//     evaluate label selectors): any pending pod with a required pod-affinity term that
//     may select the added pod's namespace moves. More moves are safe, fewer are not.
//
// Thread-safety: safe for concurrent use; one absl::Mutex guards all state, and Pop
// waits on it with absl::Mutex::Await. The flusher thread takes the same mutex.
// Ownership: the Clock, the Scope's registry and the PreEnqueue plugins must outlive
// the queue. The destructor stops the flusher thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/stats/stats.h"
#include "scheduler/backend/queue/backoff.h"
#include "scheduler/backend/queue/nominator.h"
#include "scheduler/backend/queue/pod_heap.h"
#include "scheduler/backend/queue/scheduling_queue.h"
#include "scheduler/backend/queue/unschedulable_pods.h"
#include "scheduler/framework/interface.h"

namespace trimaran::sched {

// PrioritySort's ordering (spec §5.1): higher spec.priority first (unset = 0), then the
// earlier queue timestamp. The default `less` of PriorityQueue.
bool PrioritySortLess(const QueuedPodInfo& a, const QueuedPodInfo& b);

// The events each plugin registered (EnqueueExtensions::EventsToRegister), by plugin
// name. A rejecting plugin that is not in the map is treated as registering
// kWildCardEvent, as the EnqueueExtensions contract says.
using PluginEventMap = absl::flat_hash_map<std::string, std::vector<ClusterEvent>>;

// A plugin's QueueingHint (EnqueueExtensions::Hint), by plugin name. A plugin that is
// not in the map queues on every event it registered. Called under the queue's lock.
using QueueingHintFn = std::function<absl::StatusOr<QueueingHint>(
    const kube::Pod& pod, const ClusterEvent& event, const EventObjects& objects)>;
using PluginHintMap = absl::flat_hash_map<std::string, QueueingHintFn>;

struct PriorityQueueOptions {
  // activeQ order: the profile's QueueSortPlugin::Less. Empty = PrioritySortLess.
  QueuedPodLess less;
  BackoffPolicy backoff;  // podInitialBackoffSeconds / podMaxBackoffSeconds
  // DefaultPodMaxInUnschedulablePodsDuration.
  absl::Duration pod_max_in_unschedulable_pods_duration = absl::Minutes(5);
  // Periods of the flusher thread started by Run().
  absl::Duration backoff_flush_interval = absl::Seconds(1);
  absl::Duration unschedulable_flush_interval = absl::Seconds(30);
  PluginEventMap plugin_events;
  PluginHintMap queueing_hints;
  // Run in order whenever a pod is about to enter activeQ; the first non-success keeps
  // it gated in the unschedulable pool. Not owned.
  std::vector<const PreEnqueuePlugin*> pre_enqueue_plugins;
};

class PriorityQueue final : public SchedulingQueue {
 public:
  PriorityQueue(const Clock& clock, const stats::Scope& scope, PriorityQueueOptions options = {});
  // Orders activeQ with `queue_sort` (which must outlive the queue).
  PriorityQueue(const Clock& clock, const stats::Scope& scope, const QueueSortPlugin& queue_sort,
                PriorityQueueOptions options = {});
  ~PriorityQueue() override;
  PriorityQueue(const PriorityQueue&) = delete;
  PriorityQueue& operator=(const PriorityQueue&) = delete;

  void Add(std::shared_ptr<const kube::Pod> pod) override;
  void Update(const kube::Pod& old_pod, std::shared_ptr<const kube::Pod> new_pod) override;
  void Delete(const kube::Pod& pod) override;

  std::optional<QueuedPodInfo> Pop() override;
  int64_t SchedulingCycle() const override;
  void Done(const kube::Pod& pod) override;
  absl::Status AddUnschedulableIfNotPresent(QueuedPodInfo pod_info,
                                            int64_t pod_scheduling_cycle) override;

  void MoveAllToActiveOrBackoffQueue(const ClusterEvent& event, const EventObjects& objects = {},
                                     const PreEnqueueCheck& pre_check = nullptr) override;
  void AssignedPodAdded(const kube::Pod& pod) override;
  void AssignedPodUpdated(const kube::Pod& old_pod, const kube::Pod& new_pod,
                          ActionType actions) override;

  void FlushBackoffQCompleted() override;
  void FlushUnschedulablePodsLeftover() override;

  void AddNominatedPod(std::shared_ptr<const kube::Pod> pod, absl::string_view node_name) override;
  void DeleteNominatedPodIfExists(const kube::Pod& pod) override;
  std::vector<PodInfo> NominatedPodsForNode(absl::string_view node_name) const override;
  bool HasNominatedPods() const override {
    return nominated_count_.load(std::memory_order_acquire) > 0;
  }

  void Run(std::stop_token stop = {}) override;
  void Close() override;

  std::vector<std::shared_ptr<const kube::Pod>> PendingPods() const override;
  QueueCounts Counts() const override;

  // The cycle recorded by the last move request (-1 before any).
  int64_t MoveRequestCycle() const;

 private:
  // What the queue remembers about a pod between Pop and Done.
  struct InFlight {
    // The latest version of the pod: the popped one, then any Update/Add received while
    // in flight.
    std::shared_ptr<const kube::Pod> pod;
    // An update received while in flight may make the pod schedulable.
    bool update_may_help = false;
    // Deleted while in flight: the attempt's re-queue is dropped.
    bool deleted = false;
  };

  QueuedPodInfo NewQueuedPodInfo(std::shared_ptr<const kube::Pod> pod) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs the PreEnqueue plugins: "" when the pod may enter activeQ, else the name of the
  // plugin that gated it.
  std::string GatingPlugin(const kube::Pod& pod) const;
  // Puts the pod into activeQ, or into the unschedulable pool as gated. Returns true when
  // it entered activeQ.
  bool MoveToActiveQ(std::string key, QueuedPodInfo pod, absl::string_view event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AddToBackoffQ(std::string key, QueuedPodInfo pod, absl::string_view event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A pod the queue does not know yet: activeQ (or gated), counted under `event`.
  void EnqueueNew(std::shared_ptr<const kube::Pod> pod, absl::string_view event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void UpdateLocked(const kube::Pod& old_pod, std::shared_ptr<const kube::Pod> new_pod)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Where an event sends an unschedulable pod.
  enum class MoveVerdict { kStay, kMove, kMoveToActive };
  // kMove when one of the pod's rejecting plugins registered an event matching `event`
  // and its hint says kQueue; kMoveToActive when that plugin is a Pending (or the
  // gating) plugin; kStay otherwise.
  MoveVerdict Verdict(const QueuedPodInfo& pod, const ClusterEvent& event,
                      const EventObjects& objects) const;
  // Whether `plugin` registered `event` and its hint for `pod` says kQueue.
  bool PluginQueues(const std::string& plugin, const kube::Pod& pod, const ClusterEvent& event,
                    const EventObjects& objects) const;
  // Moves the unschedulable pods under `keys` out of the pool (see
  // MoveAllToActiveOrBackoffQueue).
  void MovePodsLocked(const std::vector<std::string>& keys, const ClusterEvent& event,
                      const EventObjects& objects) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FlushBackoffQCompletedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FlushUnschedulablePodsLeftoverLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool PopReady() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return closed_ || !active_q_.empty(); }
  void FlusherLoop() ABSL_LOCKS_EXCLUDED(mu_);
  void StopFlusher() ABSL_LOCKS_EXCLUDED(mu_);
  void UpdateGauges() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CountIncoming(absl::string_view queue, absl::string_view event);
  // scheduler_unschedulable_pods: counts `pod` under `plugin` once; Uncount drops every
  // count the pod holds (popped or deleted).
  void CountUnschedulable(QueuedPodInfo& pod, absl::string_view plugin);
  void UncountUnschedulable(QueuedPodInfo& pod);

  const Clock& clock_;
  const PriorityQueueOptions options_;

  stats::Family<stats::Counter>& incoming_;
  stats::Gauge& pending_active_;
  stats::Gauge& pending_backoff_;
  stats::Gauge& pending_unschedulable_;
  stats::Gauge& pending_gated_;
  stats::Family<stats::Gauge>& unschedulable_pods_;

  mutable absl::Mutex mu_;
  PodHeap active_q_ ABSL_GUARDED_BY(mu_);
  PodHeap backoff_q_ ABSL_GUARDED_BY(mu_);
  UnschedulablePods unschedulable_ ABSL_GUARDED_BY(mu_);
  Nominator nominator_ ABSL_GUARDED_BY(mu_);
  // nominator_.size(), readable without the lock (HasNominatedPods); stored after every
  // change of nominator_.
  std::atomic<size_t> nominated_count_{0};
  absl::flat_hash_map<std::string, InFlight> in_flight_ ABSL_GUARDED_BY(mu_);
  int64_t scheduling_cycle_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t move_request_cycle_ ABSL_GUARDED_BY(mu_) = -1;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // Tells the flusher thread to exit (Close, the stop token, or the destructor).
  bool flusher_stop_ ABSL_GUARDED_BY(mu_) = false;

  // Last member: destroyed (joined) first, while the state it uses is alive.
  std::jthread flusher_;
};

}  // namespace trimaran::sched
