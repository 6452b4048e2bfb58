#include "scheduler/plugins/load_variation_risk_balancing/load_variation_risk_balancing.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "common/status_macros.h"

namespace trimaran::sched::plugins {
namespace {

using load_aware::CpuMem;
using load_aware::MetricsState;
using load_aware::ResourceStats;
using load_aware::StatsResource;

}  // namespace

struct LoadVariationRiskBalancing::CycleData final : public load_aware::CycleBase<NodeRecord> {
  CpuMem request;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<CycleData>(*this); }
};

absl::StatusOr<std::unique_ptr<Plugin>> LoadVariationRiskBalancing::New(const PluginArgs& args,
                                                                        Handle& handle) {
  TRIMARAN_ASSIGN_OR_RETURN(LoadVariationRiskBalancingArgs typed,
                            DecodeLoadVariationRiskBalancingArgs(args));
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<load_aware::PluginMetrics> metrics,
                            load_aware::PluginMetrics::Create(typed.trimaran, handle, kName));
  return std::make_unique<LoadVariationRiskBalancing>(std::move(typed), std::move(metrics));
}

PluginDescriptor LoadVariationRiskBalancing::Descriptor() {
  PluginDescriptor descriptor = DescriptorFor<LoadVariationRiskBalancing>();
  descriptor.validate_args = ArgsValidatorFrom(&DecodeLoadVariationRiskBalancingArgs);
  return descriptor;
}

LoadVariationRiskBalancing::LoadVariationRiskBalancing(
    LoadVariationRiskBalancingArgs args, std::unique_ptr<load_aware::PluginMetrics> metrics)
    : args_(std::move(args)),
      metrics_(std::move(metrics)),
      tracker_(metrics_->clock()),
      cycle_(*metrics_, &tracker_, &load_aware::MakeUsageRecord, nullptr) {}

double LoadVariationRiskBalancing::RiskScore(const ResourceStats& stats, double margin,
                                             double sensitivity) {
  const double c = stats.capacity;
  if (c <= 0) return 0;
  const double r = std::max(stats.req, 0.0);
  const double a = std::clamp(stats.used_avg, 0.0, c);
  const double s = std::clamp(stats.used_stdev, 0.0, c);
  const double mu = std::clamp((a + r) / c, 0.0, 1.0);
  double sigma = std::clamp(s / c, 0.0, 1.0);
  // pow(σ, 1) is σ exactly: skip the libm call for the default sensitivity (1).
  if (sensitivity >= 0 && sensitivity != 1) sigma = std::pow(sigma, 1 / sensitivity);
  sigma = std::clamp(margin * sigma, 0.0, 1.0);
  const double risk = (mu + sigma) / 2;
  return (1 - risk) * 100;
}

Status LoadVariationRiskBalancing::PreScore(CycleState& state, const kube::Pod& pod,
                                            std::span<const NodeInfo* const> nodes) {
  auto data = std::make_unique<CycleData>();
  cycle_.Begin(*data, nodes);
  data->request = load_aware::PodRequests(pod);
  state.Write(kStateKey, std::move(data));
  return Status();
}

ScoreResult LoadVariationRiskBalancing::Score(const CycleState& state, const kube::Pod& pod,
                                              const NodeInfo& node_info) const {
  size_t cursor = 0;
  return ScoreOne(load_aware::ReadCycle<CycleData>(state, kStateKey), pod, node_info, cursor);
}

Status LoadVariationRiskBalancing::ScoreNodes(const CycleState& state, const kube::Pod& pod,
                                              std::span<const NodeInfo* const> nodes,
                                              std::span<NodeScore> scores) const {
  const CycleData* data = load_aware::ReadCycle<CycleData>(state, kStateKey);
  return load_aware::ScoreEach(nodes, scores, [&](const NodeInfo& node_info, size_t& cursor) {
    return ScoreOne(data, pod, node_info, cursor);
  });
}

ScoreResult LoadVariationRiskBalancing::ScoreOne(const CycleData* data, const kube::Pod& pod,
                                                 const NodeInfo& node_info, size_t& cursor) const {
  if (node_info.node() == nullptr) return ScoreResult::Of(kMinNodeScore);
  // No PreScore in the profile: compute the cycle data here.
  std::optional<CycleData> local;
  if (data == nullptr) {
    cycle_.BeginLocal(local).request = load_aware::PodRequests(pod);
    data = &*local;
  }
  NodeRecord fresh;
  bool from_table = false;
  const NodeRecord& record = load_aware::RecordFor(data->table.get(), data->metrics.view.get(),
                                                   node_info, cursor, fresh, &from_table);
  return ScoreRecord(*data, record, node_info, /*cached_report=*/from_table);
}

ScoreResult LoadVariationRiskBalancing::ScoreRecord(const CycleData& data, const NodeRecord& record,
                                                    const NodeInfo& node_info,
                                                    bool cached_report) const {
  const kube::Node& node = *record.key;
  const MetricsState mstate =
      load_aware::ReportNodeState(*metrics_, data.metrics.state, record, cached_report);

  const double margin = args_.safe_variance_margin;
  const double sensitivity = args_.safe_variance_sensitivity;
  double s_cpu = 0, s_mem = 0;
  bool ok_cpu = false, ok_mem = false;
  if (mstate == MetricsState::kOk) {
    const load_aware::NodeUsage& usage = *record.usage;
    const load_aware::PodLoad recent = load_aware::PendingLoad(tracker_, *data.metrics.view, usage,
                                                               node.metadata.name, data.attached);
    if (usage.cpu.valid) {
      s_cpu = RiskScore(load_aware::CreateResourceStats(usage.cpu, record.allocatable,
                                                        data.request.milli_cpu + recent.milli_cpu,
                                                        StatsResource::kCpu),
                        margin, sensitivity);
      ok_cpu = true;
    }
    if (usage.memory.valid) {
      s_mem = RiskScore(load_aware::CreateResourceStats(usage.memory, record.allocatable,
                                                        data.request.memory + recent.memory,
                                                        StatsResource::kMemory),
                        margin, sensitivity);
      ok_mem = true;
    }
  } else if (metrics_->fallback() == load_aware::FallbackPolicy::kMinScore) {
    return ScoreResult::Of(kMinNodeScore);
  } else {
    // Requests: the node's requested resources stand in for the measured mean, σ = 0.
    constexpr double kMiB = 1.0 / 1048576.0;
    const CpuMem& alloc = record.allocatable;
    ResourceStats cpu{static_cast<double>(alloc.milli_cpu),
                      static_cast<double>(data.request.milli_cpu),
                      static_cast<double>(node_info.requested().milli_cpu), 0};
    ResourceStats mem{static_cast<double>(alloc.memory) * kMiB,
                      static_cast<double>(data.request.memory) * kMiB,
                      static_cast<double>(node_info.requested().memory) * kMiB, 0};
    s_cpu = RiskScore(cpu, margin, sensitivity);
    s_mem = RiskScore(mem, margin, sensitivity);
    ok_cpu = ok_mem = true;
  }
  const double total = ok_cpu && ok_mem ? std::min(s_cpu, s_mem) : std::max(s_cpu, s_mem);
  return ScoreResult::Of(static_cast<int64_t>(std::round(total)), total);
}

Status LoadVariationRiskBalancing::Reserve(CycleState& state, const kube::Pod& pod,
                                           absl::string_view node_name) {
  if (const CycleData* data = load_aware::ReadCycle<CycleData>(state, kStateKey)) {
    cycle_.Assume(*data, pod, node_name,
                  load_aware::PodLoad{data->request.milli_cpu, data->request.memory});
  }
  return Status();
}

void LoadVariationRiskBalancing::Unreserve(CycleState& /*state*/, const kube::Pod& pod,
                                           absl::string_view /*node_name*/) {
  tracker_.Forget(pod);
}

void LoadVariationRiskBalancing::AppendFallbackNotes(const CycleState& state,
                                                     std::vector<std::string>& out) const {
  cycle_.AppendFallbackNotes(kName, load_aware::ReadCycle<CycleData>(state, kStateKey), out);
}

}  // namespace trimaran::sched::plugins
