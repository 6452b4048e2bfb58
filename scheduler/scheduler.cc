#include "scheduler/scheduler.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "kube/api/pod_resources.h"
#include "kube/api/pod_status_patch.h"
#include "scheduler/decisions/decision_builder.h"
#include "scheduler/event_recorder.h"
#include "scheduler/framework/cluster_event.h"

namespace trimaran::sched {
namespace {

constexpr absl::string_view kResultScheduled = "scheduled";
constexpr absl::string_view kResultUnschedulable = "unschedulable";
constexpr absl::string_view kResultError = "error";

// Every plugin name a profile lists, once.
std::vector<std::string> PluginNames(const ProfileConfig& p) {
  std::vector<std::string> names;
  auto add = [&](const std::vector<std::string>& list) {
    names.insert(names.end(), list.begin(), list.end());
  };
  add(p.queue_sort);
  add(p.pre_enqueue);
  add(p.pre_filter);
  add(p.filter);
  add(p.post_filter);
  add(p.pre_score);
  for (const WeightedPlugin& w : p.score) names.push_back(w.name);
  add(p.reserve);
  add(p.permit);
  add(p.pre_bind);
  add(p.bind);
  add(p.post_bind);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// The update sub-kinds between two versions of an assigned pod that matter to
// unschedulable pods.
ActionType AssignedPodUpdateActions(const kube::Pod& old_pod, const kube::Pod& new_pod) {
  ActionType actions = ActionType::kNone;
  if (old_pod.metadata.labels != new_pod.metadata.labels) actions |= ActionType::kUpdatePodLabel;
  const kube::Resource old_req = kube::ComputePodRequests(old_pod);
  const kube::Resource new_req = kube::ComputePodRequests(new_pod);
  if (new_req.milli_cpu < old_req.milli_cpu || new_req.memory < old_req.memory) {
    actions |= ActionType::kUpdatePodScaleDown;
  }
  return actions;
}

}  // namespace

// ---- Handle ----

class Scheduler::SchedulerHandle final : public Handle {
 public:
  explicit SchedulerHandle(Scheduler& s) : s_(s) {}
  const SharedLister& snapshot_lister() const override { return s_.snapshot_; }
  kube::Client& client() override { return s_.client_; }
  EventRecorder& event_recorder() override { return *s_.recorder_; }
  const StatsScopes& stats_scopes() const override { return s_.scopes_; }
  Parallelizer& parallelizer() override { return *s_.parallelizer_; }
  const Clock& clock() const override { return s_.clock_; }
  lw::Client* load_watcher() override { return s_.options_.load_watcher; }
  lw::SourcePool* load_watcher_sources() override { return s_.options_.load_watcher_sources; }
  kube::CallOptions binding_call_options() override { return s_.BindingCallOptions(); }
  const ObjectLister& object_lister() const override { return s_.objects_; }
  PodNominator* nominator() const override { return s_.queue_.get(); }
  const StorageLister& storage_lister() const override { return s_.storage_; }
  const PodGroupLister& pod_group_lister() const override { return s_.pod_groups_; }
  bool PodExists(const kube::Pod& pod) const override { return s_.cache_->GetPod(pod).ok(); }
  std::stop_token shutdown_token() const override { return s_.shutdown_.get_token(); }

 private:
  Scheduler& s_;
};

// ---- Binding pool: a fixed set of threads running queued tasks. ----

class Scheduler::BindingPool {
 public:
  explicit BindingPool(int threads) {
    for (int i = 0; i < std::max(1, threads); ++i) {
      threads_.emplace_back([this] { Loop(); });
    }
  }
  ~BindingPool() {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    for (std::thread& t : threads_) t.join();
  }

  void Submit(std::function<void()> task) {
    absl::MutexLock lock(&mu_);
    ++pending_;
    tasks_.push_back(std::move(task));
  }

  // Blocks until every submitted task (including ones they submit) has run.
  void Drain() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](int* pending) { return *pending == 0; }, &pending_));
  }

 private:
  void Loop() {
    while (true) {
      std::function<void()> task;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](BindingPool* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) {
              return !p->tasks_.empty() || p->stopping_;
            },
            this));
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
      absl::MutexLock lock(&mu_);
      --pending_;
    }
  }

  absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  int pending_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

// ---- Metrics ----

struct Scheduler::Metrics {
  explicit Metrics(const stats::Scope& scope)
      : attempts(scope.CounterFamily("schedule_attempts_total",
                                     "Scheduling attempts by result and profile.",
                                     {"result", "profile"})),
        duration(scope.HistogramFamily("scheduling_attempt_duration_seconds",
                                       "Scheduling attempt latency (algorithm + binding).",
                                       {"result", "profile"},
                                       stats::ExponentialBuckets(0.001, 2, 15))),
        pod_attempts(scope
                         .HistogramFamily("pod_scheduling_attempts",
                                          "Attempts needed to schedule a pod.", {},
                                          stats::ExponentialBuckets(1, 2, 5))
                         .Get()),
        sli(scope.HistogramFamily("pod_scheduling_sli_duration_seconds",
                                  "From the pod's first scheduling attempt to bound.", {"attempts"},
                                  stats::ExponentialBuckets(0.01, 2, 20))) {}

  stats::Family<stats::Counter>& attempts;
  stats::Family<stats::Histogram>& duration;
  stats::Histogram& pod_attempts;
  stats::Family<stats::Histogram>& sli;
};

// ---- Construction ----

Scheduler::Scheduler(kube::Client& client, const Clock& clock, const StatsScopes& scopes,
                     SchedulerOptions options)
    : client_(client),
      clock_(clock),
      scopes_(scopes),
      options_(std::move(options)),
      random_(options_.seed) {}

absl::StatusOr<std::unique_ptr<Scheduler>> Scheduler::Create(
    std::vector<ProfileConfig> profiles, const Registry& registry, kube::Client& client,
    const Clock& clock, const StatsScopes& scopes, SchedulerOptions options,
    EventRecorder* recorder) {
  if (profiles.empty()) return absl::InvalidArgumentError("scheduler: no profiles");
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (profiles[i].scheduler_name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("profiles[", i, "]: empty schedulerName"));
    }
    if (profiles[i].queue_sort != profiles[0].queue_sort) {
      return absl::InvalidArgumentError(
          absl::StrCat("profiles[", i, "]: every profile must use the same queueSort plugins"));
    }
  }
  std::unique_ptr<Scheduler> s(new Scheduler(client, clock, scopes, options));
  if (recorder == nullptr) {
    s->owned_recorder_ = std::make_unique<AsyncEventRecorder>(client, clock, scopes.own);
    recorder = s->owned_recorder_.get();
  }
  s->recorder_ = recorder;
  // kube-scheduler's `parallelism` (default 16) counts goroutines, which are cheap. Our
  // workers are OS threads: more of them than cores only adds contention (measured: 16
  // workers on 2 cores schedule ~45% slower than 2), so the pool is capped at the
  // number of cores.
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  s->parallelizer_ =
      std::make_unique<ThreadPoolParallelizer>(std::clamp(options.parallelism, 1, cores));
  s->handle_ = std::make_unique<SchedulerHandle>(*s);
  s->cache_ = std::make_unique<CacheImpl>(
      clock, scopes, CacheOptions{.assumed_pod_ttl = s->options_.assumed_pod_ttl});
  s->metrics_ = std::make_unique<Metrics>(scopes.upstream);

  PriorityQueueOptions queue_options;
  queue_options.backoff = options.backoff;
  // Plugin name -> scheduler name -> the profile's instance, for the queueing hints: a
  // pod is asked about by its own profile's plugin (args may differ between profiles).
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, const EnqueueExtensions*>>
      hint_providers;
  for (ProfileConfig& profile : profiles) {
    if (s->by_name_.contains(profile.scheduler_name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate profile schedulerName \"", profile.scheduler_name, "\""));
    }
    if (!profile.percentage_of_nodes_to_score.has_value() ||
        *profile.percentage_of_nodes_to_score == 0) {
      if (options.percentage_of_nodes_to_score.has_value()) {
        profile.percentage_of_nodes_to_score = options.percentage_of_nodes_to_score;
      }
    }
    auto fwk = Framework::Create(profile, registry, *s->handle_);
    if (!fwk.ok()) return fwk.status();
    Framework* f = fwk->get();
    s->by_name_[profile.scheduler_name] = f;
    s->frameworks_.push_back(*std::move(fwk));

    for (const std::string& name : PluginNames(profile)) {
      Plugin* plugin = f->GetPlugin(name);
      if (auto* ext = dynamic_cast<EnqueueExtensions*>(plugin); ext != nullptr) {
        std::vector<ClusterEvent>& events = queue_options.plugin_events[name];
        for (const ClusterEvent& e : ext->EventsToRegister()) events.push_back(e);
        hint_providers[name][profile.scheduler_name] = ext;
      }
    }
    for (const std::string& name : profile.pre_enqueue) {
      if (auto* pe = dynamic_cast<const PreEnqueuePlugin*>(f->GetPlugin(name)); pe != nullptr) {
        if (std::find(queue_options.pre_enqueue_plugins.begin(),
                      queue_options.pre_enqueue_plugins.end(),
                      pe) == queue_options.pre_enqueue_plugins.end()) {
          queue_options.pre_enqueue_plugins.push_back(pe);
        }
      }
    }
  }
  for (auto& [name, by_profile] : hint_providers) {
    queue_options.queueing_hints[name] =
        [by_profile = std::move(by_profile)](
            const kube::Pod& pod, const ClusterEvent& event,
            const EventObjects& objects) -> absl::StatusOr<QueueingHint> {
      auto it = by_profile.find(pod.spec.scheduler_name);
      if (it == by_profile.end()) return QueueingHint::kQueue;
      return it->second->Hint(pod, event, objects);
    };
  }
  const QueueSortPlugin* sort = s->frameworks_.front()->queue_sort_plugin();
  if (sort != nullptr) {
    s->queue_ =
        std::make_unique<PriorityQueue>(clock, scopes.upstream, *sort, std::move(queue_options));
  } else {
    s->queue_ = std::make_unique<PriorityQueue>(clock, scopes.upstream, std::move(queue_options));
  }
  s->binding_pool_ = std::make_unique<BindingPool>(options.binding_parallelism);
  s->waiting_cycles_ = std::make_unique<DedicatedThreads>();
  return s;
}

Scheduler::~Scheduler() {
  Stop();
  waiting_cycles_.reset();  // first: its cycles may still submit to the pool
  binding_pool_.reset();
}

Framework* Scheduler::FrameworkFor(absl::string_view scheduler_name) const {
  auto it = by_name_.find(scheduler_name);
  return it == by_name_.end() ? nullptr : it->second;
}

// ---- The loop ----

void Scheduler::Run(std::stop_token stop) {
  if (options_.run_queue_flushers) queue_->Run(stop);
  std::stop_callback on_stop(stop, [this] { queue_->Close(); });
  std::jthread cleanup;
  if (options_.assumed_pod_ttl > absl::ZeroDuration()) {
    cleanup = std::jthread([this](std::stop_token cleanup_stop) {
      while (clock_.SleepFor(options_.assumed_pod_cleanup_period, cleanup_stop)) {
        cache_->CleanupAssumedPods(clock_.Now());
      }
    });
  }
  while (ScheduleOne()) {
  }
  if (cleanup.joinable()) {
    cleanup.request_stop();
    cleanup.join();
  }
  Stop();
}

void Scheduler::Stop() {
  {
    absl::MutexLock lock(&stop_mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  // Every wait ends now: pods held at Permit are rejected (WaitOnPermit's stop), PreBind
  // waits (VolumeBinding) give up, and no binding cycle starts a Bind any more.
  shutdown_.request_stop();
  // Null when Create failed half-way.
  if (queue_ != nullptr) queue_->Close();
  if (binding_pool_ != nullptr) WaitForBindings();
}

void Scheduler::WaitForBindings() {
  // The waiting cycles first: the last of them may still queue work on the pool.
  waiting_cycles_->Drain();
  binding_pool_->Drain();
}

void Scheduler::StartBindingCycle(bool may_wait, std::function<void()> cycle) {
  if (may_wait) {
    const absl::Status started = waiting_cycles_->Start(&cycle);
    if (started.ok()) return;
    // No thread to spare: the pool runs it (and holds a worker while it waits).
    Log(Component::kMain).warn("binding cycle on the binding pool: {}", started.ToString());
  }
  binding_pool_->Submit(std::move(cycle));
}

kube::CallOptions Scheduler::BindingCallOptions() const {
  kube::CallOptions options;
  options.stop = options_.fence_stop;
  if (options_.leading_until) options.deadline = options_.leading_until();
  return options;
}

bool Scheduler::Fenced() const {
  const kube::CallOptions options = BindingCallOptions();
  return options.stop.stop_requested() || clock_.Now() >= options.deadline;
}

absl::string_view Scheduler::DropReason() const {
  if (Fenced()) {
    return "binding dropped: this replica is no longer the leader (the next leader schedules "
           "the pod)";
  }
  if (shutdown_.stop_requested()) {
    return "binding dropped: the scheduler is stopping (the pod stays pending for the next "
           "leader)";
  }
  return "";
}

void Scheduler::DropBinding(Framework& fwk, CycleState& state, const QueuedPodInfo& pod_info,
                            const kube::Pod& assumed, absl::string_view why,
                            std::shared_ptr<decisions::Decision> decision) {
  Log(Component::kMain)
      .debug("pod={} node={}: {}", kube::NamespacedName(assumed), assumed.spec.node_name, why);
  RecordDecision(std::move(decision), decisions::DecisionResult::kError, "", why);
  // Dropped before WaitOnPermit: the pod may still be held there.
  if (auto waiting = fwk.waiting_pods().Get(assumed); waiting != nullptr) {
    waiting->Reject("", why);
    fwk.waiting_pods().Remove(assumed);
  }
  UnreserveAndForget(fwk, state, assumed);
  queue_->Done(*pod_info.pod);
}

void Scheduler::ObserveAttempt(absl::string_view result, absl::string_view profile,
                               absl::Time start) {
  metrics_->attempts.WithLabels({result, profile}).Inc();
  metrics_->duration.WithLabels({result, profile})
      .Observe(absl::ToDoubleSeconds(clock_.Now() - start));
}

bool Scheduler::ScheduleOne() {
  std::optional<QueuedPodInfo> popped = queue_->Pop();
  if (!popped.has_value()) return false;
  QueuedPodInfo pod_info = *std::move(popped);
  const std::shared_ptr<const kube::Pod> pod = pod_info.pod;
  Framework* fwk = FrameworkFor(pod->spec.scheduler_name);
  if (fwk == nullptr) {
    Log(Component::kMain)
        .error("no profile for schedulerName={} pod={}", pod->spec.scheduler_name,
               kube::NamespacedName(*pod));
    queue_->Done(*pod);
    return true;
  }
  // upstream skipPodSchedule: being deleted, or already assumed (a stale queue entry).
  if (kube::IsTerminating(*pod) || cache_->IsAssumedPod(*pod)) {
    queue_->Done(*pod);
    return true;
  }
  const int64_t cycle = queue_->SchedulingCycle();
  const absl::Time start = clock_.Now();
  auto state = std::make_shared<CycleState>();

  if (absl::Status s = cache_->UpdateSnapshot(snapshot_); !s.ok()) {
    if (options_.decisions != nullptr) {
      RecordFailure(std::make_shared<decisions::Decision>(
                        decisions::MakeDecision(*fwk, *state, *pod, ScheduleResult{}, algo_)),
                    Status::FromAbsl(s));
    }
    HandleFailure(*fwk, std::move(pod_info), Status::FromAbsl(s), nullptr, cycle, start);
    return true;
  }
  const ScheduleOptions schedule_options{.deterministic_tie_break =
                                             options_.deterministic_tie_break};
  ScheduleResult result =
      SchedulePod(*fwk, *state, *pod, snapshot_, algo_, random_, schedule_options);
  // The decision, from the scores the cycle computed (they are gone after the next).
  std::shared_ptr<decisions::Decision> decision;
  if (options_.decisions != nullptr) {
    decision = std::make_shared<decisions::Decision>(
        decisions::MakeDecision(*fwk, *state, *pod, result, algo_));
  }
  if (!result.status.IsSuccess()) {
    PostFilterResult post;
    if (result.status.IsRejected() && fwk->HasPostFilterPlugins()) {
      const Status ps =
          fwk->RunPostFilterPlugins(*state, *pod, result.diagnosis.node_to_status, post);
      if (!ps.IsSuccess()) {
        result.diagnosis.post_filter_msg = ps.Message();
        result.status =
            Status(result.status.code(), {FitErrorMessage(result.num_all_nodes, result.diagnosis)});
      }
    }
    RecordFailure(std::move(decision), result.status, post.nominated_node_name);
    HandleFailure(*fwk, std::move(pod_info), result.status,
                  result.status.IsRejected() ? &result.diagnosis : nullptr, cycle, start,
                  post.nominated_node_name);
    return true;
  }

  const std::string& host = result.suggested_host;
  auto assumed_mut = std::make_shared<kube::Pod>(*pod);
  assumed_mut->spec.node_name = host;
  std::shared_ptr<const kube::Pod> assumed = std::move(assumed_mut);
  if (absl::Status s = cache_->AssumePod(assumed); !s.ok()) {
    RecordFailure(std::move(decision), Status::FromAbsl(s));
    HandleFailure(*fwk, std::move(pod_info), Status::FromAbsl(s), nullptr, cycle, start);
    return true;
  }
  // Placed: a nomination (from an earlier preemption) has done its job.
  queue_->DeleteNominatedPodIfExists(*pod);
  Status s = fwk->RunReservePluginsReserve(*state, *assumed, host);
  if (s.IsSuccess() || s.code() == Code::kSkip) {
    s = fwk->RunPermitPlugins(*state, assumed, host);
    if (s.code() == Code::kWait || s.code() == Code::kSkip) s = Status();
  }
  if (!s.IsSuccess()) {
    UnreserveAndForget(*fwk, *state, *assumed);
    RecordFailure(std::move(decision), s);
    HandleFailure(*fwk, std::move(pod_info), s, nullptr, cycle, start);
    return true;
  }
  const bool may_wait = fwk->BindingCycleMayWait(*state, *assumed, host);
  StartBindingCycle(may_wait,
                    [this, fwk, state = std::move(state), info = std::move(pod_info),
                     assumed = std::move(assumed), cycle, start, evaluated = result.evaluated_nodes,
                     feasible = result.feasible_nodes, decision = std::move(decision)]() mutable {
                      BindingCycle(*fwk, std::move(state), std::move(info), std::move(assumed),
                                   cycle, start, evaluated, feasible, std::move(decision));
                    });
  return true;
}

void Scheduler::UnreserveAndForget(Framework& fwk, CycleState& state, const kube::Pod& assumed) {
  fwk.RunReservePluginsUnreserve(state, assumed, assumed.spec.node_name);
  if (absl::Status s = cache_->ForgetPod(assumed); !s.ok()) {
    Log(Component::kMain).error("forget pod={}: {}", kube::NamespacedName(assumed), s.ToString());
  }
}

void Scheduler::BindingCycle(Framework& fwk, std::shared_ptr<CycleState> state,
                             QueuedPodInfo pod_info, std::shared_ptr<const kube::Pod> assumed,
                             int64_t cycle, absl::Time attempt_start, int evaluated_nodes,
                             int feasible_nodes, std::shared_ptr<decisions::Decision> decision) {
  const std::string& host = assumed->spec.node_name;
  if (const absl::string_view why = DropReason(); !why.empty()) {
    DropBinding(fwk, *state, pod_info, *assumed, why, std::move(decision));
    return;
  }
  Status s = fwk.WaitOnPermit(*assumed, shutdown_.get_token());
  if (s.IsSuccess()) s = fwk.RunPreBindPlugins(*state, *assumed, host);
  bool bind_attempted = false;
  if (s.IsSuccess()) {
    if (const absl::string_view why = DropReason(); !why.empty()) {
      DropBinding(fwk, *state, pod_info, *assumed, why, std::move(decision));
      return;
    }
    bind_attempted = true;
    s = fwk.RunBindPlugins(*state, *assumed, host);
    if (s.code() == Code::kSkip) s = Status::Error("no Bind plugin bound the pod");
  }
  if (const absl::string_view why = DropReason(); !s.IsSuccess() && !why.empty()) {
    // Lost the lease or stopping meanwhile (a wait cancelled, say): no GET, no failure
    // written; the next leader sees whether the POST (if it went out) took effect.
    DropBinding(fwk, *state, pod_info, *assumed, why, std::move(decision));
    return;
  }
  if (!s.IsSuccess()) {
    UnreserveAndForget(fwk, *state, *assumed);
    // The forgotten pod freed room: other pods may fit now (not this one).
    const std::string key = kube::NamespacedName(*assumed);
    queue_->MoveAllToActiveOrBackoffQueue(
        kAssignedPodDeleteEvent, EventObjects{.old_pod = assumed.get()},
        [&key](const kube::Pod& p) { return kube::NamespacedName(p) != key; });
    if (bind_attempted && IsBoundInApi(*assumed)) {
      // Bound after all (by an attempt whose answer was lost, or by someone else): the
      // informer brings it into the cache. Never a failure condition on a bound pod.
      RecordDecision(std::move(decision), decisions::DecisionResult::kBound, host, "");
      queue_->Done(*pod_info.pod);
      return;
    }
    RecordFailure(std::move(decision), s);
    HandleFailure(fwk, std::move(pod_info), s, nullptr, cycle, attempt_start);
    return;
  }
  RecordDecision(std::move(decision), decisions::DecisionResult::kBound, host, "");
  if (absl::Status fs = cache_->FinishBinding(*assumed); !fs.ok()) {
    Log(Component::kMain)
        .warn("finish binding pod={}: {}", kube::NamespacedName(*assumed), fs.ToString());
  }
  ObserveAttempt(kResultScheduled, fwk.profile_name(), attempt_start);
  if (VLogIsOn(2)) {
    Log(Component::kMain)
        .info(
            "\"Successfully bound pod to node\" pod=\"{}\" node=\"{}\" evaluatedNodes={} "
            "feasibleNodes={}",
            kube::NamespacedName(*assumed), host, evaluated_nodes, feasible_nodes);
  }
  metrics_->pod_attempts.Observe(pod_info.attempts);
  if (pod_info.initial_attempt_timestamp.has_value()) {
    const std::string attempts =
        pod_info.attempts >= 15 ? std::string("15+") : absl::StrCat(pod_info.attempts);
    metrics_->sli.WithLabels({absl::string_view(attempts)})
        .Observe(absl::ToDoubleSeconds(clock_.Now() - *pod_info.initial_attempt_timestamp));
  }
  recorder_->Eventf(
      *pod_info.pod, nullptr, EventType::kNormal, "Scheduled", "Binding",
      absl::StrCat("Successfully assigned ", kube::NamespacedName(*pod_info.pod), " to ", host));
  fwk.RunPostBindPlugins(*state, *assumed, host);
  queue_->Done(*pod_info.pod);
}

void Scheduler::RecordFailure(std::shared_ptr<decisions::Decision> decision, const Status& status,
                              const std::string& nominated_node) {
  if (decision == nullptr) return;
  decisions::DecisionResult result = decisions::DecisionResult::kError;
  std::string node;
  if (status.IsRejected()) {
    result = decisions::DecisionResult::kUnschedulable;
    if (!nominated_node.empty()) {
      result = decisions::DecisionResult::kNominated;
      node = nominated_node;
    }
  }
  RecordDecision(std::move(decision), result, std::move(node), status.Message());
}

void Scheduler::RecordDecision(std::shared_ptr<decisions::Decision> decision,
                               decisions::DecisionResult result, std::string node,
                               absl::string_view message) {
  if (decision == nullptr || options_.decisions == nullptr) return;
  decision->time = clock_.Now();
  decision->result = result;
  decision->node = std::move(node);
  decision->message = decisions::BoundedMessage(message);
  options_.decisions->Record(std::move(*decision));
}

bool Scheduler::IsBoundInApi(const kube::Pod& pod) {
  absl::StatusOr<kube::Pod> current =
      client_.GetPod(pod.metadata.namespace_name, pod.metadata.name);
  if (!current.ok() || current->spec.node_name.empty()) return false;
  if (!pod.metadata.uid.empty() && current->metadata.uid != pod.metadata.uid) return false;
  Log(Component::kMain)
      .warn("bind failed but pod={} is bound to node={}: no failure recorded",
            kube::NamespacedName(pod), current->spec.node_name);
  return true;
}

void Scheduler::HandleFailure(Framework& fwk, QueuedPodInfo pod_info, const Status& status,
                              const Diagnosis* diagnosis, int64_t cycle, absl::Time attempt_start,
                              const std::string& nominated_node) {
  const bool rejected = status.IsRejected();
  pod_info.unschedulable_plugins.clear();
  pod_info.pending_plugins.clear();
  if (rejected) {
    if (diagnosis != nullptr) {
      pod_info.unschedulable_plugins = diagnosis->unschedulable_plugins;
      pod_info.pending_plugins = diagnosis->pending_plugins;
    }
    if (pod_info.unschedulable_plugins.empty() && pod_info.pending_plugins.empty() &&
        !status.plugin().empty()) {
      if (status.code() == Code::kPending) {
        pod_info.pending_plugins.insert(std::string(status.plugin()));
      } else {
        pod_info.unschedulable_plugins.insert(std::string(status.plugin()));
      }
    }
  }
  ObserveAttempt(rejected ? kResultUnschedulable : kResultError, fwk.profile_name(), attempt_start);
  const std::string message = status.Message();
  const std::shared_ptr<const kube::Pod> pod = pod_info.pod;
  if (rejected && VLogIsOn(2)) {
    // kube-scheduler's V(2) line for a pod that fits nowhere.
    Log(Component::kMain)
        .info("\"Unable to schedule pod; no fit; waiting\" pod=\"{}\" err=\"{}\"",
              kube::NamespacedName(*pod), message);
  } else if (!rejected) {
    Log(Component::kMain)
        .error("\"Error scheduling pod; retrying\" pod=\"{}\" cycle={} err=\"{}\"",
               kube::NamespacedName(*pod), cycle, message);
  }
  if (absl::Status qs = queue_->AddUnschedulableIfNotPresent(std::move(pod_info), cycle);
      !qs.ok()) {
    Log(Component::kMain).debug("requeue pod={}: {}", kube::NamespacedName(*pod), qs.ToString());
  }
  if (!nominated_node.empty()) queue_->AddNominatedPod(pod, nominated_node);
  queue_->Done(*pod);

  recorder_->Eventf(*pod, nullptr, EventType::kWarning, "FailedScheduling", "Scheduling", message);

  kube::PodCondition condition;
  condition.type = std::string(kube::kPodScheduled);
  condition.status = kube::ConditionStatus::kFalse;
  condition.reason =
      std::string(rejected ? kube::kPodReasonUnschedulable : kube::kPodReasonSchedulerError);
  condition.message = message;
  const bool nominate =
      !nominated_node.empty() && nominated_node != pod->status.nominated_node_name;
  if (const kube::PodCondition* old = kube::FindCondition(pod->status, kube::kPodScheduled);
      !nominate && old != nullptr && old->status == condition.status &&
      old->reason == condition.reason && old->message == condition.message) {
    return;  // nothing would change (upstream updatePod skips this too)
  }
  condition.last_transition_time = clock_.Now();
  kube::PodStatusPatch patch;
  patch.conditions.push_back(std::move(condition));
  if (nominate) patch.nominated_node_name = nominated_node;
  binding_pool_->Submit([this, ns = pod->metadata.namespace_name, name = pod->metadata.name,
                         patch = std::move(patch)] {
    if (Fenced()) return;  // the next leader writes its own
    if (absl::Status s = client_.PatchPodStatus(ns, name, patch, BindingCallOptions()); !s.ok()) {
      Log(Component::kMain).warn("patch status of pod={}/{}: {}", ns, name, s.ToString());
    }
  });
}

// ---- Event handlers ----

void Scheduler::NotePodGroupMember(const kube::Pod* old_pod,
                                   const std::shared_ptr<const kube::Pod>& pod) {
  const std::string_view old_group =
      old_pod != nullptr ? kube::PodGroupNameOf(*old_pod) : std::string_view();
  const std::string_view new_group =
      pod != nullptr ? kube::PodGroupNameOf(*pod) : std::string_view();
  if (old_group.empty() && new_group.empty()) return;
  if (pod != nullptr) {
    pod_groups_.ApplyPod(pod);
  } else {
    pod_groups_.RemovePod(*old_pod);
  }
  if (pod_group_observer_) {
    if (!old_group.empty()) {
      pod_group_observer_(old_pod->metadata.namespace_name, std::string(old_group));
    }
    if (!new_group.empty() && new_group != old_group) {
      pod_group_observer_(pod->metadata.namespace_name, std::string(new_group));
    }
  }
}

void Scheduler::OnPodGroupAdd(std::shared_ptr<const kube::PodGroup> group) {
  if (pod_group_observer_)
    pod_group_observer_(group->metadata.namespace_name, group->metadata.name);
  pod_groups_.Apply(std::move(group));
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{EventResource::kPodGroup, ActionType::kAdd, "PodGroupAdd"});
}

void Scheduler::OnPodGroupUpdate(std::shared_ptr<const kube::PodGroup> group) {
  if (pod_group_observer_)
    pod_group_observer_(group->metadata.namespace_name, group->metadata.name);
  pod_groups_.Apply(std::move(group));
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{EventResource::kPodGroup, ActionType::kUpdateOther, "PodGroupUpdate"});
}

void Scheduler::SetPodGroupsHealth(absl::Status health) {
  const bool ok = health.ok();
  pod_groups_.SetHealth(std::move(health));
  if (ok) {
    queue_->MoveAllToActiveOrBackoffQueue(
        ClusterEvent{EventResource::kPodGroup, ActionType::kUpdateOther, "PodGroupsReadable"});
  }
}

void Scheduler::OnPodGroupDelete(std::shared_ptr<const kube::PodGroup> group) {
  pod_groups_.Remove(*group);
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{EventResource::kPodGroup, ActionType::kDelete, "PodGroupDelete"});
}

void Scheduler::OnPodAdd(std::shared_ptr<const kube::Pod> pod) {
  if (!kube::PodGroupNameOf(*pod).empty()) {
    NotePodGroupMember(nullptr, pod);
    if (!kube::IsAssigned(*pod)) {
      // A new pending member may complete its group's minMember.
      queue_->MoveAllToActiveOrBackoffQueue(
          ClusterEvent{EventResource::kPodGroup, ActionType::kUpdateOther, "PodGroupMemberAdd"});
    }
  }
  if (kube::IsAssigned(*pod)) {
    if (kube::IsTerminal(*pod)) return;
    if (absl::Status s = cache_->AddPod(pod); !s.ok()) {
      Log(Component::kCache).debug("add pod: {}", s.ToString());
    }
    queue_->AssignedPodAdded(*pod);
    return;
  }
  if (!ResponsibleFor(*pod) || kube::IsTerminal(*pod)) return;
  queue_->Add(std::move(pod));
}

void Scheduler::OnPodUpdate(std::shared_ptr<const kube::Pod> old_pod,
                            std::shared_ptr<const kube::Pod> new_pod) {
  NotePodGroupMember(old_pod.get(), new_pod);
  if (kube::IsAssigned(*new_pod)) {
    if (!kube::IsAssigned(*old_pod)) {
      // Bound (by us or someone else): leaves the queue, enters the cache.
      if (ResponsibleFor(*old_pod)) queue_->Delete(*old_pod);
      OnPodAdd(std::move(new_pod));
      return;
    }
    if (kube::IsTerminal(*new_pod)) {
      OnPodDelete(std::move(old_pod));
      // Still a member of its PodGroup (succeeded/failed counts).
      if (!kube::PodGroupNameOf(*new_pod).empty()) pod_groups_.ApplyPod(new_pod);
      return;
    }
    if (absl::Status s = cache_->UpdatePod(*old_pod, new_pod); !s.ok()) {
      Log(Component::kCache).debug("update pod: {}", s.ToString());
    }
    const ActionType actions = AssignedPodUpdateActions(*old_pod, *new_pod);
    if (Any(actions)) queue_->AssignedPodUpdated(*old_pod, *new_pod, actions);
    return;
  }
  if (!ResponsibleFor(*new_pod)) return;
  if (kube::IsTerminal(*new_pod)) {
    queue_->Delete(*old_pod);
    return;
  }
  queue_->Update(*old_pod, std::move(new_pod));
}

void Scheduler::OnPodDelete(std::shared_ptr<const kube::Pod> pod) {
  NotePodGroupMember(pod.get(), nullptr);
  if (kube::IsAssigned(*pod) || cache_->IsAssumedPod(*pod)) {
    // Plugins that remember placed pods (the load-aware plugins' recent placements) drop
    // it: a deleted pod (a preemption victim, say) no longer loads its node.
    for (const auto& f : frameworks_) f->RunPodDeletionListeners(*pod);
  }
  if (kube::IsAssigned(*pod)) {
    if (absl::Status s = cache_->RemovePod(*pod); !s.ok()) {
      Log(Component::kCache).debug("remove pod: {}", s.ToString());
    }
    queue_->MoveAllToActiveOrBackoffQueue(kAssignedPodDeleteEvent,
                                          EventObjects{.old_pod = pod.get()});
    return;
  }
  // A pod we assumed, bound and deleted while the watch was away (a 410 gap): the
  // re-list's tombstone carries the last version seen, still unassigned. Its assumed
  // entry goes too.
  if (cache_->IsAssumedPod(*pod)) {
    if (absl::Status s = cache_->RemovePod(*pod); !s.ok()) {
      Log(Component::kCache).debug("remove assumed pod: {}", s.ToString());
    }
    queue_->MoveAllToActiveOrBackoffQueue(kAssignedPodDeleteEvent,
                                          EventObjects{.old_pod = pod.get()});
  }
  Framework* fwk = FrameworkFor(pod->spec.scheduler_name);
  if (fwk == nullptr) return;
  queue_->Delete(*pod);
  if (auto waiting = fwk->waiting_pods().Get(*pod); waiting != nullptr) {
    waiting->Reject("", "removed");
  }
}

void Scheduler::OnNodeAdd(std::shared_ptr<const kube::Node> node) {
  if (absl::Status s = cache_->AddNode(node); !s.ok()) {
    Log(Component::kCache).warn("add node: {}", s.ToString());
  }
  queue_->MoveAllToActiveOrBackoffQueue(kNodeAddEvent, EventObjects{.new_node = node.get()});
}

void Scheduler::OnNodeUpdate(std::shared_ptr<const kube::Node> old_node,
                             std::shared_ptr<const kube::Node> new_node) {
  const ActionType actions = NodeUpdateActions(*old_node, *new_node);
  if (absl::Status s = cache_->UpdateNode(new_node); !s.ok()) {
    Log(Component::kCache).warn("update node: {}", s.ToString());
  }
  if (Any(actions)) {
    queue_->MoveAllToActiveOrBackoffQueue(
        ClusterEvent{EventResource::kNode, actions, "NodeUpdate"},
        EventObjects{.old_node = old_node.get(), .new_node = new_node.get()});
  }
}

void Scheduler::OnNodeDelete(std::shared_ptr<const kube::Node> node) {
  if (absl::Status s = cache_->RemoveNode(*node); !s.ok()) {
    Log(Component::kCache).debug("remove node: {}", s.ToString());
  }
  // A node that leaves can lower the count of a spread domain (PodTopologySpread).
  queue_->MoveAllToActiveOrBackoffQueue(kNodeDeleteEvent, EventObjects{.old_node = node.get()});
}

namespace {

EventResource StorageEventResource(kube::StorageResource resource) {
  switch (resource) {
    case kube::StorageResource::kPersistentVolumes:
      return EventResource::kPersistentVolume;
    case kube::StorageResource::kPersistentVolumeClaims:
      return EventResource::kPersistentVolumeClaim;
    case kube::StorageResource::kStorageClasses:
      return EventResource::kStorageClass;
    case kube::StorageResource::kCSINodes:
      return EventResource::kCSINode;
    case kube::StorageResource::kCSIDrivers:
      return EventResource::kCSIDriver;
    case kube::StorageResource::kCSIStorageCapacities:
    case kube::StorageResource::kCSIStorageCapacitiesV1beta1:
      return EventResource::kCSIStorageCapacity;
  }
  return EventResource::kWildCard;
}

}  // namespace

void Scheduler::OnStorageAdd(std::shared_ptr<const kube::StorageObject> object) {
  const EventResource resource = StorageEventResource(object->resource());
  storage_.Apply(object);
  queue_->MoveAllToActiveOrBackoffQueue(ClusterEvent{resource, ActionType::kAdd, "StorageAdd"},
                                        EventObjects{.new_storage = object.get()});
}

void Scheduler::OnStorageUpdate(std::shared_ptr<const kube::StorageObject> old_object,
                                std::shared_ptr<const kube::StorageObject> object) {
  const EventResource resource = StorageEventResource(object->resource());
  storage_.Apply(object);
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{resource, ActionType::kUpdateOther, "StorageUpdate"},
      EventObjects{.old_storage = old_object.get(), .new_storage = object.get()});
}

void Scheduler::OnStorageDelete(std::shared_ptr<const kube::StorageObject> object) {
  const EventResource resource = StorageEventResource(object->resource());
  storage_.Remove(*object);
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{resource, ActionType::kDelete, "StorageDelete"},
      EventObjects{.old_storage = object.get()});
}

absl::StatusOr<const Snapshot*> Scheduler::RefreshSnapshot() {
  TRIMARAN_RETURN_IF_ERROR(cache_->UpdateSnapshot(snapshot_));
  return &snapshot_;
}

}  // namespace trimaran::sched
