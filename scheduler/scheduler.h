#pragma once
// Scheduler: the scheduling loop that ties the framework runtime, the queue and the
// cache together (upstream's pkg/scheduler Scheduler, scheduleOne and the event
// handlers; spec kube-scheduler.md §3–§6). One class in upstream's three files:
//   scheduler.cc       creation (Create: profiles, Handle, cache, queue, pools) and
//                      Run / Stop
//   schedule_one.cc    the scheduling and binding cycles as named steps (upstream's
//                      schedule_one.go), the failure handler and the CycleObserver's
//                      outcome points (cycle_observer.h)
//   event_handlers.cc  the On* handlers below and AddAllEventHandlers, the informers'
//                      wiring to them (event_handlers.h)
//
//   Scheduler ── one Framework per profile (schedulerName), all sharing
//             ├─ one PriorityQueue (ordered by the first profile's QueueSort plugin)
//             ├─ one CacheImpl and one Snapshot (updated at the start of each cycle)
//             ├─ one ThreadPoolParallelizer (Filter/Score) and one Handle
//             ├─ a BindingPool (binding_parallelism threads, binding_pool.h): the
//             │  binding cycles that cannot wait run on it
//             └─ DedicatedThreads: a binding cycle that may wait runs on a thread of its own
//
// ScheduleOne (one scheduling cycle, on the caller's thread):
//   Pop → skip (Done) when the pod's schedulerName has no profile, the pod is being
//   deleted, or it is already assumed → UpdateSnapshot → SchedulePod (filter, score,
//   select) → CycleObserver::OnEvaluated → [PostFilter when the pod fits nowhere and
//   the profile has one] → AssumePod (a copy with spec.nodeName) → Reserve → Permit →
//   the binding cycle is queued on the binding pool: WaitOnPermit → PreBind → Bind →
//   OnScheduled → FinishBinding → PostBind, then the "Scheduled" event "Successfully
//   assigned ns/pod to node". Every failure reaches the observer's OnUnschedulable or
//   OnError exactly once (the failure handler, a dropped binding).
//   A failure after AssumePod runs Unreserve and ForgetPod, then
//   MoveAllToActiveOrBackoffQueue(AssignedPodDelete) (the forgotten pod freed room),
//   then the failure handler.
//
// Waiting never holds a pool worker (issue 30 point 1). After Permit, the scheduling
// thread asks Framework::BindingCycleMayWait: the pod is held at Permit (a Coscheduling
// gang below minMember waits up to 15 min), or a PreBind plugin may block (it lacks
// framework/pre_bind_pre_flight.h, or its PreBindPreFlight did not answer Skip) (VolumeBinding with
// claims to bind waits up to bindTimeoutSeconds for the PV controller). Such a cycle runs on a
// thread of its own (DedicatedThreads, started at once, gone when the cycle ends: kube-scheduler's
// goroutine per binding cycle), so any number of waiting pods leaves the pool's workers to the pods
// that only need their Bind POST; the others run on the pool, as before. A waiting thread is parked
// in the Clock's wait and costs no CPU. If no thread can be created, the cycle runs on the pool.
//
// Stop (SIGTERM) cancels every wait at once: it requests Handle::shutdown_token(), which
// rejects every pod held at Permit ("scheduler stopped", WaitOnPermit's stop) and ends the
// PreBind waits; a binding cycle that sees the stop before its Bind, or fails after it, is
// dropped as behind the fence below (unreserved and forgotten, nothing written: the pod
// stays pending in the API for the next leader). A Bind POST already on the wire
// completes. Stop then joins every binding cycle, so nothing is bound after it returns.
//
// Fencing (under leader election): a binding cycle is *dropped* when the fence is
// closed, i.e. options.fence_stop was requested (leadership lost) or
// options.leading_until has passed. It
// is checked before the cycle starts, again right before Bind, and after a failed Bind;
// the Bind call itself carries the stop and the deadline (Handle::binding_call_options),
// so an in-flight POST or its retry sleep is abandoned. A dropped pod is unreserved and
// forgotten and nothing is written for it (no event, no failure condition, no requeue):
// the next leader schedules it. Failure patches queued on the binding pool are dropped
// too. So Run returns promptly after a loss, without a normal drain of pending binds (a
// graceful stop drops them too, see above, while the lease is still held).
//
// Failure handler: requeues the pod with AddUnschedulableIfNotPresent (rejecting plugins
// from the Diagnosis; none for an error, which means backoff), records a
// FailedScheduling Warning event through the Handle's EventRecorder and patches the
// pod's PodScheduled condition to False (reason Unschedulable, or SchedulerError for an
// error) with the upstream FitError message ("0/N nodes are available: ..."). The patch
// runs on the binding pool so that the scheduling thread never waits on the API.
//
// Event handlers (called by the daemon's informers, and by tests directly):
//   pods: unassigned pods of our profiles → queue (Add/Update/Delete); assigned pods →
//   cache (+ AssignedPodAdded/Updated, or MoveAll(AssignedPodDelete) on delete); a
//   queued pod that becomes assigned leaves the queue and enters the cache; unassigned
//   pods of other schedulers are ignored; terminal pods are removed from the cache.
//   nodes: cache, then MoveAllToActiveOrBackoffQueue(NodeAdd / Node update with the
//   NodeUpdateActions sub-kinds, nothing when no relevant field changed / NodeDelete).
//   Every event carries its objects for the plugins' QueueingHints (the queue asks each
//   pod's own profile's plugin instance).
//
// Stats (stats_scopes.h; names relative to the scopes, which the composition root
// prefixes). In `upstream`, spec §8.2 names without the "scheduler_" subsystem
// (scheduler_metrics.h): schedule_attempts_total{result,profile},
// scheduling_attempt_duration_seconds{result,profile}, pod_scheduling_attempts,
// pod_scheduling_sli_duration_seconds{attempts};
// result ∈ scheduled, unschedulable, error. "scheduled" is observed when the binding
// cycle succeeds. The queue, the cache, the frameworks and the plugins register theirs
// in the same scopes (and the AsyncEventRecorder the Scheduler makes when given none, in
// `own`); docs/metrics.md lists them all.
//
// Thread-safety: ScheduleOne and Run must be called from one thread at a time (the
// scheduling thread). The event handlers, Stop and WaitForBindings are safe for
// concurrent use with it and with each other.
//
// Ownership: the Client, the Clock, the Registry given to Create (only during Create),
// the scopes' registries and the options' observer, ring and load watcher must outlive
// the Scheduler. The destructor stops (as Stop)
// and joins every binding cycle.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/stats/stats.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/client.h"
#include "scheduler/backend/cache/cache_impl.h"
#include "scheduler/backend/cache/object_store.h"
#include "scheduler/backend/cache/pod_group_store.h"
#include "scheduler/backend/cache/snapshot.h"
#include "scheduler/backend/cache/storage_store.h"
#include "scheduler/backend/queue/priority_queue.h"
#include "scheduler/binding_pool.h"
#include "scheduler/cycle_observer.h"
#include "scheduler/decisions/decision_ring.h"
#include "scheduler/dedicated_threads.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/metrics_availability.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/stats_scopes.h"
#include "scheduler/runtime/framework.h"
#include "scheduler/runtime/parallelizer.h"
#include "scheduler/runtime/schedule_algorithm.h"
#include "scheduler/scheduler_metrics.h"
#include "scheduler/unsupported_pods.h"

namespace trimaran::sched {

struct SchedulerOptions {
  // Workers of the Filter/Score parallelizer (config `parallelism`), capped at the
  // number of cores (see Scheduler::Create).
  int parallelism = ThreadPoolParallelizer::kDefaultParallelism;
  // Threads running the binding cycles that cannot wait (and failure patches)
  // concurrently; a cycle that may wait gets a thread of its own (see Scheduler).
  int binding_parallelism = 16;
  // podInitialBackoffSeconds / podMaxBackoffSeconds.
  BackoffPolicy backoff;
  // The global percentageOfNodesToScore, applied to profiles that leave theirs unset.
  std::optional<int32_t> percentage_of_nodes_to_score;
  // Seed of host selection's tie-breaking.
  uint64_t seed = 0x7431'6d61'7261'6e00;
  // Host selection's last tie-break (the daemon's --tie-break): false picks one of the
  // nodes still tied after the exact tie-break at random (seeded, upstream's
  // selectHost); true takes the smallest node name among them, the rule of
  // scheduler/explain's Explainer and so of the simulator (ScheduleOptions::
  // deterministic_tie_break), so that the daemon can be compared with them pod by pod.
  bool deterministic_tie_break = false;
  // Start the queue's periodic flushers (backoff, unschedulable leftovers) in Run().
  bool run_queue_flushers = true;
  // Ask the plugins' QueueingHints before moving a pod they rejected (upstream's
  // SchedulerQueueingHints, on by default since 1.32). false: every matching event
  // moves the pod (benchmarks compare the two).
  bool queueing_hints = true;
  // The load watcher handed to plugins through Handle::load_watcher() (not owned;
  // must outlive the Scheduler). Null: no load-aware data.
  lw::Client* load_watcher = nullptr;
  // The per-args metrics sources handed through Handle::load_watcher_sources() (not
  // owned; must outlive the Scheduler). Null: none.
  lw::SourcePool* load_watcher_sources = nullptr;
  // Told when a load-aware plugin's metrics become unusable or usable again
  // (Handle::metrics_availability; not owned, must outlive the Scheduler). Null: nobody.
  MetricsAvailabilityObserver* metrics_availability = nullptr;
  // How long an assumed pod whose binding finished may wait for the informer's Add
  // before it is dropped from the cache (CacheOptions::assumed_pod_ttl). Zero (the
  // cache's default, upstream since kubernetes#106361) means never; the daemon sets
  // kDaemonAssumedPodTtl. When positive, Run() expires them every
  // `assumed_pod_cleanup_period` (upstream's cleanAssumedPeriod, 1 s).
  absl::Duration assumed_pod_ttl = absl::ZeroDuration();
  absl::Duration assumed_pod_cleanup_period = absl::Seconds(1);
  // The leadership fence (leader election): the instant after which this replica may no
  // longer act as the leader (kube::LeaderElector::LeadingUntil). Called by binding
  // cycles from any thread. Null: no fence (a single replica).
  std::function<absl::Time()> leading_until;
  // Told of every scheduling attempt and its outcome (cycle_observer.h). Not owned;
  // must outlive the Scheduler. Null: no observer (no cost), unless `decisions` is set.
  CycleObserver* cycle_observer = nullptr;
  // Shorthand for a cycle_observer that records each attempt's decision in this ring
  // (scheduler/decisions/decision_recorder.h: the best nodes with their per-plugin
  // scores, fallbacks, outcome; Bound when the binding cycle ends); the Scheduler owns
  // that recorder. Not owned; must outlive the Scheduler. Not with cycle_observer.
  decisions::DecisionRing* decisions = nullptr;
  // Requested the moment leadership is lost (not on a graceful stop, which finishes the
  // queued binds while the lease is still held). Default: never.
  std::stop_token fence_stop;
};

// The daemon's assumed-pod TTL: kube-scheduler 1.20's durationToExpireAssumedPod. Long
// enough that a slow informer (a watch that relists, an apiserver under load) never
// loses a pod the scheduler bound (an expired pod's resources are free again until the
// informer's Add arrives, so a too-short TTL can overcommit a node); short enough that a
// bind whose confirmation never arrives (the pod was deleted between the Bind and the
// watch event, a lost watch event) does not hold the node's resources for ever.
inline constexpr absl::Duration kDaemonAssumedPodTtl = absl::Minutes(15);

class Scheduler {
 public:
  // One Framework per profile (schedulerNames must be distinct and non-empty). When
  // `recorder` is null, the Scheduler owns an AsyncEventRecorder over `client`.
  // InvalidArgument for duplicate/empty profile names, no profile, or both
  // options.cycle_observer and options.decisions; the Framework's error otherwise.
  static absl::StatusOr<std::unique_ptr<Scheduler>> Create(std::vector<ProfileConfig> profiles,
                                                           const Registry& registry,
                                                           kube::Client& client, const Clock& clock,
                                                           const StatsScopes& scopes,
                                                           SchedulerOptions options = {},
                                                           EventRecorder* recorder = nullptr);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // ---- The loop ----

  // One scheduling cycle (see the header comment). Blocks in Pop until a pod is
  // queued; false once the queue is closed.
  bool ScheduleOne();
  // Starts the queue flushers (if enabled) and, when options.assumed_pod_ttl is
  // positive, a thread that runs Cache::CleanupAssumedPods(clock.Now()) every
  // options.assumed_pod_cleanup_period (on the clock's cancellable sleep); loops
  // ScheduleOne until `stop` is requested or Stop() is called; then stops the cleanup
  // thread and drains in-flight bindings.
  void Run(std::stop_token stop);
  // Cancels every wait of the binding cycles (see the header comment), closes the queue
  // (Pop returns nullopt; Run ends) and waits for every binding cycle to end; no Bind
  // starts after the call. Idempotent.
  void Stop();
  // Blocks until no binding cycle or failure patch is queued or running (tests). A pod
  // held at Permit or waiting in PreBind keeps it waiting.
  void WaitForBindings();

  // ---- Event handlers ----

  void OnPodAdd(std::shared_ptr<const kube::Pod> pod);
  void OnPodUpdate(std::shared_ptr<const kube::Pod> old_pod,
                   std::shared_ptr<const kube::Pod> new_pod);
  void OnPodDelete(std::shared_ptr<const kube::Pod> pod);
  void OnNodeAdd(std::shared_ptr<const kube::Node> node);
  void OnNodeUpdate(std::shared_ptr<const kube::Node> old_node,
                    std::shared_ptr<const kube::Node> new_node);
  void OnNodeDelete(std::shared_ptr<const kube::Node> node);
  // PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes, CSIDrivers,
  // CSIStorageCapacities: kept in storage() and turned into ClusterEvents (Add /
  // UpdateOther / Delete of the kind's EventResource, with the objects for the
  // plugins' QueueingHints) for the volume plugins' registrations. `old_object` may be
  // nullptr (an update whose previous version is unknown).
  void OnStorageAdd(std::shared_ptr<const kube::StorageObject> object);
  void OnStorageUpdate(std::shared_ptr<const kube::StorageObject> old_object,
                       std::shared_ptr<const kube::StorageObject> object);
  void OnStorageDelete(std::shared_ptr<const kube::StorageObject> object);
  // PodGroups (scheduling.x-k8s.io): kept in pod_groups() (with the pods carrying the
  // pod-group label, fed by the pod handlers above) and turned into kPodGroup
  // ClusterEvents for Coscheduling; a new pending member is one too (UpdateOther).
  void OnPodGroupAdd(std::shared_ptr<const kube::PodGroup> group);
  void OnPodGroupUpdate(std::shared_ptr<const kube::PodGroup> group);
  void OnPodGroupDelete(std::shared_ptr<const kube::PodGroup> group);
  // Whether PodGroups can be read (the informer synced) or why not; turning OK moves the
  // pods Coscheduling turned away (kPodGroup event).
  void SetPodGroupsHealth(absl::Status health);
  // Called (on the informer's thread) with "ns", "group" whenever a PodGroup or one of
  // its member pods changes: the daemon's PodGroup status writer. Set before the
  // informers start.
  void SetPodGroupObserver(std::function<void(const std::string&, const std::string&)> fn) {
    pod_group_observer_ = std::move(fn);
  }

  // ---- Introspection ----

  // The Framework of `scheduler_name`, or nullptr.
  Framework* FrameworkFor(absl::string_view scheduler_name) const;
  bool ResponsibleFor(const kube::Pod& pod) const {
    return FrameworkFor(pod.spec.scheduler_name) != nullptr;
  }
  SchedulingQueue& queue() { return *queue_; }
  Cache& cache() { return *cache_; }
  // Namespaces, services and controllers: the Handle's object_lister(). The owner's
  // informers feed it (Apply/Remove, from any thread).
  ObjectStore& objects() { return objects_; }
  // PVs, PVCs, StorageClasses and CSINodes: the Handle's storage_lister().
  StorageStore& storage() { return storage_; }
  // PodGroups and their member pods: the Handle's pod_group_lister().
  PodGroupStore& pod_groups() { return pod_groups_; }
  EventRecorder& event_recorder() { return *recorder_; }

  // For an owner that runs its own cycles instead of Run()/ScheduleOne() (the extender,
  // scheduler/extender/): brings the snapshot the Handle's listers read up to date with
  // the cache and returns it. Call it only where ScheduleOne would run (one caller at a
  // time, never while Run() is running).
  absl::StatusOr<const Snapshot*> RefreshSnapshot();

 private:
  class SchedulerHandle;

  // One scheduling attempt of a pod, as its scheduling cycle hands it to the binding
  // cycle (upstream passes these one by one).
  struct PodAttempt {
    Framework* fwk = nullptr;
    QueuedPodInfo pod_info;
    int64_t cycle = 0;  // the queue's scheduling cycle when the pod was popped
    absl::Time start;   // for the duration metric
    std::shared_ptr<CycleState> state;
    // What the observer keeps of the attempt (may be null).
    std::shared_ptr<CycleObserver::Attempt> observed;
    // Once a node was chosen: the assumed copy (spec.nodeName set), and the scheduling
    // cycle's counts for the placement log line (--v=2, as kube-scheduler's
    // "Successfully bound pod to node").
    std::shared_ptr<const kube::Pod> assumed;
    int evaluated_nodes = 0;
    int feasible_nodes = 0;
    // The binding cycle will wait at Permit or work in PreBind
    // (Framework::BindingCycleMayWait): the pod is nominated to its node meanwhile.
    bool binding_may_wait = false;
  };

  Scheduler(kube::Client& client, const Clock& clock, const StatsScopes& scopes,
            SchedulerOptions options);
  // Create's steps: one Framework per profile, then the queue over their plugins'
  // events, hints and PreEnqueue plugins.
  absl::Status CreateFrameworks(std::vector<ProfileConfig> profiles, const Registry& registry,
                                PriorityQueueOptions& queue_options);
  void CreateQueue(PriorityQueueOptions queue_options);

  // ---- The scheduling cycle (schedule_one.cc) ----

  // The pod's profile, or nullptr (logged).
  Framework* FrameworkForPod(const kube::Pod& pod) const;
  // upstream skipPodSchedule: being deleted, or already assumed (a stale queue entry).
  bool SkipPodSchedule(const kube::Pod& pod) const;
  // Snapshot → algorithm → PostFilter → assume → Reserve → Permit. The attempt to bind,
  // or nullopt when it failed (and went to HandleFailure).
  std::optional<PodAttempt> SchedulingCycle(Framework& fwk, QueuedPodInfo pod_info);
  // Tells the observer (if any) the algorithm's result: the attempt's record.
  // A pod that needs what trimaran does not implement (unsupported_pods.h): refused as
  // a PreFilter rejection would be, counted.
  void RefuseUnsupportedPod(PodAttempt attempt, const UnsupportedPod& refused);
  void ObserveEvaluated(PodAttempt& attempt, const ScheduleResult& result);
  // Runs the PostFilter plugins (preemption) for a pod rejected everywhere; a failure's
  // message joins the FitError in `result`. The node it nominated, or "".
  std::string RunPostFilter(PodAttempt& attempt, ScheduleResult& result);
  // AssumePod on `host`, then Reserve and Permit (undone on their failure).
  Status AssumeReserveAndPermit(PodAttempt& attempt, const std::string& host);
  // Scheduling-cycle failure: requeue, event, status patch, observer outcome.
  // `nominated_node` (from a PostFilter that made room, i.e. preemption) nominates the
  // pod there: the queue's nominator at once, status.nominatedNodeName in the same
  // status patch as the PodScheduled condition. `clear_nomination` (a binding cycle that
  // failed after NominateWhileBinding, upstream's clearNominatedNode) removes the pod
  // from the nominator and clears status.nominatedNodeName in that patch, so the room it
  // no longer holds is not kept for it.
  void HandleFailure(PodAttempt attempt, const Status& status, const Diagnosis* diagnosis,
                     const std::string& nominated_node = "", bool clear_nomination = false);
  // Undoes Reserve and the assumption after a failure past AssumePod.
  void UnreserveAndForget(Framework& fwk, CycleState& state, const kube::Pod& assumed);
  void ObserveAttempt(absl::string_view result, absl::string_view profile, absl::Time start);

  // ---- The binding cycle (schedule_one.cc) ----

  // Runs the binding cycle on a thread of its own when it may wait, else on the binding
  // pool (see the header comment).
  void StartBindingCycle(PodAttempt attempt);
  // WaitOnPermit → PreBind → Bind → CompleteBinding (runs on the binding pool or its own
  // thread).
  void BindingCycle(PodAttempt attempt);
  // kube-scheduler 1.35+'s NominatedNodeNameForExpectation: a pod whose binding cycle
  // waits carries status.nominatedNodeName = its node meanwhile, so that autoscalers see
  // where it is going (the apiserver clears it at the bind,
  // ClearingNominatedNodeNameAfterBinding). A failed patch is logged; binding goes on.
  void NominateWhileBinding(const PodAttempt& attempt);
  Status Bind(PodAttempt& attempt);
  // A failure in the binding cycle: dropped behind the fence, or unreserved, forgotten,
  // other pods moved, and (unless the API shows it bound after all) HandleFailure.
  void HandleBindingCycleError(PodAttempt attempt, const Status& status, bool bind_attempted);
  // Bound: observer, FinishBinding, metrics, log, the Scheduled event, PostBind.
  void CompleteBinding(PodAttempt attempt);
  // Whether the API says `pod` (same UID) is bound to a node (one GET).
  bool IsBoundInApi(const kube::Pod& pod);
  // Whether the fence is closed (see the header comment).
  bool Fenced() const;
  // Why a binding cycle must end here without writing anything (the fence is closed, or
  // Stop was called), or "" when it may go on.
  absl::string_view DropReason() const;
  // What binding cycles pass to the API (Handle::binding_call_options).
  kube::CallOptions BindingCallOptions() const;
  // When DropReason says so, drops the binding cycle and returns true.
  bool DropIfStopping(PodAttempt& attempt);
  // Drops a binding cycle (DropReason `why`): observes an Error, releases a Permit wait
  // it has not reached, unreserves, forgets, Done; no API call.
  void DropBinding(PodAttempt& attempt, absl::string_view why);

  // ---- Event handlers' helper (event_handlers.cc) ----

  // Feeds pod_groups_ and the observer with a pod's change (either version may be null).
  void NotePodGroupMember(const kube::Pod* old_pod, const std::shared_ptr<const kube::Pod>& pod);

  kube::Client& client_;
  const Clock& clock_;
  const StatsScopes scopes_;
  const SchedulerOptions options_;

  std::unique_ptr<EventRecorder> owned_recorder_;
  EventRecorder* recorder_ = nullptr;
  std::unique_ptr<ThreadPoolParallelizer> parallelizer_;
  std::unique_ptr<SchedulerHandle> handle_;
  // Written only by the scheduling thread, between cycles.
  Snapshot snapshot_;
  ObjectStore objects_;
  StorageStore storage_;
  PodGroupStore pod_groups_;
  std::function<void(const std::string&, const std::string&)> pod_group_observer_;
  std::unique_ptr<CacheImpl> cache_;
  std::vector<FrameworkPtr> frameworks_;
  absl::flat_hash_map<std::string, Framework*> by_name_;
  std::unique_ptr<PriorityQueue> queue_;
  std::unique_ptr<SchedulerMetrics> metrics_;
  // trimaran_unsupported_pods_total{feature} (own scope).
  stats::Family<stats::Counter>* unsupported_pods_ = nullptr;
  // options_.cycle_observer, or the recorder made for options_.decisions; may be null.
  std::unique_ptr<CycleObserver> owned_observer_;
  CycleObserver* observer_ = nullptr;

  // Scheduling-thread state.
  SchedulingAlgorithmState algo_;
  RandomSource random_;

  std::unique_ptr<BindingPool> binding_pool_;
  // The binding cycles that may wait, one thread each.
  std::unique_ptr<DedicatedThreads> waiting_cycles_;
  absl::Mutex stop_mu_;
  bool stopped_ ABSL_GUARDED_BY(stop_mu_) = false;
  // Requested by Stop(): Handle::shutdown_token().
  std::stop_source shutdown_;
};

}  // namespace trimaran::sched
