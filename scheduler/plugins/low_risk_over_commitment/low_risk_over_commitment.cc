#include "scheduler/plugins/low_risk_over_commitment/low_risk_over_commitment.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "common/status_macros.h"
#include "scheduler/plugins/low_risk_over_commitment/beta.h"

namespace trimaran::sched::plugins {
namespace {

using load_aware::CpuMem;
using load_aware::MetricsState;
using load_aware::StatsResource;

// The pod's requests and limits, the limits raised to the requests (SetMaxLimits).
void SetPodTerms(const kube::Pod& pod, CpuMem& request, CpuMem& limit) {
  request = load_aware::PodRequests(pod);
  limit = load_aware::PodLimits(pod);
  load_aware::SetMaxLimits(request, limit);
}

}  // namespace

struct LowRiskOverCommitment::CycleData final
    : public load_aware::CycleBase<load_aware::UsageRecord> {
  CpuMem request;
  CpuMem limit;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<CycleData>(*this); }
};

absl::StatusOr<std::unique_ptr<Plugin>> LowRiskOverCommitment::New(const PluginArgs& args,
                                                                   Handle& handle) {
  TRIMARAN_ASSIGN_OR_RETURN(LowRiskOverCommitmentArgs typed, DecodeLowRiskOverCommitmentArgs(args));
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<load_aware::PluginMetrics> metrics,
                            load_aware::PluginMetrics::Create(typed.trimaran, handle, kName));
  return std::make_unique<LowRiskOverCommitment>(std::move(typed), std::move(metrics));
}

PluginDescriptor LowRiskOverCommitment::Descriptor() {
  PluginDescriptor descriptor = DescriptorFor<LowRiskOverCommitment>();
  descriptor.validate_args = ArgsValidatorFrom(&DecodeLowRiskOverCommitmentArgs);
  return descriptor;
}

LowRiskOverCommitment::LowRiskOverCommitment(LowRiskOverCommitmentArgs args,
                                             std::unique_ptr<load_aware::PluginMetrics> metrics)
    : args_(std::move(args)),
      metrics_(std::move(metrics)),
      cycle_(*metrics_, /*tracker=*/nullptr, &load_aware::MakeUsageRecord, nullptr) {}

Status LowRiskOverCommitment::PreScore(CycleState& state, const kube::Pod& pod,
                                       std::span<const NodeInfo* const> nodes) {
  auto data = std::make_unique<CycleData>();
  cycle_.Begin(*data, nodes);
  SetPodTerms(pod, data->request, data->limit);
  state.Write(kStateKey, std::move(data));
  return Status();
}

double LowRiskOverCommitment::Risk(const NodeInfo& node_info, const load_aware::NodeTotals& totals,
                                   StatsResource resource,
                                   const load_aware::ResourceData* data) const {
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
    const load_aware::ResourceStats stats =
        load_aware::CreateResourceStats(*data, totals.capacity, 0, resource);
    const load_aware::MuSigma ms = load_aware::GetMuSigma(stats);
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
  size_t cursor = 0;
  return ScoreOne(load_aware::ReadCycle<CycleData>(state, kStateKey), pod, node_info, cursor);
}

Status LowRiskOverCommitment::ScoreNodes(const CycleState& state, const kube::Pod& pod,
                                         std::span<const NodeInfo* const> nodes,
                                         std::span<NodeScore> scores) const {
  const CycleData* data = load_aware::ReadCycle<CycleData>(state, kStateKey);
  return load_aware::ScoreEach(nodes, scores, [&](const NodeInfo& node_info, size_t& cursor) {
    return ScoreOne(data, pod, node_info, cursor);
  });
}

ScoreResult LowRiskOverCommitment::ScoreOne(const CycleData* data, const kube::Pod& pod,
                                            const NodeInfo& node_info, size_t& cursor) const {
  if (node_info.node() == nullptr) return ScoreResult::Of(kMinNodeScore);
  std::optional<CycleData> local;
  if (data == nullptr) {
    CycleData& made = cycle_.BeginLocal(local);
    SetPodTerms(pod, made.request, made.limit);
    data = &made;
  }
  // 1. Best effort: skipped (upstream), before any metrics lookup or fallback count.
  if (data->request == CpuMem{} && data->limit == CpuMem{}) return ScoreResult::Of(kMinNodeScore);
  load_aware::UsageRecord fresh;
  bool from_table = false;
  const load_aware::UsageRecord& record = load_aware::RecordFor(
      data->table.get(), data->metrics.view.get(), node_info, cursor, fresh, &from_table);
  return ScoreRecord(*data, record, node_info, /*cached_report=*/from_table);
}

ScoreResult LowRiskOverCommitment::ScoreRecord(const CycleData& data,
                                               const load_aware::UsageRecord& record,
                                               const NodeInfo& node_info,
                                               bool cached_report) const {
  const MetricsState mstate =
      load_aware::ReportNodeState(*metrics_, data.metrics.state, record, cached_report);
  // MinScore is upstream's behaviour: 0 when the node has no metrics (§4 step 2). A node
  // listed with metrics of other kinds only is not "no metrics" upstream: it is scored
  // by its limit risk (its load risk is 0 without a CPU or Memory metric), as here.
  if (mstate != MetricsState::kOk && mstate != MetricsState::kNoUsableMetric &&
      metrics_->fallback() == load_aware::FallbackPolicy::kMinScore) {
    return ScoreResult::Of(kMinNodeScore);
  }
  const load_aware::NodeUsage* usage = mstate == MetricsState::kOk ? record.usage : nullptr;
  const load_aware::NodeTotals totals =
      load_aware::NodeRequestsAndLimits(node_info, record.allocatable, data.request, data.limit);
  const double risk_cpu = Risk(node_info, totals, StatsResource::kCpu,
                               usage != nullptr && usage->cpu.valid ? &usage->cpu : nullptr);
  const double risk_mem = Risk(node_info, totals, StatsResource::kMemory,
                               usage != nullptr && usage->memory.valid ? &usage->memory : nullptr);
  const double rank = 1 - std::max(risk_cpu, risk_mem);
  const double exact = 100 * rank;
  return ScoreResult::Of(static_cast<int64_t>(std::round(exact)), exact);
}

void LowRiskOverCommitment::AppendFallbackNotes(const CycleState& state,
                                                std::vector<std::string>& out) const {
  cycle_.AppendFallbackNotes(kName, load_aware::ReadCycle<CycleData>(state, kStateKey), out);
}

}  // namespace trimaran::sched::plugins
