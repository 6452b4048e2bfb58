#include "sim/compaction.h"

#include <algorithm>
#include <cmath>

#include "common/status_macros.h"
#include "loadwatcher/metrics.h"
#include "scheduler/explain/explainer.h"

namespace trimaran::sim {
namespace {

// Every node of `nodes` at 0 % CPU and memory, stamped with the clock's time.
lw::WatcherMetrics EmptyLoad(const std::vector<std::shared_ptr<const kube::Node>>& nodes,
                             const Clock& clock) {
  lw::WatcherMetrics m;
  m.timestamp = absl::ToUnixSeconds(clock.Now());
  m.window = {std::string(lw::kWindow15m), m.timestamp - 900, m.timestamp};
  m.source = "SimulatorCompaction";
  for (const auto& node : nodes) {
    lw::NodeMetrics nm;
    for (absl::string_view type : {lw::kTypeCpu, lw::kTypeMemory}) {
      for (absl::string_view op : {lw::kOpAvg, lw::kOpStd}) {
        nm.metrics.push_back({"", std::string(type), std::string(op), "", 0.0});
      }
    }
    m.data.node_metrics_map.emplace(node->metadata.name, std::move(nm));
  }
  return m;
}

double NearestRank(std::vector<double>& v, double p) {
  const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

Distribution Summarize(std::vector<double> v) {
  Distribution d;
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  d.min = v.front();
  d.p10 = NearestRank(v, 0.1);
  d.p50 = NearestRank(v, 0.5);
  d.p90 = NearestRank(v, 0.9);
  d.max = v.back();
  return d;
}

}  // namespace

absl::StatusOr<bool> PlacesAll(const std::vector<std::shared_ptr<const kube::Node>>& nodes,
                               const std::vector<std::shared_ptr<const kube::Pod>>& pods,
                               const sched::ProfileConfig& profile, const sched::Registry& registry,
                               const Clock& clock, int64_t* errors) {
  return PlacesOnto(nodes, {}, pods, profile, registry, clock, errors);
}

absl::StatusOr<bool> PlacesOnto(const std::vector<std::shared_ptr<const kube::Node>>& nodes,
                                const std::vector<std::shared_ptr<const kube::Pod>>& bound,
                                const std::vector<std::shared_ptr<const kube::Pod>>& pods,
                                const sched::ProfileConfig& profile,
                                const sched::Registry& registry, const Clock& clock,
                                int64_t* errors) {
  sched::explain::Explainer::Options eo;
  eo.registry = &registry;
  eo.clock = &clock;
  eo.metrics = EmptyLoad(nodes, clock);
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<sched::explain::Explainer> explainer,
                            sched::explain::Explainer::Create({profile}, eo));
  TRIMARAN_RETURN_IF_ERROR(explainer->FrameworkFor(profile.scheduler_name).status());
  for (const auto& node : nodes) TRIMARAN_RETURN_IF_ERROR(explainer->cache().AddNode(node));
  for (const auto& pod : bound) TRIMARAN_RETURN_IF_ERROR(explainer->cache().AddPod(pod));
  for (const auto& pod : pods) {
    absl::StatusOr<sched::explain::Report> report =
        explainer->Explain(*pod, profile.scheduler_name);
    if (!report.ok()) {
      if (errors != nullptr) ++*errors;
      return false;
    }
    if (report->chosen.empty()) return false;
    auto placed = std::make_shared<kube::Pod>(*pod);
    placed->spec.node_name = report->chosen;
    if (!explainer->cache().AddPod(std::move(placed)).ok()) {
      if (errors != nullptr) ++*errors;
      return false;
    }
  }
  return true;
}

absl::StatusOr<int> SmallestPrefix(const std::vector<std::shared_ptr<const kube::Node>>& order,
                                   const std::vector<std::shared_ptr<const kube::Pod>>& pods,
                                   const sched::ProfileConfig& profile,
                                   const sched::Registry& registry, const Clock& clock,
                                   int64_t* repacks, int64_t* errors) {
  int lo = 1;                               // some pod needs a node
  int hi = static_cast<int>(order.size());  // all of them place everything
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    const std::vector<std::shared_ptr<const kube::Node>> prefix(order.begin(), order.begin() + mid);
    if (repacks != nullptr) ++*repacks;
    TRIMARAN_ASSIGN_OR_RETURN(bool fits, PlacesAll(prefix, pods, profile, registry, clock, errors));
    if (fits) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return hi;
}

absl::StatusOr<std::optional<std::vector<int>>> CompactAt(
    const std::vector<std::shared_ptr<const kube::Node>>& nodes,
    const std::vector<std::shared_ptr<const kube::Pod>>& pods, const sched::ProfileConfig& profile,
    const sched::Registry& registry, const Clock& clock, int trials, std::mt19937_64& rng,
    int64_t* repacks, int64_t* errors) {
  if (pods.empty()) return std::vector<int>(std::max(0, trials), 0);
  if (repacks != nullptr) ++*repacks;
  TRIMARAN_ASSIGN_OR_RETURN(bool all, PlacesAll(nodes, pods, profile, registry, clock, errors));
  if (!all) return std::nullopt;
  std::vector<int> sizes;
  std::vector<std::shared_ptr<const kube::Node>> order = nodes;
  for (int trial = 0; trial < trials; ++trial) {
    // Fisher-Yates with a plain modulo: the same permutation on every standard library.
    for (size_t i = order.size(); i > 1; --i) {
      std::swap(order[i - 1], order[rng() % i]);
    }
    TRIMARAN_ASSIGN_OR_RETURN(
        int k, SmallestPrefix(order, pods, profile, registry, clock, repacks, errors));
    sizes.push_back(k);
  }
  return sizes;
}

void SummarizeCompaction(CompactionResult& result) {
  std::vector<double> nodes;
  std::vector<double> ratio;
  for (const CompactionInstant& c : result.instants) {
    for (int k : c.compacted) {
      nodes.push_back(k);
      if (c.actual > 0) ratio.push_back(static_cast<double>(k) / c.actual);
    }
  }
  result.nodes = Summarize(std::move(nodes));
  result.ratio = Summarize(std::move(ratio));
}

}  // namespace trimaran::sim
