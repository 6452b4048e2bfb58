#include "scheduler/plugins/low_risk_over_commitment/low_risk_over_commitment.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "common/status_macros.h"
#include "scheduler/plugins/low_risk_over_commitment/beta.h"

namespace trimaran::sched::plugins {
namespace {

using trimaran::CpuMem;
using trimaran::MetricsState;
using trimaran::StatsResource;

}  // namespace

struct LowRiskOverCommitment::CycleData final : public StateData {
  trimaran::CycleMetrics metrics;
  CpuMem request;
  CpuMem limit;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<CycleData>(*this); }
};

absl::StatusOr<std::unique_ptr<Plugin>> LowRiskOverCommitment::New(const PluginArgs& args,
                                                                   Handle& handle) {
  TRIMARAN_ASSIGN_OR_RETURN(LowRiskOverCommitmentArgs typed, DecodeLowRiskOverCommitmentArgs(args));
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<trimaran::PluginMetrics> metrics,
                            trimaran::PluginMetrics::Create(typed.trimaran, handle, kName));
  return std::make_unique<LowRiskOverCommitment>(std::move(typed), std::move(metrics));
}

LowRiskOverCommitment::LowRiskOverCommitment(LowRiskOverCommitmentArgs args,
                                             std::unique_ptr<trimaran::PluginMetrics> metrics)
    : args_(std::move(args)), metrics_(std::move(metrics)) {}

Status LowRiskOverCommitment::PreScore(CycleState& state, const kube::Pod& pod,
                                       std::span<const NodeInfo* const> /*nodes*/) {
  auto data = std::make_unique<CycleData>();
  data->metrics = metrics_->ForCycle();
  data->request = trimaran::PodRequests(pod);
  data->limit = trimaran::PodLimits(pod);
  trimaran::SetMaxLimits(data->request, data->limit);
  state.Write(kStateKey, std::move(data));
  return Status();
}

double LowRiskOverCommitment::Risk(const NodeInfo& node_info, const trimaran::NodeTotals& totals,
                                   StatsResource resource,
                                   const trimaran::ResourceData* data) const {
  const bool cpu = resource == StatsResource::kCpu;
  const int64_t req = cpu ? totals.request.milli_cpu : totals.request.memory;
  const int64_t lim = cpu ? totals.limit.milli_cpu : totals.limit.memory;
  const int64_t cap = cpu ? totals.capacity.milli_cpu : totals.capacity.memory;
  const int64_t req_minus =
      cpu ? totals.request_minus_pod.milli_cpu : totals.request_minus_pod.memory;
  const int64_t lim_minus = cpu ? totals.limit_minus_pod.milli_cpu : totals.limit_minus_pod.memory;
  const double weight = cpu ? args_.cpu_risk_limit_weight : args_.memory_risk_limit_weight;

  // (1) limit risk.
  double risk_limit = 0;
  if (lim > cap) {
    risk_limit = static_cast<double>(lim - cap) / static_cast<double>(lim - req);
  }
  // (2) load risk.
  double risk_load = 0;
  if (data != nullptr && node_info.node() != nullptr) {
    const trimaran::ResourceStats stats =
        trimaran::CreateResourceStats(*data, *node_info.node(), 0, resource);
    const trimaran::MuSigma ms = trimaran::GetMuSigma(stats);
    const double mu = ms.mu;
    double sigma = ms.sigma * std::sqrt(static_cast<double>(args_.smoothing_window_size));
    const double max_var = (mu > 0 && mu < 1) ? mu * (1 - mu) : 0;
    sigma = std::min(sigma, std::sqrt(max_var * kMaxVarianceAllowance));
    double thr_alloc = 0;
    if (cap > 0) {
      thr_alloc = std::clamp(static_cast<double>(req_minus) / static_cast<double>(cap), 0.0, 1.0);
    }
    lro::BetaDistribution dist;
    bool has_dist = false;
    double p = lro::ComputeProbability(mu, sigma, thr_alloc, &dist, &has_dist);
    if (lim_minus < cap && req_minus <= lim_minus) {
      const double thr_lim = static_cast<double>(lim_minus) / static_cast<double>(cap);
      if (thr_lim == 0) {
        p = 1;
      } else if (has_dist) {
        const double q = dist.Cdf(thr_lim);
        if (q > 0) p = std::clamp(p / q, 0.0, 1.0);
      }
    }
    risk_load = 1 - p;
  }
  // (3)
  return std::clamp(weight * risk_limit + (1 - weight) * risk_load, 0.0, 1.0);
}

ScoreResult LowRiskOverCommitment::Score(const CycleState& state, const kube::Pod& pod,
                                         const NodeInfo& node_info) const {
  if (node_info.node() == nullptr) return ScoreResult::Of(kMinNodeScore);
  std::optional<CycleData> local;
  const CycleData* data = nullptr;
  if (auto read = state.Read<CycleData>(kStateKey); read.ok()) {
    data = *read;
  } else {
    local.emplace();
    local->metrics = metrics_->ForCycleNonBlocking();
    local->request = trimaran::PodRequests(pod);
    local->limit = trimaran::PodLimits(pod);
    trimaran::SetMaxLimits(local->request, local->limit);
    data = &*local;
  }
  // 1. Best effort: skipped (upstream).
  if (data->request == CpuMem{} && data->limit == CpuMem{}) return ScoreResult::Of(kMinNodeScore);

  const std::string& name = node_info.name();
  MetricsState mstate;
  const trimaran::NodeUsage* usage = metrics_->Lookup(data->metrics, name, &mstate);
  if (usage != nullptr && !usage->cpu.valid && !usage->memory.valid) {
    mstate = MetricsState::kNoUsableMetric;
  }
  metrics_->Report(name, mstate);
  // MinScore is upstream's behaviour: 0 when the node has no metrics (§4 step 2). A node
  // listed with metrics of other kinds only is not "no metrics" upstream: it is scored
  // by its limit risk (its load risk is 0 without a CPU or Memory metric), as here.
  const bool listed_without_usable = mstate == MetricsState::kNoUsableMetric && usage != nullptr;
  if (mstate != MetricsState::kOk && !listed_without_usable &&
      metrics_->fallback() == trimaran::FallbackPolicy::kMinScore) {
    return ScoreResult::Of(kMinNodeScore);
  }
  const bool use_metrics = mstate == MetricsState::kOk;
  const trimaran::NodeTotals totals =
      trimaran::NodeRequestsAndLimits(node_info, data->request, data->limit);
  const double risk_cpu = Risk(node_info, totals, StatsResource::kCpu,
                               use_metrics && usage->cpu.valid ? &usage->cpu : nullptr);
  const double risk_mem = Risk(node_info, totals, StatsResource::kMemory,
                               use_metrics && usage->memory.valid ? &usage->memory : nullptr);
  const double rank = 1 - std::max(risk_cpu, risk_mem);
  const double exact = 100 * rank;
  return ScoreResult::Of(static_cast<int64_t>(std::round(exact)), exact);
}

}  // namespace trimaran::sched::plugins
