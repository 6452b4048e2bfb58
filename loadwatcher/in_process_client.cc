#include "loadwatcher/in_process_client.h"

#include <memory>
#include <utility>

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

WatcherMetricsPtr FilterHosts(WatcherMetricsPtr metrics, const std::vector<std::string>& hosts) {
  if (hosts.empty()) return metrics;
  return std::make_shared<const WatcherMetrics>(FilterHosts(*metrics, hosts));
}

absl::StatusOr<WatcherMetricsPtr> InProcessClient::GetLatestMetrics(const MetricsRequest& request) {
  absl::StatusOr<Snapshot> snapshot = watcher_.Latest(request.window);
  if (!snapshot.ok()) return snapshot.status();
  // The watcher's own snapshot: shared, never copied (unless reduced to hosts).
  return FilterHosts(std::move(snapshot->metrics), request.hosts);
}

}  // namespace trimaran::lw
