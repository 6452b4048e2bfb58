#include "scheduler/plugins/target_load_packing/target_load_packing.h"

#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/status_macros.h"
#include "kube/api/resource_list.h"

namespace trimaran::sched::plugins {
namespace {

using trimaran::MetricsState;
using trimaran::PodLoad;

int64_t Get(const kube::ResourceList& list, std::string_view name, bool milli) {
  auto it = list.find(name);
  if (it == list.end()) return 0;
  return milli ? it->second.MilliValue() : it->second.Value();
}

}  // namespace

struct TargetLoadPacking::CycleData final : public StateData {
  trimaran::CycleMetrics metrics;
  bool attached = false;  // PreScore attached metrics.view to the tracker
  PodLoad prediction;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<CycleData>(*this); }
};

absl::StatusOr<std::unique_ptr<Plugin>> TargetLoadPacking::New(const PluginArgs& args,
                                                               Handle& handle) {
  TRIMARAN_ASSIGN_OR_RETURN(TargetLoadPackingArgs typed, DecodeTargetLoadPackingArgs(args));
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<trimaran::PluginMetrics> metrics,
                            trimaran::PluginMetrics::Create(typed.trimaran, handle, kName));
  return std::make_unique<TargetLoadPacking>(std::move(typed), std::move(metrics));
}

TargetLoadPacking::TargetLoadPacking(TargetLoadPackingArgs args,
                                     std::unique_ptr<trimaran::PluginMetrics> metrics)
    : args_(std::move(args)), metrics_(std::move(metrics)), tracker_(metrics_->clock()) {
  TRIMARAN_CHECK(!args_.resources.empty());
}

PodLoad TargetLoadPacking::Predict(const kube::Pod& pod) const {
  PodLoad p;
  auto predict = [&](const kube::Container& c, std::string_view name, bool milli,
                     int64_t default_value) -> int64_t {
    const kube::ResourceList& limits = c.resources.limits;
    if (auto it = limits.find(name); it != limits.end()) {
      return milli ? it->second.MilliValue() : it->second.Value();
    }
    const kube::ResourceList& requests = c.resources.requests;
    if (auto it = requests.find(name); it != requests.end()) {
      const int64_t req = milli ? it->second.MilliValue() : it->second.Value();
      return static_cast<int64_t>(std::round(static_cast<double>(req) * args_.multiplier));
    }
    return default_value;
  };
  for (const kube::Container& c : pod.spec.containers) {
    p.milli_cpu += predict(c, kube::kResourceCPU, true, args_.default_requests_milli_cpu);
    p.memory += predict(c, kube::kResourceMemory, false, args_.default_requests_memory);
  }
  if (!pod.spec.overhead.empty()) {
    p.milli_cpu += Get(pod.spec.overhead, kube::kResourceCPU, true);
    p.memory += Get(pod.spec.overhead, kube::kResourceMemory, false);
  }
  return p;
}

double TargetLoadPacking::Curve(double u, double t) {
  if (u > t) {
    if (u > 100) return 0;
    return t * (100 - u) / (100 - t);
  }
  return (100 - t) * u / t + t;
}

Status TargetLoadPacking::PreScore(CycleState& state, const kube::Pod& pod,
                                   std::span<const NodeInfo* const> /*nodes*/) {
  auto data = std::make_unique<CycleData>();
  data->metrics = metrics_->ForCycle();
  data->prediction = Predict(pod);
  if (data->metrics.view != nullptr) {
    // Once per new view: prune what its window covers and link the pending sums.
    tracker_.AttachView(data->metrics.view,
                        metrics_->clock().Now() - metrics_->spec().metrics_max_age -
                            absl::Seconds(trimaran::kMetricsReportingAllowanceSeconds));
    data->attached = true;
  }
  state.Write(kStateKey, std::move(data));
  return Status();
}

ScoreResult TargetLoadPacking::Score(const CycleState& state, const kube::Pod& pod,
                                     const NodeInfo& node_info) const {
  const kube::Node* node = node_info.node();
  if (node == nullptr) return ScoreResult::Of(kMinNodeScore);
  // Without PreScore (a profile listing the plugin at `score` only) compute it here.
  std::optional<CycleData> local;
  const CycleData* data = nullptr;
  if (auto read = state.Read<CycleData>(kStateKey); read.ok()) {
    data = *read;
  } else {
    local.emplace();
    local->metrics = metrics_->ForCycleNonBlocking();
    local->prediction = Predict(pod);
    data = &*local;
  }

  const std::string& name = node_info.name();
  MetricsState mstate;
  const trimaran::NodeUsage* usage = metrics_->Lookup(data->metrics, name, &mstate);
  if (usage != nullptr) {
    for (const TargetLoadPackingResource& r : args_.resources) {
      const bool cpu = r.name == kube::kResourceCPU;
      if (!(cpu ? usage->tlp_cpu : usage->tlp_memory).has_value()) {
        mstate = MetricsState::kNoUsableMetric;
        break;
      }
    }
  }
  metrics_->Report(name, mstate);
  if (mstate != MetricsState::kOk && metrics_->fallback() == trimaran::FallbackPolicy::kMinScore) {
    return ScoreResult::Of(kMinNodeScore);
  }

  PodLoad missing;
  if (mstate == MetricsState::kOk)
    missing = trimaran::PendingLoad(tracker_, *usage, name, data->metrics.view->window_end(),
                                    data->attached);

  // Node capacity (cpu millicores, memory bytes): memoized in the view per NodeInfo
  // generation (the Quantity conversion dominates otherwise).
  int64_t cap_cpu = 0, cap_mem = 0;
  if (usage != nullptr &&
      usage->memo_generation.load(std::memory_order_acquire) == node_info.generation()) {
    cap_cpu = usage->memo_a.load(std::memory_order_relaxed);
    cap_mem = usage->memo_b.load(std::memory_order_relaxed);
  } else {
    cap_cpu = Get(node->status.capacity, kube::kResourceCPU, true);
    cap_mem = Get(node->status.capacity, kube::kResourceMemory, false);
    if (usage != nullptr) {
      usage->memo_a.store(cap_cpu, std::memory_order_relaxed);
      usage->memo_b.store(cap_mem, std::memory_order_relaxed);
      usage->memo_generation.store(node_info.generation(), std::memory_order_release);
    }
  }

  double weighted = 0;
  int64_t weights = 0;
  for (const TargetLoadPackingResource& r : args_.resources) {
    const bool cpu = r.name == kube::kResourceCPU;
    const double capacity = static_cast<double>(cpu ? cap_cpu : cap_mem);
    const int64_t p = cpu ? data->prediction.milli_cpu : data->prediction.memory;
    double u = 0;
    if (capacity != 0) {
      if (mstate == MetricsState::kOk) {
        const double used = (*(cpu ? usage->tlp_cpu : usage->tlp_memory) / 100) * capacity;
        const int64_t m = cpu ? missing.milli_cpu : missing.memory;
        double sum = used + static_cast<double>(p);
        sum = sum + static_cast<double>(m);
        u = 100 * sum / capacity;
      } else {
        const int64_t requested =
            cpu ? node_info.requested().milli_cpu : node_info.requested().memory;
        u = 100 * static_cast<double>(requested + p) / capacity;
      }
    }
    const double s = Curve(u, static_cast<double>(r.target_utilization));
    if (args_.resources.size() == 1) {
      return ScoreResult::Of(static_cast<int64_t>(std::round(s)), s);
    }
    weighted += static_cast<double>(r.weight) * s;
    weights += r.weight;
  }
  const double exact = weighted / static_cast<double>(weights);
  return ScoreResult::Of(static_cast<int64_t>(std::round(exact)), exact);
}

Status TargetLoadPacking::Reserve(CycleState& state, const kube::Pod& pod,
                                  absl::string_view node_name) {
  // Tracked only when PreScore attached a metrics view this cycle: the view's arrival is
  // what prunes the tracker, so without one (no metrics yet, or no PreScore in the
  // profile) entries would only accumulate; the fallback counts assumed pods through the
  // node's requested resources anyway.
  auto read = state.Read<CycleData>(kStateKey);
  if (!read.ok() || !(*read)->attached) return Status();
  tracker_.Assume(pod, node_name, (*read)->prediction);
  return Status();
}

void TargetLoadPacking::Unreserve(CycleState& /*state*/, const kube::Pod& pod,
                                  absl::string_view /*node_name*/) {
  tracker_.Forget(pod);
}

}  // namespace trimaran::sched::plugins
