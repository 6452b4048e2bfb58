// The Scheduler's creation and its Run / Stop (scheduler.h). The cycles are in
// schedule_one.cc, the event handlers in event_handlers.cc.

#include "scheduler/scheduler.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "scheduler/decisions/decision_recorder.h"
#include "scheduler/event_recorder.h"
#include "scheduler/framework/cluster_event.h"

namespace trimaran::sched {
namespace {

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
  MetricsAvailabilityObserver* metrics_availability() override {
    return s_.options_.metrics_availability;
  }
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
  if (options.cycle_observer != nullptr && options.decisions != nullptr) {
    return absl::InvalidArgumentError(
        "scheduler: give a cycle observer or a decisions ring, not both");
  }
  std::unique_ptr<Scheduler> s(new Scheduler(client, clock, scopes, options));
  if (recorder == nullptr) {
    s->owned_recorder_ = std::make_unique<AsyncEventRecorder>(client, clock, scopes.own);
    recorder = s->owned_recorder_.get();
  }
  s->recorder_ = recorder;
  s->observer_ = options.cycle_observer;
  if (options.decisions != nullptr) {
    s->owned_observer_ = std::make_unique<decisions::DecisionRecorder>(*options.decisions, clock);
    s->observer_ = s->owned_observer_.get();
  }
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
  s->metrics_ = std::make_unique<SchedulerMetrics>(scopes.upstream);
  s->unsupported_pods_ = &scopes.own.CounterFamily(
      "unsupported_pods_total",
      "Scheduling attempts refused because the pod needs a feature trimaran does not "
      "implement (DRA resource claims, the Workload API's scheduling group).",
      {"feature"});

  PriorityQueueOptions queue_options;
  queue_options.backoff = options.backoff;
  TRIMARAN_RETURN_IF_ERROR(s->CreateFrameworks(std::move(profiles), registry, queue_options));
  s->CreateQueue(std::move(queue_options));
  s->binding_pool_ = std::make_unique<BindingPool>(options.binding_parallelism);
  s->waiting_cycles_ = std::make_unique<DedicatedThreads>();
  return s;
}

absl::Status Scheduler::CreateFrameworks(std::vector<ProfileConfig> profiles,
                                         const Registry& registry,
                                         PriorityQueueOptions& queue_options) {
  // Plugin name -> scheduler name -> the profile's instance, for the queueing hints: a
  // pod is asked about by its own profile's plugin (args may differ between profiles).
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, const EnqueueExtensions*>>
      hint_providers;
  for (ProfileConfig& profile : profiles) {
    if (by_name_.contains(profile.scheduler_name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("duplicate profile schedulerName \"", profile.scheduler_name, "\""));
    }
    if (!profile.percentage_of_nodes_to_score.has_value() ||
        *profile.percentage_of_nodes_to_score == 0) {
      if (options_.percentage_of_nodes_to_score.has_value()) {
        profile.percentage_of_nodes_to_score = options_.percentage_of_nodes_to_score;
      }
    }
    auto fwk = Framework::Create(profile, registry, *handle_);
    if (!fwk.ok()) return fwk.status();
    Framework* f = fwk->get();
    by_name_[profile.scheduler_name] = f;
    frameworks_.push_back(*std::move(fwk));

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
  if (!options_.queueing_hints) hint_providers.clear();
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
  return absl::OkStatus();
}

void Scheduler::CreateQueue(PriorityQueueOptions queue_options) {
  const QueueSortPlugin* sort = frameworks_.front()->queue_sort_plugin();
  if (sort != nullptr) {
    queue_ =
        std::make_unique<PriorityQueue>(clock_, scopes_.upstream, *sort, std::move(queue_options));
  } else {
    queue_ = std::make_unique<PriorityQueue>(clock_, scopes_.upstream, std::move(queue_options));
  }
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

absl::StatusOr<const Snapshot*> Scheduler::RefreshSnapshot() {
  TRIMARAN_RETURN_IF_ERROR(cache_->UpdateSnapshot(snapshot_));
  return &snapshot_;
}

}  // namespace trimaran::sched
