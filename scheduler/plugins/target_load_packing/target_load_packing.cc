#include "scheduler/plugins/target_load_packing/target_load_packing.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/status_macros.h"
#include "kube/api/resource_list.h"
#include "scheduler/plugins/target_load_packing/curve.h"
#include "scheduler/plugins/target_load_packing/metric_extraction.h"

namespace trimaran::sched::plugins {
namespace {

using load_aware::MetricsState;
using load_aware::PodLoad;

int64_t Get(const kube::ResourceList& list, std::string_view name, bool milli) {
  auto it = list.find(name);
  if (it == list.end()) return 0;
  return milli ? it->second.MilliValue() : it->second.Value();
}

}  // namespace

// One node's constants for one metrics view (see the header: the hot path). One cache
// line: Score reads 5,000 of them per cycle.
struct alignas(64) TargetLoadPacking::NodeRecord {
  const kube::Node* key = nullptr;  // the table key (the table keeps it alive)
  // FallbackReporter::ReportCached's word for this node.
  mutable std::atomic<uint64_t> reported{load_aware::FallbackReporter::kNotReported};
  // node.status.capacity cpu (millicores) and memory (bytes), as doubles.
  double capacity[2] = {0, 0};
  // kOk only: (u/100) × C per resource (cpu, memory), the formula's first term.
  double used[2] = {0, 0};
  // The node's usage in the view; null when the view does not list the node (or there
  // is no view).
  const load_aware::NodeUsage* usage = nullptr;
  // view->IndexOf(*usage) when usage is set (the pending-load bit and sums).
  uint32_t usage_index = 0;
  // The node's state when the view is usable: kOk, kNodeMissing or kNoUsableMetric.
  MetricsState state = MetricsState::kNodeMissing;

  NodeRecord() = default;
  NodeRecord& operator=(const NodeRecord& o) {
    key = o.key;
    reported.store(o.reported.load(std::memory_order_relaxed), std::memory_order_relaxed);
    capacity[0] = o.capacity[0];
    capacity[1] = o.capacity[1];
    used[0] = o.used[0];
    used[1] = o.used[1];
    usage = o.usage;
    usage_index = o.usage_index;
    state = o.state;
    return *this;
  }
};

struct TargetLoadPacking::CycleData final : public load_aware::CycleBase<NodeRecord> {
  PodLoad prediction;
  std::unique_ptr<StateData> Clone() const override { return std::make_unique<CycleData>(*this); }
};

absl::StatusOr<std::unique_ptr<Plugin>> TargetLoadPacking::New(const PluginArgs& args,
                                                               Handle& handle) {
  TRIMARAN_ASSIGN_OR_RETURN(TargetLoadPackingArgs typed, DecodeTargetLoadPackingArgs(args));
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<load_aware::PluginMetrics> metrics,
                            load_aware::PluginMetrics::Create(typed.trimaran, handle, kName));
  return std::make_unique<TargetLoadPacking>(std::move(typed), std::move(metrics));
}

PluginDescriptor TargetLoadPacking::Descriptor() {
  PluginDescriptor descriptor = DescriptorFor<TargetLoadPacking>();
  descriptor.validate_args = ArgsValidatorFrom(&DecodeTargetLoadPackingArgs);
  // Best fit up to the target utilisation packs whatever the args.
  descriptor.packing = [](const PluginArgs& /*args*/) { return true; };
  return descriptor;
}

TargetLoadPacking::TargetLoadPacking(TargetLoadPackingArgs args,
                                     std::unique_ptr<load_aware::PluginMetrics> metrics)
    : args_(std::move(args)),
      metrics_(std::move(metrics)),
      tracker_(metrics_->clock()),
      cycle_(*metrics_, &tracker_, &MakeRecord, this) {
  TRIMARAN_CHECK(!args_.resources.empty());
  for (const TargetLoadPackingResource& r : args_.resources) {
    terms_.push_back(Term{r.name == kube::kResourceCPU ? 0 : 1,
                          static_cast<double>(r.target_utilization), r.weight});
  }
}

PodLoad TargetLoadPacking::Predict(const kube::Pod& pod) const {
  // A limit if set; else round(request x multiplier) if requested; else nullopt.
  auto predict_set = [&](const kube::ResourceRequirements& r, std::string_view name,
                         bool milli) -> std::optional<int64_t> {
    if (auto it = r.limits.find(name); it != r.limits.end()) {
      return milli ? it->second.MilliValue() : it->second.Value();
    }
    if (auto it = r.requests.find(name); it != r.requests.end()) {
      const int64_t req = milli ? it->second.MilliValue() : it->second.Value();
      return static_cast<int64_t>(std::round(static_cast<double>(req) * args_.multiplier));
    }
    return std::nullopt;
  };
  auto predict_containers = [&](std::string_view name, bool milli, int64_t default_value) {
    int64_t sum = 0;
    for (const kube::Container& c : pod.spec.containers) {
      sum += predict_set(c.resources, name, milli).value_or(default_value);
    }
    // Sidecars (restartable init containers) run for the pod's whole life, as the app
    // containers do; upstream ignores every init container (an under-count it has).
    for (const kube::Container& c : pod.spec.init_containers) {
      if (kube::IsRestartableInitContainer(c)) {
        sum += predict_set(c.resources, name, milli).value_or(default_value);
      }
    }
    // Pod-level resources (spec.resources, beta and on since 1.34) bound the containers
    // together: a pod-level limit or request replaces their sum.
    if (pod.spec.resources) {
      if (std::optional<int64_t> pod_level = predict_set(*pod.spec.resources, name, milli)) {
        return *pod_level;
      }
    }
    return sum;
  };
  PodLoad p;
  p.milli_cpu = predict_containers(kube::kResourceCPU, true, args_.default_requests_milli_cpu);
  p.memory = predict_containers(kube::kResourceMemory, false, args_.default_requests_memory);
  if (!pod.spec.overhead.empty()) {
    p.milli_cpu += Get(pod.spec.overhead, kube::kResourceCPU, true);
    p.memory += Get(pod.spec.overhead, kube::kResourceMemory, false);
  }
  return p;
}

double TargetLoadPacking::Curve(double u, double t) { return tlp::TargetCurve(u, t); }

void TargetLoadPacking::MakeRecord(const void* self, const load_aware::MetricsView* view,
                                   const NodeInfo& node_info, NodeRecord& out) {
  static_assert(sizeof(NodeRecord) == 64, "one cache line per node");
  const auto& plugin = *static_cast<const TargetLoadPacking*>(self);
  const kube::Node& node = *node_info.node();
  const int64_t cap_cpu = Get(node.status.capacity, kube::kResourceCPU, true);
  const int64_t cap_mem = Get(node.status.capacity, kube::kResourceMemory, false);
  out.capacity[0] = static_cast<double>(cap_cpu);
  out.capacity[1] = static_cast<double>(cap_mem);
  out.usage = view == nullptr ? nullptr : view->Find(node_info.name());
  if (out.usage == nullptr) {
    out.state = MetricsState::kNodeMissing;
    return;
  }
  out.usage_index = static_cast<uint32_t>(view->IndexOf(*out.usage));
  if (out.usage->bad) {
    out.state = MetricsState::kBadValue;
    return;
  }
  out.state = MetricsState::kOk;
  const tlp::NodeLoad load = tlp::ExtractNodeLoad(out.usage->metrics);
  for (const TargetLoadPackingResource& r : plugin.args_.resources) {
    const bool cpu = r.name == kube::kResourceCPU;
    if (!(cpu ? load.cpu : load.memory).has_value()) {
      out.state = MetricsState::kNoUsableMetric;
      return;
    }
  }
  // Exactly the formula's first term, (u/100) × C.
  if (load.cpu.has_value()) out.used[0] = (*load.cpu / 100) * out.capacity[0];
  if (load.memory.has_value()) out.used[1] = (*load.memory / 100) * out.capacity[1];
}

Status TargetLoadPacking::PreScore(CycleState& state, const kube::Pod& pod,
                                   std::span<const NodeInfo* const> nodes) {
  auto data = std::make_unique<CycleData>();
  cycle_.Begin(*data, nodes);
  data->prediction = Predict(pod);
  state.Write(kStateKey, std::move(data));
  return Status();
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline double TargetLoadPacking::LoadNumerator(
    const NodeRecord& record, MetricsState mstate, int64_t pending, const NodeInfo& node_info,
    int resource, int64_t predicted) {
  // X of §2.4: the node's measured use + the pod's prediction + pods placed since the
  // metrics were taken; without usable metrics (fallback Requests), the node's requests +
  // the prediction. The sums keep upstream's evaluation order.
  if (mstate == MetricsState::kOk) {
    double x = record.used[resource] + static_cast<double>(predicted);
    return x + static_cast<double>(pending);
  }
  const int64_t requested =
      resource == 0 ? node_info.requested().milli_cpu : node_info.requested().memory;
  return static_cast<double>(requested + predicted);
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline double TargetLoadPacking::ScoreNode(
    const CycleData& data, const NodeRecord& record, MetricsState mstate, const PodLoad& missing,
    const NodeInfo& node_info) const {
  double weighted = 0;
  int64_t weights = 0;
  const PodLoad& p_load = data.prediction;
  for (const Term& t : terms_) {
    const bool cpu = t.resource == 0;
    const double x = LoadNumerator(record, mstate, cpu ? missing.milli_cpu : missing.memory,
                                   node_info, t.resource, cpu ? p_load.milli_cpu : p_load.memory);
    const double s = tlp::TargetCurve(tlp::Utilisation(x, record.capacity[t.resource]), t.target);
    if (terms_.size() == 1) return s;
    weighted += static_cast<double>(t.weight) * s;
    weights += t.weight;
  }
  return weighted / static_cast<double>(weights);
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline std::optional<double> TargetLoadPacking::ScoreRecord(
    const CycleData& data, const NodeRecord& record, const NodeInfo& node_info) const {
  const MetricsState mstate =
      load_aware::ReportNodeState(*metrics_, data.metrics.state, record, /*cached_report=*/true);
  if (mstate != MetricsState::kOk &&
      metrics_->fallback() == load_aware::FallbackPolicy::kMinScore) {
    return std::nullopt;
  }
  PodLoad missing;
  // PreScore attached the view: the tracker keeps the sums in the view (read only for
  // nodes that have had recent pods under this view).
  if (mstate == MetricsState::kOk) {
    missing = load_aware::PendingLoad(tracker_, *data.metrics.view, *record.usage,
                                      record.key->metadata.name, /*attached=*/true);
  }
  return ScoreNode(data, record, mstate, missing, node_info);
}

ScoreResult TargetLoadPacking::Score(const CycleState& state, const kube::Pod& pod,
                                     const NodeInfo& node_info) const {
  // One arithmetic path: Score is ScoreNodes over one node.
  const NodeInfo* nodes[] = {&node_info};
  NodeScore score{node_info.name(), 0, std::nullopt};
  if (Status s = ScoreNodes(state, pod, nodes, {&score, 1}); !s.IsSuccess()) {
    return ScoreResult::Of(kMinNodeScore);
  }
  return ScoreResult{score.score, score.exact, Status()};
}

Status TargetLoadPacking::ScoreNodes(const CycleState& state, const kube::Pod& pod,
                                     std::span<const NodeInfo* const> nodes,
                                     std::span<NodeScore> scores) const {
  const CycleData* data = load_aware::ReadCycle<CycleData>(state, kStateKey);
  const Table* table = data == nullptr ? nullptr : data->table.get();
  if (table == nullptr || terms_.size() != 1) {
    // No PreScore ran, or several resources: node by node.
    size_t cursor = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeInfo& node_info = *nodes[i];
      const kube::Node* node = node_info.node();
      const NodeRecord* record = nullptr;
      if (node != nullptr && table != nullptr) {
        record = table->Find(node, cursor);
        if (record == nullptr) table->NoteMiss();
      }
      ScoreResult r = node == nullptr     ? ScoreResult::Of(kMinNodeScore)
                      : record != nullptr ? ToResult(ScoreRecord(*data, *record, node_info))
                                          : ScoreSlow(data, pod, node_info);
      scores[i].score = r.score;
      scores[i].exact = r.exact;
    }
    return Status();
  }

  // One resource (the default, cpu): exactly ScoreRecord + ScoreNode per node, in two
  // passes per group of nodes. Pass 1 does the per-node bookkeeping (record, state,
  // fallback report, pending load) and leaves each curve-scored node's U numerator and
  // capacity in small arrays; pass 2 is a loop without calls or unpredictable branches
  // over those arrays, so the two divisions of consecutive nodes overlap in the CPU
  // instead of each waiting on the previous node's.
  const Term& term = terms_.front();
  const bool cpu = term.resource == 0;
  const int64_t p = cpu ? data->prediction.milli_cpu : data->prediction.memory;
  const bool min_score = metrics_->fallback() == load_aware::FallbackPolicy::kMinScore;
  const MetricsState cycle_state = data->metrics.state;
  const load_aware::MetricsView* view = data->metrics.view.get();
  constexpr size_t kGroup = 64;
  constexpr size_t kPrefetchAhead = 8;
  double numerator[kGroup];
  double capacity[kGroup];
  uint32_t index[kGroup];
  size_t cursor = 0;
  for (size_t group = 0; group < nodes.size(); group += kGroup) {
    const size_t end = std::min(group + kGroup, nodes.size());
    size_t k = 0;
    for (size_t i = group; i < end; ++i) {
      // The NodeInfo objects are scattered over the heap and neither the line holding
      // the Node pointer nor the record is usually cached by now: ask for a later
      // node's early (the records are in this order).
      if (i + kPrefetchAhead < nodes.size()) __builtin_prefetch(nodes[i + kPrefetchAhead]);
      table->Prefetch(cursor + kPrefetchAhead);
      const NodeInfo& node_info = *nodes[i];
      const kube::Node* node = node_info.node();
      const NodeRecord* record = node == nullptr ? nullptr : table->Find(node, cursor);
      if (ABSL_PREDICT_FALSE(record == nullptr)) {
        if (node != nullptr) table->NoteMiss();
        ScoreResult r =
            node == nullptr ? ScoreResult::Of(kMinNodeScore) : ScoreSlow(data, pod, node_info);
        scores[i].score = r.score;
        scores[i].exact = r.exact;
        continue;
      }
      const MetricsState mstate = cycle_state != MetricsState::kOk ? cycle_state : record->state;
      metrics_->ReportCached(node->metadata.name, mstate, record->reported);
      int64_t m = 0;
      if (ABSL_PREDICT_TRUE(mstate == MetricsState::kOk)) {
        if (ABSL_PREDICT_FALSE(view->MaybePending(record->usage_index))) {
          const load_aware::PendingSums& sums = view->pending(record->usage_index);
          m = (cpu ? sums.milli_cpu : sums.memory).load(std::memory_order_relaxed);
        }
      } else if (min_score) {
        scores[i].score = kMinNodeScore;
        scores[i].exact.reset();
        continue;
      }
      numerator[k] = LoadNumerator(*record, mstate, m, node_info, term.resource, p);
      capacity[k] = record->capacity[term.resource];
      index[k] = static_cast<uint32_t>(i);
      ++k;
    }
    double curve[kGroup];
    tlp::TargetCurveBatch({numerator, k}, {capacity, k}, term.target, {curve, k});
    for (size_t j = 0; j < k; ++j) {
      NodeScore& out = scores[index[j]];
      out.score = tlp::RoundScore(curve[j]);
      out.exact = curve[j];
    }
  }
  return Status();
}

ScoreResult TargetLoadPacking::ScoreSlow(const CycleData* data, const kube::Pod& pod,
                                         const NodeInfo& node_info) const {
  // A node new to the table, or no PreScore in the profile (compute the cycle data
  // here).
  std::optional<CycleData> local;
  if (data == nullptr) {
    cycle_.BeginLocal(local).prediction = Predict(pod);
    data = &*local;
  }
  NodeRecord fresh;
  fresh.key = node_info.node();
  MakeRecord(this, data->metrics.view.get(), node_info, fresh);
  const MetricsState mstate =
      load_aware::ReportNodeState(*metrics_, data->metrics.state, fresh, /*cached_report=*/false);
  if (mstate != MetricsState::kOk &&
      metrics_->fallback() == load_aware::FallbackPolicy::kMinScore) {
    return ScoreResult::Of(kMinNodeScore);
  }
  PodLoad missing;
  if (mstate == MetricsState::kOk) {
    missing = load_aware::PendingLoad(tracker_, *data->metrics.view, *fresh.usage, node_info.name(),
                                      data->attached);
  }
  return ToResult(ScoreNode(*data, fresh, mstate, missing, node_info));
}

int64_t TargetLoadPacking::Round(double x) { return tlp::RoundScore(x); }

ScoreResult TargetLoadPacking::ToResult(std::optional<double> exact) {
  if (!exact.has_value()) return ScoreResult::Of(kMinNodeScore);
  return ScoreResult::Of(tlp::RoundScore(*exact), *exact);
}

Status TargetLoadPacking::Reserve(CycleState& state, const kube::Pod& pod,
                                  absl::string_view node_name) {
  // Tracked only when PreScore attached a metrics view (load_aware/cycle_skeleton.h).
  if (const CycleData* data = load_aware::ReadCycle<CycleData>(state, kStateKey)) {
    cycle_.Assume(*data, pod, node_name, data->prediction);
  }
  return Status();
}

void TargetLoadPacking::Unreserve(CycleState& /*state*/, const kube::Pod& pod,
                                  absl::string_view /*node_name*/) {
  tracker_.Forget(pod);
}

void TargetLoadPacking::AppendFallbackNotes(const CycleState& state,
                                            std::vector<std::string>& out) const {
  cycle_.AppendFallbackNotes(kName, load_aware::ReadCycle<CycleData>(state, kStateKey), out);
}

}  // namespace trimaran::sched::plugins
