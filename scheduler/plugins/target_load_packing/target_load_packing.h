#pragma once
// TargetLoadPacking: best-fit packing on *measured* CPU (and optionally memory) up to a
// target utilisation, then least-fit among hot nodes (spec trimaran-and-load-watcher.md
// §2; upstream pkg/trimaran/targetloadpacking). Args: args.h.
//
// Per resource r with target T (cpu only by default, exactly upstream's formula):
//   P  = Σ over spec.containers (init containers ignored) of
//          limits[r] present   -> limit
//          requests[r] present -> round(request × m)
//          otherwise           -> defaultRequests[r]
//        + spec.overhead[r]                                          (PreScore, once)
//   u  = the node's last r metric with operator AVG or Latest (percent)
//   C  = node.status.CAPACITY[r] (millicores / bytes, as a double)
//   M  = Σ of the predictions of pods this plugin placed that the metrics window does not
//        cover yet (trimaran/recent_pods.h: assumed at Reserve, dropped at Unreserve)
//   U  = C != 0 ? 100 × ((u/100 × C + P) + M) / C : 0     (this evaluation order)
//   s  = U > T and U > 100 : 0
//        T < U <= 100      : round(T × (100 − U) / (100 − T))
//        U <= T            : round((100 − T) × U / T + T)
// score = s for one resource; round(Σ w_r·s_r,exact / Σ w_r) for several. The exact value
// is reported as ScoreResult::exact (runtime tie-break). NormalizeScore: none (scores are
// already in [0, 100] for valid args).
//
// Staleness (trimaran/trimaran_spec.h): when the metrics are missing, stale, do not list
// the node, or have no AVG/Latest value for a configured resource, the node is scored by
// `fallback`: Requests -> U = 100 × (node requested[r] + P) / C through the same curve
// (requested comes from the scheduler cache and already holds assumed pods); MinScore ->
// 0, upstream's behaviour. Every fallback is counted and logged once per node and state
// change (trimaran/fallback.h).
//
// Fixed vs upstream: args per instance (upstream: package globals, last instance wins);
// assumed pods counted from Reserve (#797); no double counting of pods that were running
// at startup; targetUtilization validated to [1, 100]; a staleness limit and fallback;
// the metrics snapshot is read once per cycle in PreScore, from a source shared by all
// plugins with the same provider config.
//
// Hot path (issue 7 "Benchmark"): PreScore hands Score a load_aware::NodeTable of per-node
// records (capacity, the base load u/100 × C, the node's metrics state, the reported
// fallback state), built once per (metrics view × node set) change and reused across
// cycles, so Score finds its node by the Node pointer and does no string hashing, no
// Quantity conversion and takes no lock; fallback logging goes through
// FallbackReporter::ReportCached. A node the table lacks (new or updated Node object)
// is scored the slow way, bit-identically, and the next PreScore adds it. The runtime
// calls ScoreNodes once per run of consecutive nodes: the cycle state is read once, the
// table is walked with a run-local cursor (with prefetches a few nodes ahead), and for
// the default single resource the arithmetic runs in a second pass over the group's
// numerators and capacities (curve.h: both curve branches by selects, two nodes per SSE2
// instruction), bit-identical to Score.
//
// Thread-safety: Score is const and safe for concurrent use; PreScore and Reserve run on
// the scheduling thread, Unreserve possibly on a binding thread (the tracker locks).
// Ownership: borrows the Handle (clock, stats, metrics source) for its whole life.

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/fallback_notes.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/pod_deletion_listener.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/load_aware/cycle_skeleton.h"
#include "scheduler/plugins/load_aware/node_table.h"
#include "scheduler/plugins/load_aware/plugin_metrics.h"
#include "scheduler/plugins/load_aware/recent_pods.h"
#include "scheduler/plugins/target_load_packing/args.h"

namespace trimaran::sched::plugins {

class TargetLoadPacking final : public PreScorePlugin,
                                public ScorePlugin,
                                public ReservePlugin,
                                public PodDeletionListener,
                                public FallbackNotes {
 public:
  // FallbackNotes: the fallbacks of the cycle's Score (counted since its PreScore).
  void AppendFallbackNotes(const CycleState& state, std::vector<std::string>& out) const override;
  static constexpr absl::string_view kName = "TargetLoadPacking";
  static constexpr absl::string_view kStateKey = "TargetLoadPacking.Cycle";

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);

  // Its registration (scheduler/plugins/registry.cc): New, the extension points of its
  // interfaces, and an args validator that decodes the args exactly as New does; a
  // profile scoring with it always packs.
  static PluginDescriptor Descriptor();

  // `args` must be valid; `metrics` must not be null.
  TargetLoadPacking(TargetLoadPackingArgs args, std::unique_ptr<load_aware::PluginMetrics> metrics);

  absl::string_view Name() const override { return kName; }
  const TargetLoadPackingArgs& args() const { return args_; }

  Status PreScore(CycleState& state, const kube::Pod& pod,
                  std::span<const NodeInfo* const> nodes) override;
  ScoreResult Score(const CycleState& state, const kube::Pod& pod,
                    const NodeInfo& node_info) const override;
  // Score over a run of nodes: the cycle state is read once and the table searched with
  // a cursor local to the run (the nodes come in PreScore's order). Score is this over
  // one node, so there is one arithmetic path.
  Status ScoreNodes(const CycleState& state, const kube::Pod& pod,
                    std::span<const NodeInfo* const> nodes,
                    std::span<NodeScore> scores) const override;
  Status Reserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) override;
  void Unreserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) override;
  // A deleted pod (a preemption victim, say) stops counting as recently placed load.
  void OnAssignedPodDeleted(const kube::Pod& pod) override { tracker_.Forget(pod); }

  // The pod's predicted load P (cpu millicores, memory bytes) per the args (§2.2).
  load_aware::PodLoad Predict(const kube::Pod& pod) const;

  // The target curve of §2.5 for utilisation U (percent) and target T: the unrounded
  // score (0 when U > 100 and U > T).
  static double Curve(double u, double t);
  // static_cast<int64_t>(std::round(x)), bit-for-bit, without a libm call for |x| < 2^52
  // (the score's rounding; std::round's call was ~3% of a 5,000-node cycle).
  static int64_t Round(double x);

  const load_aware::RecentPodTracker& tracker() const { return tracker_; }
  const load_aware::PluginMetrics& metrics() const { return *metrics_; }

 private:
  struct CycleData;
  struct NodeRecord;
  using Table = load_aware::NodeTable<NodeRecord>;

  // Fills `out` (all but out.node) for `node_info` against `view` (may be null).
  static void MakeRecord(const void* self, const load_aware::MetricsView* view,
                         const NodeInfo& node_info, NodeRecord& out);
  // X of §2.4 for one resource (0 cpu, 1 memory): used + predicted + pending with
  // metrics, requested + predicted without. The one place the load is summed.
  static double LoadNumerator(const NodeRecord& record, load_aware::MetricsState mstate,
                              int64_t pending, const NodeInfo& node_info, int resource,
                              int64_t predicted);
  // The exact (unrounded) score of one node (several resources, or a node outside the
  // table); the same LoadNumerator / Utilisation / TargetCurve as the batch loop.
  double ScoreNode(const CycleData& data, const NodeRecord& record, load_aware::MetricsState mstate,
                   const load_aware::PodLoad& missing, const NodeInfo& node_info) const;
  // The hot path for a node with a record in the cycle's table: reports the node's
  // metrics state, then its exact score, or nullopt for the MinScore fallback.
  std::optional<double> ScoreRecord(const CycleData& data, const NodeRecord& record,
                                    const NodeInfo& node_info) const;
  // A node without a record (new or updated), or no cycle data (no PreScore ran).
  ScoreResult ScoreSlow(const CycleData* data, const kube::Pod& pod,
                        const NodeInfo& node_info) const;
  // nullopt -> kMinNodeScore without an exact value; else round(exact) and exact.
  static ScoreResult ToResult(std::optional<double> exact);

  // args_.resources, resolved once: 0 = cpu, 1 = memory (any other name reads as memory,
  // as the formula always did).
  struct Term {
    int resource;
    double target;
    int64_t weight;
  };

  TargetLoadPackingArgs args_;
  std::vector<Term> terms_;
  std::unique_ptr<load_aware::PluginMetrics> metrics_;
  load_aware::RecentPodTracker tracker_;
  // PreScore, Reserve and the fallback notes (the newest table is its).
  load_aware::CycleSkeleton<NodeRecord> cycle_;
};

}  // namespace trimaran::sched::plugins
