#include "scheduler/plugins/load_aware/metrics_view.h"

#include <cmath>
#include <memory>
#include <utility>

namespace trimaran::sched::plugins::load_aware {

ResourceData GetResourceData(const std::vector<lw::Metric>& metrics, absl::string_view type) {
  ResourceData data;
  bool avg_found = false;
  for (const lw::Metric& m : metrics) {
    if (m.type != type) continue;
    if (m.op == lw::kOpAvg) {
      data.avg = m.value;
      avg_found = true;
    } else if (m.op == lw::kOpStd) {
      data.std = m.value;
    } else if ((m.op.empty() || m.op == lw::kOpLatest) && !avg_found) {
      data.avg = m.value;
    }
    data.valid = true;  // any entry of the type, whatever its operator
  }
  return data;
}

MetricsView::MetricsView(const lw::WatcherMetrics& metrics)
    : MetricsView(std::make_shared<const lw::WatcherMetrics>(metrics)) {}

MetricsView::MetricsView(lw::WatcherMetricsPtr snapshot)
    : snapshot_(std::move(snapshot)),
      window_end_(snapshot_->window.end),
      timestamp_(absl::FromUnixSeconds(snapshot_->timestamp)) {
  const lw::WatcherMetrics& metrics = *snapshot_;
  const size_t n = metrics.data.node_metrics_map.size() + metrics.data.duplicate_hosts.size();
  index_.reserve(n);
  usages_ = std::make_unique<NodeUsage[]>(n);
  pending_ = std::make_unique<PendingSums[]>(n);
  pending_bits_ = std::make_unique<std::atomic<uint64_t>[]>(n / 64 + 1);
  for (size_t i = 0; i < n / 64 + 1; ++i) pending_bits_[i].store(0, std::memory_order_relaxed);
  uint32_t next = 0;
  for (const auto& [name, node] : metrics.data.node_metrics_map) {
    if (node.metrics.empty()) continue;
    NodeUsage& usage = usages_[next];
    for (const lw::Metric& m : node.metrics) {
      // CPU and Memory values are percentages; other types are not read.
      if (m.type != lw::kTypeCpu && m.type != lw::kTypeMemory) continue;
      if (!std::isfinite(m.value) || m.value < 0 || m.value > 100) usage.bad = true;
    }
    usage.metrics = node.metrics;
    usage.cpu = GetResourceData(node.metrics, lw::kTypeCpu);
    usage.memory = GetResourceData(node.metrics, lw::kTypeMemory);
    index_.emplace(name, next++);
  }
  // A host the response listed twice: neither entry is trusted.
  for (const std::string& host : metrics.data.duplicate_hosts) {
    if (index_.contains(host)) continue;
    usages_[next].bad = true;
    index_.emplace(host, next++);
  }
}

}  // namespace trimaran::sched::plugins::load_aware
