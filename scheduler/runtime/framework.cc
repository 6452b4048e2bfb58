#include "scheduler/runtime/framework.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/stats/scope.h"

namespace trimaran::sched {
namespace {

// A plugin's own view of the profile's Handle: everything forwarded, including the load
// watcher, its per-args sources and the stats scopes (a plugin names its families
// relative to them, as every component does; the runtime adds no per-plugin prefix).
class PluginHandle final : public Handle {
 public:
  PluginHandle(Handle& base, const PluginsRunner& runner, WaitingPods& waiting)
      : base_(base), runner_(runner), waiting_(waiting) {}
  const SharedLister& snapshot_lister() const override { return base_.snapshot_lister(); }
  kube::Client& client() override { return base_.client(); }
  EventRecorder& event_recorder() override { return base_.event_recorder(); }
  const StatsScopes& stats_scopes() const override { return base_.stats_scopes(); }
  Parallelizer& parallelizer() override { return base_.parallelizer(); }
  const Clock& clock() const override { return base_.clock(); }
  lw::Client* load_watcher() override { return base_.load_watcher(); }
  lw::SourcePool* load_watcher_sources() override { return base_.load_watcher_sources(); }
  MetricsAvailabilityObserver* metrics_availability() override {
    return base_.metrics_availability();
  }
  kube::CallOptions binding_call_options() override { return base_.binding_call_options(); }
  const ObjectLister& object_lister() const override { return base_.object_lister(); }
  PodNominator* nominator() const override { return base_.nominator(); }
  const PluginsRunner* plugins_runner() const override { return &runner_; }
  const StorageLister& storage_lister() const override { return base_.storage_lister(); }
  const PodGroupLister& pod_group_lister() const override { return base_.pod_group_lister(); }
  void IterateOverWaitingPods(absl::FunctionRef<void(WaitingPodHandle&)> fn) override {
    waiting_.ForEach([&fn](WaitingPod& pod) { fn(pod); });
  }
  // Forwarded too: without them VolumeBinding's PreBind wait saw neither a deleted pod nor
  // the scheduler's stop (issue 30).
  bool PodExists(const kube::Pod& pod) const override { return base_.PodExists(pod); }
  std::stop_token shutdown_token() const override { return base_.shutdown_token(); }

 private:
  Handle& base_;
  const PluginsRunner& runner_;
  WaitingPods& waiting_;
};

// Wraps a kError from a plugin as upstream does; attributes every non-success status.
Status Attribute(Status status, absl::string_view point, absl::string_view plugin) {
  if (status.IsError()) {
    return Status::Error(
               absl::StrCat("running ", point, " plugin \"", plugin, "\": ", status.Message()))
        .WithPlugin(plugin);
  }
  status.SetPlugin(plugin);
  return status;
}

using SteadyClock = std::chrono::steady_clock;

// What a score adds to the exact total: its exact value when reported and valid (finite,
// within [kMinNodeScore, kMaxNodeScore]), else the integer score (types.h, ScoreResult).
// (NaN and ±inf fail the range comparisons.)
inline double ExactOrScore(const NodeScore& ns) {
  if (ns.exact.has_value() && *ns.exact >= static_cast<double>(kMinNodeScore) &&
      *ns.exact <= static_cast<double>(kMaxNodeScore)) {
    return *ns.exact;
  }
  return static_cast<double>(ns.score);
}

double SecondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

}  // namespace

// Times one extension point (and optionally one plugin call).
class Framework::Timer {
 public:
  Timer() : start_(SteadyClock::now()) {}
  double Seconds() const { return SecondsSince(start_); }

 private:
  SteadyClock::time_point start_;
};

absl::string_view Framework::PointName(Point point) {
  switch (point) {
    case Point::kPreEnqueue:
      return "PreEnqueue";
    case Point::kPreFilter:
      return "PreFilter";
    case Point::kFilter:
      return "Filter";
    case Point::kPostFilter:
      return "PostFilter";
    case Point::kPreScore:
      return "PreScore";
    case Point::kScore:
      return "Score";
    case Point::kScoreExtensionNormalize:
      return "ScoreExtensionNormalize";
    case Point::kReserve:
      return "Reserve";
    case Point::kUnreserve:
      return "Unreserve";
    case Point::kPermit:
      return "Permit";
    case Point::kPreBind:
      return "PreBind";
    case Point::kBind:
      return "Bind";
    case Point::kPostBind:
      return "PostBind";
    case Point::kCount:
      break;
  }
  return "Unknown";
}

Framework::Framework(const ProfileConfig& config, Handle& handle)
    : config_(config), handle_(handle) {
  const stats::Scope& scope = handle_.stats_scopes().upstream;
  point_duration_ = &scope.HistogramFamily(
      "framework_extension_point_duration_seconds",
      "Latency for running all plugins of a specific extension point.",
      {"extension_point", "status", "profile"}, stats::ExponentialBuckets(0.0001, 2, 12));
  plugin_duration_ = &scope.HistogramFamily(
      "plugin_execution_duration_seconds",
      "Duration for running a plugin at a specific extension point (sampled cycles).",
      {"plugin", "extension_point", "status"}, stats::ExponentialBuckets(0.00001, 1.5, 20));
}

Framework::~Framework() = default;

void Framework::ObservePoint(Point point, Code code, double seconds) {
  std::atomic<stats::Histogram*>& slot =
      point_cache_[static_cast<int>(point)][static_cast<int>(code)];
  stats::Histogram* h = slot.load(std::memory_order_acquire);
  if (h == nullptr) {
    h = &point_duration_->WithLabels({PointName(point), CodeName(code), config_.scheduler_name});
    slot.store(h, std::memory_order_release);
  }
  h->Observe(seconds);
}

void Framework::ObservePlugin(absl::string_view plugin, Point point, Code code, double seconds) {
  plugin_duration_->WithLabels({plugin, PointName(point), CodeName(code)}).Observe(seconds);
}

absl::StatusOr<std::unique_ptr<Framework>> Framework::Create(const ProfileConfig& config,
                                                             const Registry& registry,
                                                             Handle& handle) {
  std::unique_ptr<Framework> fw(new Framework(config, handle));
  const std::string profile = absl::StrCat("profile \"", config.scheduler_name, "\"");

  // Every name, once, in first-appearance order.
  std::vector<std::string> names;
  std::set<std::string, std::less<>> seen;
  auto note = [&](const std::string& name) {
    if (seen.insert(name).second) names.push_back(name);
  };
  for (const auto* list : {&config.queue_sort, &config.pre_enqueue, &config.pre_filter,
                           &config.filter, &config.post_filter, &config.pre_score, &config.reserve,
                           &config.permit, &config.pre_bind, &config.bind, &config.post_bind}) {
    for (const std::string& name : *list) note(name);
  }
  for (const WeightedPlugin& wp : config.score) note(wp.name);

  static const PluginArgs kNoArgs;
  for (const std::string& name : names) {
    const PluginDescriptor* descriptor = registry.Find(name);
    if (descriptor == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(profile, ": plugin \"", name, "\" is not registered"));
    }
    auto plugin_handle = std::make_unique<PluginHandle>(handle, *fw, fw->waiting_pods_);
    const auto args_it = config.plugin_args.find(name);
    absl::StatusOr<PluginPtr> plugin = descriptor->factory(
        args_it == config.plugin_args.end() ? kNoArgs : args_it->second, *plugin_handle);
    if (!plugin.ok()) {
      return absl::Status(plugin.status().code(),
                          absl::StrCat(profile, ": initializing plugin \"", name,
                                       "\": ", plugin.status().message()));
    }
    if (*plugin == nullptr) {
      return absl::InternalError(
          absl::StrCat(profile, ": factory of plugin \"", name, "\" returned null"));
    }
    if (auto* listener = dynamic_cast<PodDeletionListener*>(plugin->get()); listener != nullptr) {
      fw->deletion_listeners_.push_back(listener);
    }
    fw->by_name_.emplace(name, plugin->get());
    fw->plugins_.push_back(std::move(*plugin));
    fw->plugin_handles_.push_back(std::move(plugin_handle));
  }

  // Resolves `list` to the interface T, rejecting duplicates and non-implementers.
  auto resolve = [&]<typename T>(const std::vector<std::string>& list, absl::string_view point,
                                 std::vector<T*>& out) -> absl::Status {
    std::set<std::string, std::less<>> at_point;
    for (const std::string& name : list) {
      if (!at_point.insert(name).second) {
        return absl::InvalidArgumentError(
            absl::StrCat(profile, ": plugin \"", name, "\" already registered as \"", point, "\""));
      }
      T* typed = dynamic_cast<T*>(fw->by_name_.at(name));
      if (typed == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(profile, ": plugin \"", name, "\" does not extend ", point, " plugin"));
      }
      out.push_back(typed);
    }
    return absl::OkStatus();
  };
  std::vector<QueueSortPlugin*> queue_sort;
  absl::Status s = resolve(config.queue_sort, "QueueSort", queue_sort);
  if (s.ok()) s = resolve(config.pre_enqueue, "PreEnqueue", fw->pre_enqueue_);
  if (s.ok()) s = resolve(config.pre_filter, "PreFilter", fw->pre_filter_);
  if (s.ok()) s = resolve(config.filter, "Filter", fw->filter_);
  if (s.ok()) s = resolve(config.post_filter, "PostFilter", fw->post_filter_);
  if (s.ok()) s = resolve(config.pre_score, "PreScore", fw->pre_score_);
  if (s.ok()) s = resolve(config.reserve, "Reserve", fw->reserve_);
  if (s.ok()) s = resolve(config.permit, "Permit", fw->permit_);
  if (s.ok()) s = resolve(config.pre_bind, "PreBind", fw->pre_bind_);
  if (s.ok()) s = resolve(config.bind, "Bind", fw->bind_);
  if (s.ok()) s = resolve(config.post_bind, "PostBind", fw->post_bind_);
  if (!s.ok()) return s;
  for (PreBindPlugin* pl : fw->pre_bind_) {
    fw->pre_bind_pre_flight_.push_back(dynamic_cast<PreBindPreFlightExtension*>(pl));
  }
  if (queue_sort.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(profile, ": only one QueueSort plugin can be enabled"));
  }
  if (!queue_sort.empty()) fw->queue_sort_ = queue_sort.front();

  std::vector<std::string> score_names;
  std::vector<ScorePlugin*> score_plugins;
  for (const WeightedPlugin& wp : config.score) score_names.push_back(wp.name);
  s = resolve(score_names, "Score", score_plugins);
  if (!s.ok()) return s;
  int64_t total_weight = 0;
  for (size_t i = 0; i < config.score.size(); ++i) {
    const int32_t w = config.score[i].weight;
    if (w < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          profile, ": score plugin \"", config.score[i].name, "\" has a negative weight ", w));
    }
    const int64_t weight = w == 0 ? 1 : w;
    if (total_weight > std::numeric_limits<int64_t>::max() / kMaxNodeScore - weight) {
      return absl::InvalidArgumentError(
          absl::StrCat(profile, ": total score of Score plugins could overflow"));
    }
    total_weight += weight;
    fw->score_.push_back(ScoreEntry{score_plugins[i], config.score[i].name, weight});
  }
  return fw;
}

Plugin* Framework::GetPlugin(absl::string_view name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::function<bool(const QueuedPodInfo&, const QueuedPodInfo&)> Framework::QueueSortFunc() const {
  if (queue_sort_ == nullptr) return nullptr;
  const QueueSortPlugin* plugin = queue_sort_;
  return [plugin](const QueuedPodInfo& a, const QueuedPodInfo& b) { return plugin->Less(a, b); };
}

Status Framework::RunPreEnqueuePlugins(const kube::Pod& pod) const {
  for (const PreEnqueuePlugin* pl : pre_enqueue_) {
    Status s = pl->PreEnqueue(pod);
    if (!s.IsSuccess()) return Attribute(std::move(s), "PreEnqueue", pl->Name());
  }
  return Status();
}

Status Framework::RunPreFilterPlugins(CycleState& state, const kube::Pod& pod,
                                      std::span<const NodeInfo* const> nodes,
                                      PreFilterOutput& out) {
  const Timer timer;
  const bool record = state.record_plugin_metrics();
  out.result = PreFilterResult();
  out.narrowing_plugins.clear();
  out.rejector_plugins.clear();
  absl::flat_hash_set<std::string> skip;
  Status returned;
  auto finish = [&](Status s) {
    std::vector<bool> mask(filter_.size(), false);
    for (size_t i = 0; i < filter_.size(); ++i) mask[i] = skip.contains(filter_[i]->Name());
    state.SetSkipFilterMask(std::move(mask));
    state.SetSkipFilterPlugins(std::move(skip));
    ObservePoint(Point::kPreFilter, s.code(), timer.Seconds());
    return s;
  };
  for (PreFilterPlugin* pl : pre_filter_) {
    PreFilterResult r;
    const Timer plugin_timer;
    Status s = pl->PreFilter(state, pod, nodes, r);
    if (record) ObservePlugin(pl->Name(), Point::kPreFilter, s.code(), plugin_timer.Seconds());
    if (s.IsSkip()) {
      skip.insert(std::string(pl->Name()));
      continue;
    }
    if (!s.IsSuccess()) {
      s = Attribute(std::move(s), "PreFilter", pl->Name());
      if (s.IsRejected()) {
        out.rejector_plugins.push_back(std::string(pl->Name()));
        if (s.code() == Code::kUnschedulableAndUnresolvable) return finish(std::move(s));
        if (returned.IsSuccess()) returned = std::move(s);
        continue;
      }
      return finish(std::move(s));
    }
    if (!r.AllNodes()) out.narrowing_plugins.push_back(std::string(pl->Name()));
    out.result = out.result.Merge(r);
    if (!out.result.AllNodes() && out.result.node_names->empty()) {
      const std::string msg =
          out.narrowing_plugins.size() == 1
              ? absl::StrCat("node(s) didn't satisfy plugin ", out.narrowing_plugins[0])
              : absl::StrCat("node(s) didn't satisfy plugin(s) [",
                             absl::StrJoin(out.narrowing_plugins, " "), "] simultaneously");
      return finish(Status::UnschedulableAndUnresolvable(msg));
    }
  }
  return finish(std::move(returned));
}

Status Framework::RunFilterPlugins(const CycleState& state, const kube::Pod& pod,
                                   const NodeInfo& node_info) const {
  const std::vector<bool>& skip = state.skip_filter_mask();
  for (size_t i = 0; i < filter_.size(); ++i) {
    const FilterPlugin* pl = filter_[i];
    if (i < skip.size() && skip[i]) continue;
    Status s = pl->Filter(state, pod, node_info);
    if (!s.IsSuccess()) return Attribute(std::move(s), "Filter", pl->Name());
  }
  return Status();
}

void Framework::RunPodDeletionListeners(const kube::Pod& pod) const {
  for (PodDeletionListener* listener : deletion_listeners_) listener->OnAssignedPodDeleted(pod);
}

Status Framework::RunPreFilterExtensionAddPod(CycleState& state, const kube::Pod& pod_to_schedule,
                                              const PodInfo& pod_to_add,
                                              const NodeInfo& node_info) const {
  for (const PreFilterPlugin* pl : pre_filter_) {
    const PreFilterExtensions* ext = pl->GetPreFilterExtensions();
    if (ext == nullptr || state.skip_filter_plugins().contains(pl->Name())) continue;
    Status s = ext->AddPod(state, pod_to_schedule, pod_to_add, node_info);
    if (!s.IsSuccess()) return Attribute(std::move(s), "AddPod", pl->Name());
  }
  return Status();
}

Status Framework::RunPreFilterExtensionRemovePod(CycleState& state,
                                                 const kube::Pod& pod_to_schedule,
                                                 const PodInfo& pod_to_remove,
                                                 const NodeInfo& node_info) const {
  for (const PreFilterPlugin* pl : pre_filter_) {
    const PreFilterExtensions* ext = pl->GetPreFilterExtensions();
    if (ext == nullptr || state.skip_filter_plugins().contains(pl->Name())) continue;
    Status s = ext->RemovePod(state, pod_to_schedule, pod_to_remove, node_info);
    if (!s.IsSuccess()) return Attribute(std::move(s), "RemovePod", pl->Name());
  }
  return Status();
}

Status Framework::RunFilterPluginsWithNominatedPods(const CycleState& state, const kube::Pod& pod,
                                                    const NodeInfo& node_info) const {
  const PodNominator* nominator = handle_.nominator();
  if (nominator == nullptr || !nominator->HasNominatedPods()) {
    return RunFilterPlugins(state, pod, node_info);
  }
  std::vector<PodInfo> nominated = nominator->NominatedPodsForNode(node_info.name());
  const int32_t priority = kube::PodPriority(pod);
  std::erase_if(nominated, [&](const PodInfo& p) {
    return kube::PodPriority(*p.pod) < priority ||
           (!pod.metadata.uid.empty() && p.pod->metadata.uid == pod.metadata.uid) ||
           (p.pod->metadata.name == pod.metadata.name &&
            p.pod->metadata.namespace_name == pod.metadata.namespace_name);
  });
  if (nominated.empty()) return RunFilterPlugins(state, pod, node_info);
  // Pass 1: the node and state as if the nominated pods were already there.
  std::unique_ptr<NodeInfo> node_copy = node_info.Clone();
  std::unique_ptr<CycleState> state_copy = state.Clone();
  for (PodInfo& p : nominated) {
    node_copy->AddPodInfo(p);
    if (Status s = RunPreFilterExtensionAddPod(*state_copy, pod, p, *node_copy); !s.IsSuccess()) {
      return s;
    }
  }
  if (Status s = RunFilterPlugins(*state_copy, pod, *node_copy); !s.IsSuccess()) return s;
  // Pass 2: without them (a nominated pod may never land; pod affinity must not rely on
  // it).
  return RunFilterPlugins(state, pod, node_info);
}

Status Framework::RunPostFilterPlugins(CycleState& state, const kube::Pod& pod,
                                       const NodeToStatus& filtered_node_status,
                                       PostFilterResult& result) {
  const Timer timer;
  const bool record = state.record_plugin_metrics();
  std::vector<std::string> reasons;
  std::string first_rejector;
  Status out;
  bool done = false;
  for (PostFilterPlugin* pl : post_filter_) {
    const Timer plugin_timer;
    Status s = pl->PostFilter(state, pod, filtered_node_status, result);
    if (record) ObservePlugin(pl->Name(), Point::kPostFilter, s.code(), plugin_timer.Seconds());
    if (s.IsSuccess()) {
      out = Status();
      done = true;
      break;
    }
    s = Attribute(std::move(s), "PostFilter", pl->Name());
    if (s.code() == Code::kUnschedulableAndUnresolvable || !s.IsRejected()) {
      out = std::move(s);
      done = true;
      break;
    }
    if (first_rejector.empty()) first_rejector = std::string(pl->Name());
    for (const std::string& r : s.reasons()) reasons.push_back(r);
  }
  if (!done) {
    out = Status(Code::kUnschedulable, std::move(reasons));
    if (!first_rejector.empty()) out.SetPlugin(first_rejector);
  }
  ObservePoint(Point::kPostFilter, out.code(), timer.Seconds());
  return out;
}

Status Framework::RunPreScorePlugins(CycleState& state, const kube::Pod& pod,
                                     std::span<const NodeInfo* const> nodes) {
  const Timer timer;
  const bool record = state.record_plugin_metrics();
  absl::flat_hash_set<std::string> skip;
  Status out;
  for (PreScorePlugin* pl : pre_score_) {
    const Timer plugin_timer;
    Status s = pl->PreScore(state, pod, nodes);
    if (record) ObservePlugin(pl->Name(), Point::kPreScore, s.code(), plugin_timer.Seconds());
    if (s.IsSkip()) {
      skip.insert(std::string(pl->Name()));
      continue;
    }
    if (!s.IsSuccess()) {
      out = Attribute(std::move(s), "PreScore", pl->Name());
      break;
    }
  }
  state.SetSkipScorePlugins(std::move(skip));
  ObservePoint(Point::kPreScore, out.code(), timer.Seconds());
  return out;
}

Status Framework::RunScorePlugins(const CycleState& state, const kube::Pod& pod,
                                  std::span<const NodeInfo* const> nodes, ScoreBuffers& out) {
  const Timer timer;
  size_t fused = PrepareScoreBuffers(state, nodes, out);
  if (score_.empty()) {
    ObservePoint(Point::kScore, Code::kSuccess, timer.Seconds());
    return Status();
  }
  bool out_of_range = false;
  Status s = ScoreNodesInRanges(state, pod, nodes, fused, out, out_of_range);
  if (s.IsSuccess() && out_of_range) {
    // Redo the weighting sequentially (after NormalizeScore, as unfused) so that the
    // error names the first invalid score in plugin and node order.
    for (NodeTotal& t : out.totals) {
      t.total = 0;
      t.exact_total = 0;
    }
    fused = 0;
  }
  if (s.IsSuccess()) s = NormalizeScores(state, pod, out);
  if (s.IsSuccess()) s = ApplyWeights(fused, out);
  ObservePoint(Point::kScore, s.code(), timer.Seconds());
  return s;
}

size_t Framework::PrepareScoreBuffers(const CycleState& state,
                                      std::span<const NodeInfo* const> nodes,
                                      ScoreBuffers& out) const {
  const size_t num_nodes = nodes.size();
  const size_t num_plugins = score_.size();
  out.totals.resize(num_nodes);
  out.per_plugin.resize(num_plugins);
  for (size_t n = 0; n < num_nodes; ++n) out.totals[n] = NodeTotal{nodes[n], 0, 0.0};
  if (num_plugins == 0) {
    // Upstream: without score plugins every feasible node scores 1.
    for (NodeTotal& t : out.totals) {
      t.total = 1;
      t.exact_total = 1;
    }
    return 0;
  }
  // Which plugins run this cycle (PreScore may have skipped some).
  const auto& skip = state.skip_score_plugins();
  out.active.resize(num_plugins);
  for (size_t p = 0; p < num_plugins; ++p) {
    out.active[p] = skip.empty() || !skip.contains(score_[p].name);
    out.per_plugin[p].resize(num_nodes);
  }
  // Plugins [0, fused) have no NormalizeScore (or are skipped): their range check and
  // weight are applied right in the scoring loop, block by block while the block's
  // scores are in cache, instead of in a separate pass. Plugin order is kept, so every
  // node's exact total adds up in the same order as in ApplyWeights.
  size_t fused = 0;
  while (fused < num_plugins &&
         (!out.active[fused] || score_[fused].plugin->GetScoreExtensions() == nullptr)) {
    ++fused;
  }
  return fused;
}

Status Framework::ScoreNodesInRanges(const CycleState& state, const kube::Pod& pod,
                                     std::span<const NodeInfo* const> nodes, size_t fused,
                                     ScoreBuffers& out, bool& out_of_range_seen) const {
  // Parallel over runs of consecutive nodes; per run, each active plugin's ScoreNodes
  // over blocks of kScoreBlock nodes (one virtual call per plugin per block).
  const size_t num_plugins = score_.size();
  std::atomic<bool> failed{false};
  std::atomic<bool> out_of_range{false};
  absl::Mutex error_mu;
  Status error;
  handle_.parallelizer().UntilRanges(
      static_cast<int>(nodes.size()),
      [&](int range_begin, int range_end) {
        constexpr int kScoreBlock = 128;
        for (int begin = range_begin; begin < range_end; begin += kScoreBlock) {
          if (failed.load(std::memory_order_relaxed)) return;
          const int end = std::min(begin + kScoreBlock, range_end);
          const size_t count = static_cast<size_t>(end - begin);
          const std::span<const NodeInfo* const> block = nodes.subspan(begin, count);
          // Each node's name once per block, not once per plugin (uninitialized arrays:
          // an array of string_view would be zeroed first).
          const char* name_data[kScoreBlock];
          size_t name_size[kScoreBlock];
          for (size_t i = 0; i < count; ++i) {
            const std::string& name = block[i]->name();
            name_data[i] = name.data();
            name_size[i] = name.size();
          }
          for (size_t p = 0; p < num_plugins; ++p) {
            NodeScore* scores = out.per_plugin[p].data() + begin;
            for (size_t i = 0; i < count; ++i) {
              scores[i] = NodeScore{absl::string_view(name_data[i], name_size[i]), 0, std::nullopt};
            }
            if (!out.active[p]) continue;
            Status s = score_[p].plugin->ScoreNodes(state, pod, block, {scores, count});
            if (!s.IsSuccess()) {
              absl::MutexLock lock(&error_mu);
              if (!failed.exchange(true)) {
                error = Status::Error(absl::StrCat("running Score plugin \"", score_[p].name,
                                                   "\": ", s.Message()))
                            .WithPlugin(score_[p].name);
              }
              return;
            }
          }
          if (out_of_range.load(std::memory_order_relaxed)) continue;
          for (size_t p = 0; p < fused; ++p) {
            if (!out.active[p]) continue;
            const int64_t weight = score_[p].weight;
            const NodeScore* scores = out.per_plugin[p].data() + begin;
            NodeTotal* totals = out.totals.data() + begin;
            for (size_t i = 0; i < count; ++i) {
              const NodeScore& ns = scores[i];
              if (ns.score < kMinNodeScore || ns.score > kMaxNodeScore) {
                // Reported by ApplyWeights, which finds the first bad (plugin, node)
                // exactly as without fusing.
                out_of_range.store(true, std::memory_order_relaxed);
                break;
              }
              totals[i].total += weight * ns.score;
              totals[i].exact_total += static_cast<double>(weight) * ExactOrScore(ns);
            }
          }
        }
      },
      "Score");
  if (failed.load()) {
    absl::MutexLock lock(&error_mu);
    return error;
  }
  out_of_range_seen = out_of_range.load();
  return Status();
}

Status Framework::NormalizeScores(const CycleState& state, const kube::Pod& pod,
                                  ScoreBuffers& out) {
  // Once per plugin (sequential; each is O(nodes)).
  const size_t num_plugins = score_.size();
  if (out.keep_raw) out.raw = out.per_plugin;
  const bool record = state.record_plugin_metrics();
  for (size_t p = 0; p < num_plugins; ++p) {
    if (!out.active[p]) continue;
    const ScoreExtensions* ext = score_[p].plugin->GetScoreExtensions();
    if (ext == nullptr) continue;
    const Timer plugin_timer;
    Status s = ext->NormalizeScore(state, pod, out.per_plugin[p]);
    if (record) {
      ObservePlugin(score_[p].name, Point::kScoreExtensionNormalize, s.code(),
                    plugin_timer.Seconds());
    }
    if (!s.IsSuccess()) {
      return Status::Error(absl::StrCat("running Normalize on Score plugin \"", score_[p].name,
                                        "\": ", s.Message()))
          .WithPlugin(score_[p].name);
    }
  }
  return Status();
}

void Framework::AppendFallbackNotes(const CycleState& state, std::vector<std::string>& out) const {
  for (const ScoreEntry& entry : score_) {
    if (const auto* notes = dynamic_cast<const FallbackNotes*>(entry.plugin); notes != nullptr) {
      notes->AppendFallbackNotes(state, out);
    }
  }
}

Status Framework::ApplyWeights(size_t from, ScoreBuffers& out) const {
  // Range checks and weights of the plugins not fused into the scoring loop.
  const size_t num_nodes = out.totals.size();
  for (size_t p = from; p < score_.size(); ++p) {
    if (!out.active[p]) continue;
    const int64_t weight = score_[p].weight;
    const NodeScoreList& list = out.per_plugin[p];
    if (list.size() != num_nodes) {
      return Status::Error(
                 absl::StrCat("plugin \"", score_[p].name, "\" changed the number of scored nodes"))
          .WithPlugin(score_[p].name);
    }
    for (size_t n = 0; n < num_nodes; ++n) {
      const NodeScore& ns = list[n];
      if (ns.score < kMinNodeScore || ns.score > kMaxNodeScore) {
        return Status::Error(absl::StrCat("plugin \"", score_[p].name,
                                          "\" returns an invalid score ", ns.score,
                                          ", it should in the range of [", kMinNodeScore, ", ",
                                          kMaxNodeScore, "] after normalizing"))
            .WithPlugin(score_[p].name);
      }
      out.totals[n].total += weight * ns.score;
      out.totals[n].exact_total += static_cast<double>(weight) * ExactOrScore(ns);
    }
  }
  return Status();
}

Status Framework::RunReservePluginsReserve(CycleState& state, const kube::Pod& pod,
                                           absl::string_view node_name) {
  const Timer timer;
  const bool record = state.record_plugin_metrics();
  Status out;
  for (ReservePlugin* pl : reserve_) {
    const Timer plugin_timer;
    Status s = pl->Reserve(state, pod, node_name);
    if (record) ObservePlugin(pl->Name(), Point::kReserve, s.code(), plugin_timer.Seconds());
    if (!s.IsSuccess()) {
      out = Attribute(std::move(s), "Reserve", pl->Name());
      break;
    }
  }
  ObservePoint(Point::kReserve, out.code(), timer.Seconds());
  return out;
}

void Framework::RunReservePluginsUnreserve(CycleState& state, const kube::Pod& pod,
                                           absl::string_view node_name) {
  const Timer timer;
  const bool record = state.record_plugin_metrics();
  for (auto it = reserve_.rbegin(); it != reserve_.rend(); ++it) {
    const Timer plugin_timer;
    (*it)->Unreserve(state, pod, node_name);
    if (record) {
      ObservePlugin((*it)->Name(), Point::kUnreserve, Code::kSuccess, plugin_timer.Seconds());
    }
  }
  ObservePoint(Point::kUnreserve, Code::kSuccess, timer.Seconds());
}

Status Framework::RunPermitPlugins(CycleState& state, std::shared_ptr<const kube::Pod> pod,
                                   absl::string_view node_name) {
  const Timer timer;
  const bool record = state.record_plugin_metrics();
  std::vector<WaitingPod::PendingPlugin> waits;
  Status out;
  for (PermitPlugin* pl : permit_) {
    absl::Duration timeout = absl::ZeroDuration();
    const Timer plugin_timer;
    Status s = pl->Permit(state, *pod, node_name, timeout);
    if (record) ObservePlugin(pl->Name(), Point::kPermit, s.code(), plugin_timer.Seconds());
    if (s.IsSuccess()) continue;
    if (s.IsWait()) {
      waits.push_back({std::string(pl->Name()), std::min(timeout, kMaxPermitTimeout)});
      continue;
    }
    out = Attribute(std::move(s), "Permit", pl->Name());
    break;
  }
  if (out.IsSuccess() && !waits.empty()) {
    waiting_pods_.Add(std::make_shared<WaitingPod>(pod, std::string(node_name), std::move(waits),
                                                   handle_.clock()));
    out = Status(Code::kWait, {"one or more plugins asked to wait and no plugin rejected pod"});
  }
  ObservePoint(Point::kPermit, out.code(), timer.Seconds());
  return out;
}

Status Framework::WaitOnPermit(const kube::Pod& pod, std::stop_token stop) {
  std::shared_ptr<WaitingPod> waiting = waiting_pods_.Get(pod);
  if (waiting == nullptr) return Status();
  Status s;
  {
    // Runs at once when the stop was requested already.
    std::stop_callback on_stop(stop, [&waiting] { waiting->Reject("", "scheduler stopped"); });
    s = waiting->Wait();
  }
  waiting_pods_.Remove(pod);
  if (s.IsSuccess() || s.IsRejected()) return s;
  return Status::Error(absl::StrCat("error while waiting on permit for pod ", pod.metadata.name,
                                    ": ", s.Message()))
      .WithPlugin(s.plugin());
}

bool Framework::BindingCycleMayWait(CycleState& state, const kube::Pod& pod,
                                    absl::string_view node_name) {
  if (waiting_pods_.Get(pod) != nullptr) return true;
  for (PreBindPreFlightExtension* pre_flight : pre_bind_pre_flight_) {
    if (pre_flight == nullptr || !pre_flight->PreBindPreFlight(state, pod, node_name).IsSkip()) {
      return true;
    }
  }
  return false;
}

Status Framework::RunPreBindPlugins(CycleState& state, const kube::Pod& pod,
                                    absl::string_view node_name) {
  const Timer timer;
  const bool record = state.record_plugin_metrics();
  Status out;
  for (PreBindPlugin* pl : pre_bind_) {
    const Timer plugin_timer;
    Status s = pl->PreBind(state, pod, node_name);
    if (record) ObservePlugin(pl->Name(), Point::kPreBind, s.code(), plugin_timer.Seconds());
    if (!s.IsSuccess()) {
      out = Attribute(std::move(s), "PreBind", pl->Name());
      break;
    }
  }
  ObservePoint(Point::kPreBind, out.code(), timer.Seconds());
  return out;
}

Status Framework::RunBindPlugins(CycleState& state, const kube::Pod& pod,
                                 absl::string_view node_name) {
  const Timer timer;
  const bool record = state.record_plugin_metrics();
  Status out = Status::Skip();
  for (BindPlugin* pl : bind_) {
    const Timer plugin_timer;
    Status s = pl->Bind(state, pod, node_name);
    if (record) ObservePlugin(pl->Name(), Point::kBind, s.code(), plugin_timer.Seconds());
    if (s.IsSkip()) continue;
    out = s.IsSuccess() ? Status() : Attribute(std::move(s), "Bind", pl->Name());
    break;
  }
  ObservePoint(Point::kBind, out.code(), timer.Seconds());
  return out;
}

void Framework::RunPostBindPlugins(CycleState& state, const kube::Pod& pod,
                                   absl::string_view node_name) {
  const Timer timer;
  const bool record = state.record_plugin_metrics();
  for (PostBindPlugin* pl : post_bind_) {
    const Timer plugin_timer;
    pl->PostBind(state, pod, node_name);
    if (record) ObservePlugin(pl->Name(), Point::kPostBind, Code::kSuccess, plugin_timer.Seconds());
  }
  ObservePoint(Point::kPostBind, Code::kSuccess, timer.Seconds());
}

}  // namespace trimaran::sched
