#include "dashboard/cluster_source.h"

#include <utility>

#include "absl/time/time.h"
#include "common/status_macros.h"

namespace trimaran::dashboard {

void ReadWatcher(lw::Client* watcher, const std::string& window, ClusterInputs& in) {
  if (watcher == nullptr) {
    in.metrics_error = "no --watcher given";
    return;
  }
  lw::MetricsRequest req;
  req.window = window;
  req.timeout = absl::Seconds(10);
  absl::StatusOr<lw::WatcherMetricsPtr> m = watcher->GetLatestMetrics(req);
  if (m.ok()) {
    in.metrics = *std::move(m);
  } else {
    in.metrics_error = std::string(m.status().message());
  }
}

ApiClusterSource::ApiClusterSource(kube::Client& kube, lw::Client* watcher,
                                   std::string node_selector, std::string window)
    : kube_(kube),
      watcher_(watcher),
      node_selector_(std::move(node_selector)),
      window_(std::move(window)) {}

absl::StatusOr<ClusterInputs> ApiClusterSource::Fetch() {
  ClusterInputs in;
  kube::ListOptions nodes_opts;
  nodes_opts.label_selector = node_selector_;
  nodes_opts.limit = 500;
  do {
    TRIMARAN_ASSIGN_OR_RETURN(kube::NodeList page, kube_.ListNodes(nodes_opts));
    for (kube::Node& n : page.items) in.nodes.push_back(std::move(n));
    nodes_opts.continue_token = page.metadata.continue_token;
  } while (!nodes_opts.continue_token.empty());
  kube::ListOptions pods_opts;
  pods_opts.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  pods_opts.limit = 500;
  do {
    TRIMARAN_ASSIGN_OR_RETURN(kube::PodList page, kube_.ListPods("", pods_opts));
    for (const kube::Pod& p : page.items) in.pods.Add(SummarizePod(p));
    pods_opts.continue_token = page.metadata.continue_token;
  } while (!pods_opts.continue_token.empty());
  ReadWatcher(watcher_, window_, in);
  return in;
}

}  // namespace trimaran::dashboard
