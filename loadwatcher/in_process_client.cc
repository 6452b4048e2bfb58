#include "loadwatcher/in_process_client.h"

namespace trimaran::lw {

WatcherMetrics FilterHosts(const WatcherMetrics& metrics, const std::vector<std::string>& hosts) {
  if (hosts.empty()) return metrics;
  WatcherMetrics out;
  out.timestamp = metrics.timestamp;
  out.window = metrics.window;
  out.source = metrics.source;
  for (const std::string& host : hosts) {
    auto it = metrics.data.node_metrics_map.find(host);
    if (it != metrics.data.node_metrics_map.end()) out.data.node_metrics_map.insert(*it);
  }
  return out;
}

absl::StatusOr<WatcherMetrics> InProcessClient::GetLatestMetrics(const MetricsRequest& request) {
  absl::StatusOr<Snapshot> snapshot = watcher_.Latest(request.window);
  if (!snapshot.ok()) return snapshot.status();
  return FilterHosts(*snapshot->metrics, request.hosts);
}

}  // namespace trimaran::lw
