#pragma once
// LowRiskOverCommitment: prefers nodes where over-committed limits and measured load
// (a Beta fitted to mean and stdev) risk the least (spec trimaran-and-load-watcher.md
// §4; upstream pkg/trimaran/lowriskovercommitment). Args: args.h.
//
// PreScore: podReq = requests (§1.2), podLim = limits with SetMaxLimits, into the
// CycleState ("LowRiskOverCommitment.PodResources"), plus the cycle's metrics view.
// Score(node):
//   1. best-effort pod (all four zero): 0.
//   2. totals = NodeRequestsAndLimits (§1.5) over the NodeInfo's pods (assumed included).
//   3. per r in {cpu, memory}:
//        riskLimit = lim > cap ? (lim − cap)/(lim − req) : 0
//        riskLoad  = 0 unless the r metric is valid, else with (μ, σ) = MuSigma(stats of
//          a zero request): σ ×= √W; σ = min(σ, √(maxVar(μ)·0.99)), maxVar = μ(1−μ) on
//          (0, 1) else 0; p = P(U <= clamp(reqMinus/cap, 0, 1)) under Beta(μ, σ);
//          conditioned on U <= limMinus/cap when limMinus < cap and reqMinus <= limMinus
//          (thrLim = 0 -> p = 1; else p = clamp(p / F(thrLim), 0, 1) when F(thrLim) > 0);
//          riskLoad = 1 − p
//        risk_r = clamp(w_r·riskLimit + (1 − w_r)·riskLoad, 0, 1)
//   4. score = round(100 × (1 − max(risk_cpu, risk_mem))).
// NormalizeScore: none.
//
// Staleness (trimaran/trimaran_spec.h): missing/stale metrics, or neither a CPU nor a
// Memory metric for the node: Requests -> riskLoad = 0 for both resources (the
// request-based Beta has σ = 0 and μ = reqMinus/cap <= thrAlloc, so p = 1), i.e. the
// limit risk alone, which is what upstream computes for a node without load metrics;
// MinScore -> 0. Counted and logged (trimaran/fallback.h). No Reserve accounting is
// needed: the request and limit totals come from the scheduler cache, which holds
// assumed pods; the measured load excludes the pod by definition (§4).
//
// Hot path: as LoadVariationRiskBalancing, Score finds the node's usage, allocatable and
// fallback-report word in a load_aware::NodeTable of UsageRecords built in PreScore.
//
// Thread-safety: Score is const and safe for concurrent use.

#include <memory>
#include <span>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/fallback_notes.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/load_aware/cycle_skeleton.h"
#include "scheduler/plugins/load_aware/node_table.h"
#include "scheduler/plugins/load_aware/plugin_metrics.h"
#include "scheduler/plugins/load_aware/resource_stats.h"
#include "scheduler/plugins/load_aware/usage_record.h"
#include "scheduler/plugins/low_risk_over_commitment/args.h"

namespace trimaran::sched::plugins {

class LowRiskOverCommitment final : public PreScorePlugin,
                                    public ScorePlugin,
                                    public FallbackNotes {
 public:
  // FallbackNotes: the fallbacks of the cycle's Score (counted since its PreScore).
  void AppendFallbackNotes(const CycleState& state, std::vector<std::string>& out) const override;
  static constexpr absl::string_view kName = "LowRiskOverCommitment";
  static constexpr absl::string_view kStateKey = "LowRiskOverCommitment.PodResources";
  static constexpr double kMaxVarianceAllowance = 0.99;

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New, the extension points of its
  // interfaces, and an args validator that decodes the args exactly as New does.
  static PluginDescriptor Descriptor();

  LowRiskOverCommitment(LowRiskOverCommitmentArgs args,
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

  // risk_r of step 3. `data` is null when the resource has no usable metric;
  // totals.capacity is the node's allocatable (NodeRequestsAndLimits).
  double Risk(const NodeInfo& node_info, const load_aware::NodeTotals& totals,
              load_aware::StatsResource resource, const load_aware::ResourceData* data) const;

  const load_aware::PluginMetrics& metrics() const { return *metrics_; }

 private:
  struct CycleData;

  // Score with `data` already read (null: no PreScore ran) and the run's table cursor.
  ScoreResult ScoreOne(const CycleData* data, const kube::Pod& pod, const NodeInfo& node_info,
                       size_t& cursor) const;
  ScoreResult ScoreRecord(const CycleData& data, const load_aware::UsageRecord& record,
                          const NodeInfo& node_info, bool cached_report) const;

  LowRiskOverCommitmentArgs args_;
  std::unique_ptr<load_aware::PluginMetrics> metrics_;
  // PreScore and the fallback notes (the newest table is its); no recent pods.
  load_aware::CycleSkeleton<load_aware::UsageRecord> cycle_;
};

}  // namespace trimaran::sched::plugins
