#include "scheduler/backend/queue/priority_queue.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "kube/api/object_meta.h"

namespace trimaran::sched {
namespace {

// Queue labels of the metrics.
constexpr absl::string_view kActive = "active";
constexpr absl::string_view kBackoff = "backoff";
constexpr absl::string_view kUnschedulable = "unschedulable";
constexpr absl::string_view kGated = "gated";

// Event labels of scheduler_queue_incoming_pods_total (upstream's metrics event names).
constexpr absl::string_view kPodAdd = "PodAdd";
constexpr absl::string_view kPodUpdate = "PodUpdate";
constexpr absl::string_view kScheduleAttemptFailure = "ScheduleAttemptFailure";
constexpr absl::string_view kBackoffComplete = "BackoffComplete";

constexpr ClusterEvent kAssignedPodUpdateEvent{EventResource::kPod, ActionType::kUpdate,
                                               "AssignedPodUpdate"};

// Whether the change from `old_pod` to `new_pod` may make a rejected pod schedulable:
// anything but status, resourceVersion and generation (upstream's isPodUpdated).
bool PodUpdateMayHelp(const kube::Pod& old_pod, const kube::Pod& new_pod) {
  if (old_pod.spec != new_pod.spec) return true;
  kube::ObjectMeta a = old_pod.metadata;
  kube::ObjectMeta b = new_pod.metadata;
  a.resource_version.clear();
  b.resource_version.clear();
  a.generation = b.generation = 0;
  return a != b;
}

stats::Family<stats::Gauge>& PendingPodsFamily(const stats::Scope& scope) {
  return scope.GaugeFamily("pending_pods",
                           "Number of pending pods, by the queue type. 'active' means number of "
                           "pods in activeQ; 'backoff' means number of pods in backoffQ; "
                           "'unschedulable' means number of pods in unschedulablePods that the "
                           "scheduler attempted to schedule and failed; 'gated' is the number of "
                           "unschedulable pods that the scheduler never attempted to schedule "
                           "because they are gated.",
                           {"queue"});
}

}  // namespace

bool PrioritySortLess(const QueuedPodInfo& a, const QueuedPodInfo& b) {
  const int32_t pa = kube::PodPriority(*a.pod);
  const int32_t pb = kube::PodPriority(*b.pod);
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

PriorityQueue::PriorityQueue(const Clock& clock, const stats::Scope& scope,
                             PriorityQueueOptions options)
    : clock_(clock),
      options_(std::move(options)),
      incoming_(scope.CounterFamily("queue_incoming_pods_total",
                                    "Number of pods added to scheduling queues by event and "
                                    "queue type.",
                                    {"queue", "event"})),
      pending_active_(PendingPodsFamily(scope).WithLabels({kActive})),
      pending_backoff_(PendingPodsFamily(scope).WithLabels({kBackoff})),
      pending_unschedulable_(PendingPodsFamily(scope).WithLabels({kUnschedulable})),
      pending_gated_(PendingPodsFamily(scope).WithLabels({kGated})),
      unschedulable_pods_(scope.GaugeFamily(
          "unschedulable_pods",
          "The number of unschedulable pods broken down by plugin name. A pod will increment "
          "the gauge for all plugins that caused it to not schedule and so this metric have "
          "meaning only when broken down by plugin.",
          {"plugin", "profile"})),
      active_q_(options_.less ? options_.less : QueuedPodLess(PrioritySortLess)),
      backoff_q_([policy = options_.backoff](const QueuedPodInfo& a, const QueuedPodInfo& b) {
        return policy.Expiry(a) < policy.Expiry(b);
      }) {
  absl::MutexLock lock(&mu_);
  UpdateGauges();
}

PriorityQueue::PriorityQueue(const Clock& clock, const stats::Scope& scope,
                             const QueueSortPlugin& queue_sort, PriorityQueueOptions options)
    : PriorityQueue(clock, scope, [&] {
        options.less = [&queue_sort](const QueuedPodInfo& a, const QueuedPodInfo& b) {
          return queue_sort.Less(a, b);
        };
        return std::move(options);
      }()) {}

PriorityQueue::~PriorityQueue() {
  StopFlusher();
  if (flusher_.joinable()) {
    flusher_.request_stop();
    flusher_.join();
  }
}

// ---- Helpers (under mu_) ----

QueuedPodInfo PriorityQueue::NewQueuedPodInfo(std::shared_ptr<const kube::Pod> pod) const {
  QueuedPodInfo info;
  info.pod = std::move(pod);
  info.timestamp = clock_.Now();
  return info;
}

std::string PriorityQueue::GatingPlugin(const kube::Pod& pod) const {
  for (const PreEnqueuePlugin* plugin : options_.pre_enqueue_plugins) {
    if (!plugin->PreEnqueue(pod).IsSuccess()) return std::string(plugin->Name());
  }
  return "";
}

bool PriorityQueue::MoveToActiveQ(std::string key, QueuedPodInfo pod, absl::string_view event) {
  const bool was_gated = !pod.gating_plugin.empty();
  pod.gating_plugin = GatingPlugin(*pod.pod);
  if (!pod.gating_plugin.empty()) {
    if (!was_gated) CountIncoming(kGated, event);
    CountUnschedulable(pod, pod.gating_plugin);
    unschedulable_.AddOrUpdate(std::move(key), std::move(pod));
    return false;
  }
  active_q_.AddOrUpdate(std::move(key), std::move(pod));
  CountIncoming(kActive, event);
  return true;
}

void PriorityQueue::CountUnschedulable(QueuedPodInfo& pod, absl::string_view plugin) {
  for (const std::string& counted : pod.counted_unschedulable_plugins) {
    if (counted == plugin) return;
  }
  pod.counted_unschedulable_plugins.emplace_back(plugin);
  unschedulable_pods_.WithLabels({plugin, pod.pod->spec.scheduler_name}).Inc();
}

void PriorityQueue::UncountUnschedulable(QueuedPodInfo& pod) {
  for (const std::string& plugin : pod.counted_unschedulable_plugins) {
    unschedulable_pods_.WithLabels({plugin, pod.pod->spec.scheduler_name}).Dec();
  }
  pod.counted_unschedulable_plugins.clear();
}

void PriorityQueue::AddToBackoffQ(std::string key, QueuedPodInfo pod, absl::string_view event) {
  backoff_q_.AddOrUpdate(std::move(key), std::move(pod));
  CountIncoming(kBackoff, event);
}

void PriorityQueue::EnqueueNew(std::shared_ptr<const kube::Pod> pod, absl::string_view event) {
  std::string key = PodKey(*pod);
  if (!pod->status.nominated_node_name.empty()) nominator_.Add(PodInfo::Create(pod));
  nominated_count_.store(nominator_.size(), std::memory_order_release);
  MoveToActiveQ(std::move(key), NewQueuedPodInfo(std::move(pod)), event);
}

bool PriorityQueue::PluginQueues(const std::string& plugin, const kube::Pod& pod,
                                 const ClusterEvent& event, const EventObjects& objects) const {
  if (event.IsWildCard()) return true;
  auto it = options_.plugin_events.find(plugin);
  if (it == options_.plugin_events.end()) return true;  // no EnqueueExtensions: wildcard
  if (std::none_of(it->second.begin(), it->second.end(),
                   [&](const ClusterEvent& e) { return e.Match(event); })) {
    return false;
  }
  auto hint = options_.queueing_hints.find(plugin);
  if (hint == options_.queueing_hints.end() || !hint->second) return true;
  absl::StatusOr<QueueingHint> verdict = hint->second(pod, event, objects);
  if (!verdict.ok()) {
    Log(Component::kQueue)
        .debug("queueing hint failed, queueing plugin={} pod={} event={}: {}", plugin, PodKey(pod),
               event.label, verdict.status().ToString());
    return true;
  }
  return *verdict == QueueingHint::kQueue;
}

PriorityQueue::MoveVerdict PriorityQueue::Verdict(const QueuedPodInfo& pod,
                                                  const ClusterEvent& event,
                                                  const EventObjects& objects) const {
  if (!pod.gating_plugin.empty()) {
    return PluginQueues(pod.gating_plugin, *pod.pod, event, objects) ? MoveVerdict::kMoveToActive
                                                                     : MoveVerdict::kStay;
  }
  if (pod.unschedulable_plugins.empty() && pod.pending_plugins.empty()) return MoveVerdict::kMove;
  // Pending plugins first: one that queues sends the pod to activeQ at once.
  for (const std::string& plugin : pod.pending_plugins) {
    if (PluginQueues(plugin, *pod.pod, event, objects)) return MoveVerdict::kMoveToActive;
  }
  for (const std::string& plugin : pod.unschedulable_plugins) {
    if (PluginQueues(plugin, *pod.pod, event, objects)) return MoveVerdict::kMove;
  }
  return MoveVerdict::kStay;
}

void PriorityQueue::MovePodsLocked(const std::vector<std::string>& keys, const ClusterEvent& event,
                                   const EventObjects& objects) {
  const absl::Time now = clock_.Now();
  int moved = 0;
  for (const std::string& key : keys) {
    const QueuedPodInfo* pod = unschedulable_.Get(key);
    if (pod == nullptr) continue;
    const MoveVerdict verdict = Verdict(*pod, event, objects);
    if (verdict == MoveVerdict::kStay) continue;
    QueuedPodInfo info = *unschedulable_.Delete(key);
    ++moved;
    if (verdict == MoveVerdict::kMoveToActive) {
      MoveToActiveQ(key, std::move(info), event.label);
    } else if (options_.backoff.IsBackingOff(info, now)) {
      AddToBackoffQ(key, std::move(info), event.label);
    } else {
      MoveToActiveQ(key, std::move(info), event.label);
    }
  }
  if (moved > 0) {
    Log(Component::kQueue)
        .debug("moved pods out of the unschedulable pool event={} pods={}", event.label, moved);
  }
}

void PriorityQueue::UpdateGauges() {
  nominated_count_.store(nominator_.size(), std::memory_order_release);
  pending_active_.Set(static_cast<double>(active_q_.size()));
  pending_backoff_.Set(static_cast<double>(backoff_q_.size()));
  pending_unschedulable_.Set(
      static_cast<double>(unschedulable_.size() - unschedulable_.gated_size()));
  pending_gated_.Set(static_cast<double>(unschedulable_.gated_size()));
}

void PriorityQueue::CountIncoming(absl::string_view queue, absl::string_view event) {
  incoming_.WithLabels({queue, event}).Inc();
}

// ---- Informer events ----

void PriorityQueue::Add(std::shared_ptr<const kube::Pod> pod) {
  absl::MutexLock lock(&mu_);
  const std::string key = PodKey(*pod);
  const QueuedPodInfo* queued = active_q_.Get(key);
  if (queued == nullptr) queued = backoff_q_.Get(key);
  if (queued == nullptr) queued = unschedulable_.Get(key);
  if (queued != nullptr) {
    const std::shared_ptr<const kube::Pod> old = queued->pod;
    UpdateLocked(*old, std::move(pod));
  } else if (auto it = in_flight_.find(key); it != in_flight_.end() && !it->second.deleted) {
    const std::shared_ptr<const kube::Pod> old = it->second.pod;
    UpdateLocked(*old, std::move(pod));
  } else {
    EnqueueNew(std::move(pod), kPodAdd);
  }
  UpdateGauges();
}

void PriorityQueue::Update(const kube::Pod& old_pod, std::shared_ptr<const kube::Pod> new_pod) {
  absl::MutexLock lock(&mu_);
  UpdateLocked(old_pod, std::move(new_pod));
  UpdateGauges();
}

void PriorityQueue::UpdateLocked(const kube::Pod& old_pod,
                                 std::shared_ptr<const kube::Pod> new_pod) {
  std::string key = PodKey(*new_pod);
  if (!old_pod.status.nominated_node_name.empty() || !new_pod->status.nominated_node_name.empty() ||
      !nominator_.NodeOf(key).empty()) {
    nominator_.Update(old_pod, PodInfo::Create(new_pod));
    nominated_count_.store(nominator_.size(), std::memory_order_release);
  }

  for (PodHeap* heap : {&active_q_, &backoff_q_}) {
    if (const QueuedPodInfo* queued = heap->Get(key)) {
      QueuedPodInfo info = *queued;
      info.pod = std::move(new_pod);
      heap->AddOrUpdate(std::move(key), std::move(info));
      return;
    }
  }

  if (const QueuedPodInfo* queued = unschedulable_.Get(key)) {
    QueuedPodInfo info = *queued;
    info.pod = new_pod;
    if (!PodUpdateMayHelp(old_pod, *new_pod)) {
      unschedulable_.AddOrUpdate(std::move(key), std::move(info));
      return;
    }
    unschedulable_.Delete(key);
    if (info.gating_plugin.empty() && options_.backoff.IsBackingOff(info, clock_.Now())) {
      AddToBackoffQ(std::move(key), std::move(info), kPodUpdate);
    } else {
      MoveToActiveQ(std::move(key), std::move(info), kPodUpdate);
    }
    return;
  }

  if (auto it = in_flight_.find(key); it != in_flight_.end() && !it->second.deleted) {
    it->second.update_may_help |= PodUpdateMayHelp(old_pod, *new_pod);
    it->second.pod = std::move(new_pod);
    return;
  }

  EnqueueNew(std::move(new_pod), kPodUpdate);
}

void PriorityQueue::Delete(const kube::Pod& pod) {
  absl::MutexLock lock(&mu_);
  const std::string key = PodKey(pod);
  nominator_.Delete(key);
  nominated_count_.store(nominator_.size(), std::memory_order_release);
  std::optional<QueuedPodInfo> deleted = active_q_.Delete(key);
  if (!deleted.has_value()) deleted = backoff_q_.Delete(key);
  if (!deleted.has_value()) deleted = unschedulable_.Delete(key);
  if (deleted.has_value()) UncountUnschedulable(*deleted);
  if (auto it = in_flight_.find(key); it != in_flight_.end()) it->second.deleted = true;
  UpdateGauges();
}

// ---- The scheduling loop ----

std::optional<QueuedPodInfo> PriorityQueue::Pop() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(this, &PriorityQueue::PopReady));
  if (closed_) return std::nullopt;
  QueuedPodInfo info = active_q_.Pop();
  ++info.attempts;
  ++scheduling_cycle_;
  if (!info.initial_attempt_timestamp.has_value()) info.initial_attempt_timestamp = clock_.Now();
  info.unschedulable_plugins.clear();
  info.pending_plugins.clear();
  UncountUnschedulable(info);
  in_flight_[PodKey(*info.pod)] = InFlight{.pod = info.pod};
  UpdateGauges();
  return info;
}

int64_t PriorityQueue::SchedulingCycle() const {
  absl::MutexLock lock(&mu_);
  return scheduling_cycle_;
}

int64_t PriorityQueue::MoveRequestCycle() const {
  absl::MutexLock lock(&mu_);
  return move_request_cycle_;
}

void PriorityQueue::Done(const kube::Pod& pod) {
  absl::MutexLock lock(&mu_);
  in_flight_.erase(PodKey(pod));
}

absl::Status PriorityQueue::AddUnschedulableIfNotPresent(QueuedPodInfo pod_info,
                                                         int64_t pod_scheduling_cycle) {
  absl::MutexLock lock(&mu_);
  std::string key = PodKey(*pod_info.pod);
  bool update_may_help = false;
  if (auto it = in_flight_.find(key); it != in_flight_.end()) {
    if (it->second.deleted) {
      Log(Component::kQueue).debug("dropping a failed pod deleted during its attempt pod={}", key);
      return absl::OkStatus();
    }
    pod_info.pod = it->second.pod;
    update_may_help = it->second.update_may_help;
  }
  if (active_q_.Contains(key) || backoff_q_.Contains(key) || unschedulable_.Contains(key)) {
    return absl::AlreadyExistsError(
        absl::StrCat("pod ", key, " is already present in the scheduling queue"));
  }
  pod_info.timestamp = clock_.Now();
  pod_info.gating_plugin.clear();
  if (!pod_info.pod->status.nominated_node_name.empty()) {
    nominator_.Add(PodInfo::Create(pod_info.pod));
    nominated_count_.store(nominator_.size(), std::memory_order_release);
  }
  const bool error = pod_info.unschedulable_plugins.empty() && pod_info.pending_plugins.empty();
  for (const std::string& plugin : pod_info.unschedulable_plugins) {
    CountUnschedulable(pod_info, plugin);
  }
  for (const std::string& plugin : pod_info.pending_plugins) CountUnschedulable(pod_info, plugin);
  if (move_request_cycle_ >= pod_scheduling_cycle || error || update_may_help) {
    AddToBackoffQ(std::move(key), std::move(pod_info), kScheduleAttemptFailure);
  } else {
    unschedulable_.AddOrUpdate(std::move(key), std::move(pod_info));
    CountIncoming(kUnschedulable, kScheduleAttemptFailure);
  }
  UpdateGauges();
  return absl::OkStatus();
}

// ---- Cluster events ----

void PriorityQueue::MoveAllToActiveOrBackoffQueue(const ClusterEvent& event,
                                                  const EventObjects& objects,
                                                  const PreEnqueueCheck& pre_check) {
  absl::MutexLock lock(&mu_);
  MovePodsLocked(unschedulable_.KeysWhere(
                     [&](const QueuedPodInfo& p) { return !pre_check || pre_check(*p.pod); }),
                 event, objects);
  move_request_cycle_ = scheduling_cycle_;
  UpdateGauges();
}

void PriorityQueue::AssignedPodAdded(const kube::Pod& pod) {
  MoveAllToActiveOrBackoffQueue(kAssignedPodAddEvent, EventObjects{.new_pod = &pod});
}

void PriorityQueue::AssignedPodUpdated(const kube::Pod& old_pod, const kube::Pod& new_pod,
                                       ActionType actions) {
  ClusterEvent event = kAssignedPodUpdateEvent;
  if (Any(actions)) event.action = actions;
  MoveAllToActiveOrBackoffQueue(event, EventObjects{.old_pod = &old_pod, .new_pod = &new_pod});
}

// ---- Flushes ----

void PriorityQueue::FlushBackoffQCompleted() {
  absl::MutexLock lock(&mu_);
  FlushBackoffQCompletedLocked();
}

void PriorityQueue::FlushBackoffQCompletedLocked() {
  const absl::Time now = clock_.Now();
  while (!backoff_q_.empty() && !options_.backoff.IsBackingOff(backoff_q_.Peek(), now)) {
    QueuedPodInfo info = backoff_q_.Pop();
    std::string key = PodKey(*info.pod);
    MoveToActiveQ(std::move(key), std::move(info), kBackoffComplete);
  }
  UpdateGauges();
}

void PriorityQueue::FlushUnschedulablePodsLeftover() {
  absl::MutexLock lock(&mu_);
  FlushUnschedulablePodsLeftoverLocked();
}

void PriorityQueue::FlushUnschedulablePodsLeftoverLocked() {
  const absl::Time now = clock_.Now();
  MovePodsLocked(unschedulable_.KeysWhere([&](const QueuedPodInfo& p) {
    return now - p.timestamp > options_.pod_max_in_unschedulable_pods_duration;
  }),
                 kUnschedulableTimeoutEvent, EventObjects{});
  UpdateGauges();
}

// ---- Nominated pods ----

void PriorityQueue::AddNominatedPod(std::shared_ptr<const kube::Pod> pod,
                                    absl::string_view node_name) {
  PodInfo info = PodInfo::Create(std::move(pod));  // outside the lock: computes requests
  absl::MutexLock lock(&mu_);
  nominator_.Add(std::move(info), node_name);
  nominated_count_.store(nominator_.size(), std::memory_order_release);
}

void PriorityQueue::DeleteNominatedPodIfExists(const kube::Pod& pod) {
  absl::MutexLock lock(&mu_);
  nominator_.Delete(PodKey(pod));
  nominated_count_.store(nominator_.size(), std::memory_order_release);
}

std::vector<PodInfo> PriorityQueue::NominatedPodsForNode(absl::string_view node_name) const {
  absl::MutexLock lock(&mu_);
  return nominator_.PodsForNode(node_name);
}

// ---- Lifecycle ----

void PriorityQueue::Run(std::stop_token stop) {
  flusher_ = std::jthread([this, stop = std::move(stop)](std::stop_token own) {
    std::stop_callback on_stop(stop, [this] { StopFlusher(); });
    std::stop_callback on_own_stop(own, [this] { StopFlusher(); });
    FlusherLoop();
  });
}

void PriorityQueue::FlusherLoop() {
  absl::MutexLock lock(&mu_);
  // Both flushes run at once, then every interval (as upstream's wait.Until).
  absl::Time next_backoff = clock_.Now();
  absl::Time next_leftover = next_backoff;
  while (!flusher_stop_) {
    if (!clock_.AwaitWithDeadline(mu_, &flusher_stop_, std::min(next_backoff, next_leftover))) {
      continue;  // stopped (the loop condition ends it) or woken early
    }
    const absl::Time now = clock_.Now();
    if (now >= next_backoff) {
      FlushBackoffQCompletedLocked();
      next_backoff = now + options_.backoff_flush_interval;
    }
    if (now >= next_leftover) {
      FlushUnschedulablePodsLeftoverLocked();
      next_leftover = now + options_.unschedulable_flush_interval;
    }
  }
}

void PriorityQueue::StopFlusher() {
  absl::MutexLock lock(&mu_);
  flusher_stop_ = true;
}

void PriorityQueue::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
  flusher_stop_ = true;
}

// ---- Introspection ----

std::vector<std::shared_ptr<const kube::Pod>> PriorityQueue::PendingPods() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<const kube::Pod>> pods;
  pods.reserve(active_q_.size() + backoff_q_.size() + unschedulable_.size());
  auto collect = [&](const QueuedPodInfo& p) { pods.push_back(p.pod); };
  active_q_.ForEach(collect);
  backoff_q_.ForEach(collect);
  unschedulable_.ForEach(collect);
  return pods;
}

QueueCounts PriorityQueue::Counts() const {
  absl::MutexLock lock(&mu_);
  return QueueCounts{
      .active = active_q_.size(),
      .backoff = backoff_q_.size(),
      .unschedulable = unschedulable_.size() - unschedulable_.gated_size(),
      .gated = unschedulable_.gated_size(),
      .in_flight = in_flight_.size(),
  };
}

}  // namespace trimaran::sched
