#pragma once
// Framework: one scheduling profile's plugins, run at each extension point in the
// profile's order with its score weights (upstream's frameworkImpl,
// pkg/scheduler/framework/runtime/framework.go). The scheduler owns one Framework per
// profile (schedulerName); SchedulePod (schedule_algorithm.h) drives the scheduling
// cycle's algorithm through it, and the scheduler loop drives Reserve/Permit and the
// binding cycle.
//
// Construction: Framework::Create(ProfileConfig, Registry, Handle) instantiates every
// plugin named anywhere in the profile exactly once (a plugin listed at several
// extension points is one object), checks that it implements every extension point it
// is listed at, and resolves weights. ProfileConfig (scheduler/framework/profile_config.h)
// is the plain result of the config expansion (multiPoint already expanded, defaults
// already merged, spec §1.6–§1.7).
//
// Statuses: every non-success status returned by a Run* method names the plugin that
// produced it (Status::plugin()). kError statuses are wrapped as upstream does
// ("running PreFilter plugin \"X\": ...").
//
// Metrics (spec §8.2, in the Handle's stats_scopes().upstream; the daemon's prefix
// "scheduler_" gives kube-scheduler's names scheduler_framework_...):
//   framework_extension_point_duration_seconds{extension_point,status,profile}
//       buckets 0.0001×2^k, 12; every Run* call except the per-node Filter.
//   plugin_execution_duration_seconds{plugin,extension_point,status}
//       buckets 0.00001×1.5^k, 20; only when CycleState::record_plugin_metrics() (10% of
//       cycles) and never for Filter/Score, which run per node (no metric on the per-node
//       path; their cost shows in the Score extension point and in the parallelizer).
//
// Thread-safety: after Create, a Framework is immutable except for its WaitingPods (safe
// for concurrent use) and the metric caches (atomics). RunFilterPlugins and the Score
// work are called concurrently from the parallelizer's workers; the sequential
// extension points follow the threading contract of interface.h (one scheduling cycle
// at a time; binding cycles of different pods concurrently).
//
// Ownership: the Framework owns its plugins and the per-plugin Handles; the Handle and
// Registry given to Create must outlive it (the Registry only during Create).

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/stats/family.h"
#include "common/stats/histogram.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/fallback_notes.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/plugins_runner.h"
#include "scheduler/framework/pod_deletion_listener.h"
#include "scheduler/framework/pre_bind_pre_flight.h"
#include "scheduler/framework/profile_config.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"
#include "scheduler/runtime/waiting_pods.h"

namespace trimaran::sched {

class Framework final : public PluginsRunner {
 public:
  // InvalidArgument naming the profile and plugin when a name is not registered, a
  // plugin does not implement a point it is listed at, a plugin is listed twice at one
  // point, a weight is negative, or Σ weight×100 overflows; the factory's error
  // (annotated) when a plugin fails to build.
  static absl::StatusOr<std::unique_ptr<Framework>> Create(const ProfileConfig& config,
                                                           const Registry& registry,
                                                           Handle& handle);
  ~Framework() override;
  Framework(const Framework&) = delete;
  Framework& operator=(const Framework&) = delete;

  const std::string& profile_name() const { return config_.scheduler_name; }
  const ProfileConfig& config() const { return config_; }
  Handle& handle() { return handle_; }
  WaitingPods& waiting_pods() { return waiting_pods_; }

  // The plugin named `name`, or nullptr.
  Plugin* GetPlugin(absl::string_view name) const;

  bool HasFilterPlugins() const { return !filter_.empty(); }
  bool HasScorePlugins() const { return !score_.empty(); }
  bool HasPostFilterPlugins() const { return !post_filter_.empty(); }

  // The Score plugins in the profile's order (the order of ScoreBuffers::per_plugin):
  // name and effective weight (a configured 0 counts as 1).
  size_t NumScorePlugins() const { return score_.size(); }
  const std::string& ScorePluginName(size_t i) const { return score_[i].name; }
  int64_t ScorePluginWeight(size_t i) const { return score_[i].weight; }
  // Appends the notes of every Score plugin implementing FallbackNotes
  // (framework/fallback_notes.h) for the cycle of `state`, in plugin order. Scheduling
  // thread, after Score.
  void AppendFallbackNotes(const CycleState& state, std::vector<std::string>& out) const;

  // ---- Queue ----
  // The QueueSort plugin's Less, or nullptr when the profile has none.
  const QueueSortPlugin* queue_sort_plugin() const { return queue_sort_; }
  // A less-than over QueuedPodInfo from the QueueSort plugin (empty function if none).
  std::function<bool(const QueuedPodInfo&, const QueuedPodInfo&)> QueueSortFunc() const;
  // First non-success PreEnqueue status (attributed), else Success.
  Status RunPreEnqueuePlugins(const kube::Pod& pod) const;

  // ---- Scheduling cycle ----
  struct PreFilterOutput {
    // Intersection of the plugins' results.
    PreFilterResult result;
    // Plugins whose result narrowed the nodes, in order.
    std::vector<std::string> narrowing_plugins;
    // Plugins that rejected the pod (Unschedulable / UnschedulableAndUnresolvable /
    // Pending).
    std::vector<std::string> rejector_plugins;
  };
  // Runs every PreFilter in order (spec §4.1 step 2). Skip: recorded in
  // state.skip_filter_plugins(). UnschedulableAndUnresolvable stops at once;
  // Unschedulable lets the rest run and is returned at the end; kError stops. An empty
  // intersection returns UnschedulableAndUnresolvable "node(s) didn't satisfy
  // plugin(s) [A B] simultaneously" ("plugin A" for one).
  Status RunPreFilterPlugins(CycleState& state, const kube::Pod& pod,
                             std::span<const NodeInfo* const> nodes, PreFilterOutput& out);

  // Runs the Filters (minus skipped ones) on one node, stopping at the first
  // non-success, which is returned attributed to its plugin (kError wrapped as
  // "running Filter plugin ..."). Thread-safe; no allocation unless a plugin allocates.
  Status RunFilterPlugins(const CycleState& state, const kube::Pod& pod,
                          const NodeInfo& node_info) const;

  // Filter with nominated pods (spec kube-scheduler-constraints.md §1.3): when the
  // Handle's nominator has pods nominated to this node with priority >= pod's (other
  // than pod itself), pass 1 runs the Filters on clones of the node and state with them
  // added (PreFilter extensions' AddPod), pass 2 on the originals; the node passes only
  // if both pass. Without such pods, exactly RunFilterPlugins. Thread-safe.
  Status RunFilterPluginsWithNominatedPods(const CycleState& state, const kube::Pod& pod,
                                           const NodeInfo& node_info) const override;
  // PreFilter extensions (PluginsRunner): AddPod / RemovePod of every PreFilter plugin
  // with extensions that did not Skip, in order; the first failure, attributed.
  Status RunPreFilterExtensionAddPod(CycleState& state, const kube::Pod& pod_to_schedule,
                                     const PodInfo& pod_to_add,
                                     const NodeInfo& node_info) const override;
  Status RunPreFilterExtensionRemovePod(CycleState& state, const kube::Pod& pod_to_schedule,
                                        const PodInfo& pod_to_remove,
                                        const NodeInfo& node_info) const override;

  // Tells every plugin implementing PodDeletionListener that the assigned or assumed
  // `pod` was deleted. Thread-safe (the listeners synchronize themselves).
  void RunPodDeletionListeners(const kube::Pod& pod) const;

  // PostFilter (preemption): the first Success wins; UnschedulableAndUnresolvable stops;
  // otherwise Unschedulable with every plugin's reasons (attributed to the first
  // rejector).
  Status RunPostFilterPlugins(CycleState& state, const kube::Pod& pod,
                              const NodeToStatus& filtered_node_status, PostFilterResult& result);

  // Skip: recorded in state.skip_score_plugins(). Non-success/non-skip stops.
  Status RunPreScorePlugins(CycleState& state, const kube::Pod& pod,
                            std::span<const NodeInfo* const> nodes);

  // The combined score of one node (spec §4.2).
  struct NodeTotal {
    const NodeInfo* node = nullptr;
    // Σ_p weight_p × score_p (1 when the profile has no score plugins).
    int64_t total = 0;
    // Σ_p weight_p × (exact_p if reported and valid, else score_p).
    double exact_total = 0;
  };
  // Buffers reused across cycles so that scoring allocates nothing in steady state.
  struct ScoreBuffers {
    std::vector<NodeScoreList> per_plugin;  // [score plugin][node]
    std::vector<NodeTotal> totals;          // [node]
    std::vector<uint8_t> active;            // [score plugin]: not skipped this cycle
    // Tools: when set, raw[p] keeps plugin p's scores as Score returned them, before
    // NormalizeScore (the scheduler leaves it off: it costs a copy).
    bool keep_raw = false;
    std::vector<NodeScoreList> raw;  // [score plugin][node], when keep_raw
  };
  // Score (parallel over nodes via the Handle's Parallelizer; skipped plugins count 0),
  // then NormalizeScore per plugin, then range checks ("plugin X returns an invalid
  // score N") and weights. out.totals[i] is nodes[i]'s total.
  Status RunScorePlugins(const CycleState& state, const kube::Pod& pod,
                         std::span<const NodeInfo* const> nodes, ScoreBuffers& out);

  // Reserve in order; the first failure is returned (the caller then runs Unreserve).
  Status RunReservePluginsReserve(CycleState& state, const kube::Pod& pod,
                                  absl::string_view node_name);
  // Unreserve on every Reserve plugin, in reverse order.
  void RunReservePluginsUnreserve(CycleState& state, const kube::Pod& pod,
                                  absl::string_view node_name);

  // Permit in order. A rejection or error is returned at once. When some plugin asks to
  // wait (and none rejects), the pod is added to waiting_pods() with each waiting
  // plugin's timeout (capped at kMaxPermitTimeout) and kWait is returned.
  Status RunPermitPlugins(CycleState& state, std::shared_ptr<const kube::Pod> pod,
                          absl::string_view node_name);
  // Binding cycle: blocks until the waiting pod (if any) is allowed, rejected or timed
  // out, removes it from waiting_pods() and returns Success or the rejection. A request
  // on `stop` rejects it at once ("scheduler stopped"), also when requested before.
  Status WaitOnPermit(const kube::Pod& pod, std::stop_token stop = {});
  // Whether the binding cycle of `pod` (after Permit) may block: the pod waits at Permit
  // (it is in waiting_pods()) or a PreBind plugin lacks PreBindPreFlightExtension or its
  // PreBindPreFlight did not answer Skip (framework/pre_bind_pre_flight.h).
  // Scheduling thread.
  bool BindingCycleMayWait(CycleState& state, const kube::Pod& pod, absl::string_view node_name);

  // PreBind in order; the first failure is returned.
  Status RunPreBindPlugins(CycleState& state, const kube::Pod& pod, absl::string_view node_name);
  // Bind plugins in order until one does not Skip; Skip when all skip (or none exist).
  Status RunBindPlugins(CycleState& state, const kube::Pod& pod, absl::string_view node_name);
  void RunPostBindPlugins(CycleState& state, const kube::Pod& pod, absl::string_view node_name);

  // Extension points for metrics; also the `extension_point` label values.
  enum class Point : uint8_t {
    kPreEnqueue,
    kPreFilter,
    kFilter,
    kPostFilter,
    kPreScore,
    kScore,
    kScoreExtensionNormalize,
    kReserve,
    kUnreserve,
    kPermit,
    kPreBind,
    kBind,
    kPostBind,
    kCount,
  };
  static absl::string_view PointName(Point point);

 private:
  struct ScoreEntry {
    ScorePlugin* plugin;
    std::string name;
    int64_t weight;
  };
  static constexpr int kNumPoints = static_cast<int>(Point::kCount);
  static constexpr int kNumCodes = static_cast<int>(Code::kPending) + 1;

  Framework(const ProfileConfig& config, Handle& handle);

  // RunScorePlugins' steps. PrepareScoreBuffers sizes `out` and returns how many
  // leading plugins are weighted inside the scoring loop ("fused": no NormalizeScore);
  // ScoreNodesInRanges runs ScoreNodes in parallel (and those weights), setting
  // `out_of_range` when a fused plugin's score is out of range; NormalizeScores runs
  // NormalizeScore per plugin; ApplyWeights range-checks and weights plugins [from, n).
  size_t PrepareScoreBuffers(const CycleState& state, std::span<const NodeInfo* const> nodes,
                             ScoreBuffers& out) const;
  Status ScoreNodesInRanges(const CycleState& state, const kube::Pod& pod,
                            std::span<const NodeInfo* const> nodes, size_t fused, ScoreBuffers& out,
                            bool& out_of_range) const;
  Status NormalizeScores(const CycleState& state, const kube::Pod& pod, ScoreBuffers& out);
  Status ApplyWeights(size_t from, ScoreBuffers& out) const;

  // Metrics.
  class Timer;
  void ObservePoint(Point point, Code code, double seconds);
  void ObservePlugin(absl::string_view plugin, Point point, Code code, double seconds);

  ProfileConfig config_;
  Handle& handle_;
  // Owned plugins, one per name, and their per-plugin Handles.
  std::vector<std::unique_ptr<Handle>> plugin_handles_;
  std::vector<PluginPtr> plugins_;
  std::map<std::string, Plugin*, std::less<>> by_name_;

  const QueueSortPlugin* queue_sort_ = nullptr;
  std::vector<PreEnqueuePlugin*> pre_enqueue_;
  std::vector<PreFilterPlugin*> pre_filter_;
  std::vector<FilterPlugin*> filter_;
  std::vector<PostFilterPlugin*> post_filter_;
  std::vector<PreScorePlugin*> pre_score_;
  std::vector<ScoreEntry> score_;
  std::vector<ReservePlugin*> reserve_;
  std::vector<PermitPlugin*> permit_;
  std::vector<PreBindPlugin*> pre_bind_;
  std::vector<BindPlugin*> bind_;
  std::vector<PostBindPlugin*> post_bind_;
  std::vector<PodDeletionListener*> deletion_listeners_;
  // The PreBind plugins' pre-flight checks, parallel to pre_bind_ (null: none).
  std::vector<PreBindPreFlightExtension*> pre_bind_pre_flight_;

  WaitingPods waiting_pods_;

  stats::Family<stats::Histogram>* point_duration_ = nullptr;
  stats::Family<stats::Histogram>* plugin_duration_ = nullptr;
  // Cached children of point_duration_ for this profile, created on first use.
  std::array<std::array<std::atomic<stats::Histogram*>, kNumCodes>, kNumPoints> point_cache_{};
};

using FrameworkPtr = std::unique_ptr<Framework>;

}  // namespace trimaran::sched
