#pragma once
// LoadVariationRiskBalancing: spreads by the risk mean + margin·stdev^(1/sensitivity) of
// measured utilisation, worst resource deciding (spec trimaran-and-load-watcher.md §3;
// upstream pkg/trimaran/loadvariationriskbalancing). Args: args.h.
//
// Per resource r in {cpu, memory} with metrics (trimaran/metrics_view.h, §1.3):
//   C = allocatable (cpu millicores, memory MiB), R = pod request (§1.2) [+ recent, below]
//   A = avg% × C / 100, S = std% × C / 100
//   riskScore: C <= 0 -> 0; R' = max(R, 0), A' = clamp(A, 0, C), S' = clamp(S, 0, C)
//     μ = clamp((A' + R')/C, 0, 1), σ = clamp(S'/C, 0, 1)
//     k = sensitivity >= 0: σ = σ^(1/k)  (k = 0: σ < 1 -> 0, σ = 1 -> 1)
//     σ = clamp(margin × σ, 0, 1); risk = (μ + σ)/2; s_r = (1 − risk) × 100
//   total = both valid ? min(s_cpu, s_mem) : max(s_cpu, s_mem); score = round(total).
// (Upstream halves the risk; the KEP does not. We follow the code.)
//
// Trimaran additions: R also holds the requests of pods this plugin placed that the
// metrics window does not cover yet (Reserve/Unreserve; trimaran/recent_pods.h), so a
// burst does not pile onto the lowest-risk node (upstream registers the pod cache but
// never reads it); with no such pods the formula is upstream's. Staleness fallback
// (Requests: A = the node's requested resources from the scheduler cache, S = 0, same
// formula; MinScore: 0), counted and logged as in trimaran/fallback.h. The snapshot is
// read once per cycle (PreScore). As TargetLoadPacking, Score finds the node's usage,
// allocatable and fallback-report word in a load_aware::NodeTable record built in PreScore
// (no name hashing, Quantity conversion or lock per node); a node without a record is
// scored the same way from a record made on the spot.
//
// Thread-safety: Score is const and safe for concurrent use; see target_load_packing.h.

#include <memory>
#include <span>

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
#include "scheduler/plugins/load_aware/resource_stats.h"
#include "scheduler/plugins/load_aware/usage_record.h"
#include "scheduler/plugins/load_variation_risk_balancing/args.h"

namespace trimaran::sched::plugins {

class LoadVariationRiskBalancing final : public PreScorePlugin,
                                         public ScorePlugin,
                                         public ReservePlugin,
                                         public PodDeletionListener,
                                         public FallbackNotes {
 public:
  // FallbackNotes: the fallbacks of the cycle's Score (counted since its PreScore).
  void AppendFallbackNotes(const CycleState& state, std::vector<std::string>& out) const override;
  static constexpr absl::string_view kName = "LoadVariationRiskBalancing";
  static constexpr absl::string_view kStateKey = "LoadVariationRiskBalancing.Cycle";

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New, the extension points of its
  // interfaces, and an args validator that decodes the args exactly as New does.
  static PluginDescriptor Descriptor();

  LoadVariationRiskBalancing(LoadVariationRiskBalancingArgs args,
                             std::unique_ptr<load_aware::PluginMetrics> metrics);

  absl::string_view Name() const override { return kName; }

  Status PreScore(CycleState& state, const kube::Pod& pod,
                  std::span<const NodeInfo* const> nodes) override;
  ScoreResult Score(const CycleState& state, const kube::Pod& pod,
                    const NodeInfo& node_info) const override;
  // Score over a run of nodes with the cycle state read once; bit-identical to Score.
  Status ScoreNodes(const CycleState& state, const kube::Pod& pod,
                    std::span<const NodeInfo* const> nodes,
                    std::span<NodeScore> scores) const override;
  Status Reserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) override;
  void Unreserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) override;
  // A deleted pod (a preemption victim, say) stops counting as recently placed load.
  void OnAssignedPodDeleted(const kube::Pod& pod) override { tracker_.Forget(pod); }

  // riskScore of spec §3 (unrounded, 0..100).
  static double RiskScore(const load_aware::ResourceStats& stats, double margin,
                          double sensitivity);

  const load_aware::RecentPodTracker& tracker() const { return tracker_; }
  const load_aware::PluginMetrics& metrics() const { return *metrics_; }

 private:
  struct CycleData;
  using NodeRecord = load_aware::UsageRecord;

  // One node from its record (found in the cycle's table, or made on the spot).
  ScoreResult ScoreRecord(const CycleData& data, const NodeRecord& record,
                          const NodeInfo& node_info, bool cached_report) const;
  // Score with `data` already read (null: no PreScore ran) and the run's table cursor.
  ScoreResult ScoreOne(const CycleData* data, const kube::Pod& pod, const NodeInfo& node_info,
                       size_t& cursor) const;

  LoadVariationRiskBalancingArgs args_;
  std::unique_ptr<load_aware::PluginMetrics> metrics_;
  load_aware::RecentPodTracker tracker_;
  // PreScore, Reserve and the fallback notes (the newest table is its).
  load_aware::CycleSkeleton<NodeRecord> cycle_;
};

}  // namespace trimaran::sched::plugins
