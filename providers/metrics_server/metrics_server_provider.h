#pragma once
// KubernetesMetricsServer provider: per-node CPU and memory utilisation from the
// metrics.k8s.io API (metrics-server), as paypal/load-watcher's k8s provider computes it
// (spec trimaran-and-load-watcher.md §5.6).
//
//   GET /apis/metrics.k8s.io/v1beta1/nodes  (NodeMetricsList: usage.cpu, usage.memory)
//   ListNodes                               (status.capacity, or allocatable if chosen)
//   CPU    = 100 * usage.cpu    / capacity.cpu     (both in millicores)
//   Memory = 100 * usage.memory / capacity.memory  (both in bytes)
//
// Each node gets exactly two metrics, {name "", type CPU|Memory, operator Latest,
// rollup ""}. metrics-server only has the latest sample, so the window is ignored: the
// 15m, 10m and 5m windows are all answered with the same instantaneous values (as
// upstream).
//
// Differences from upstream, all in reporting (HostsMetrics::partial_errors), never in
// values:
//   - Nodes of the cluster that metrics-server has no usable entry for are reported (one
//     NotFound naming them); upstream silently leaves them out.
//   - Metrics items for unknown nodes, unparsable quantities and nodes with zero or
//     missing capacity are skipped and reported; upstream only logs the first kind.
//   - Health() is a GET of the same endpoint through the kube client (upstream sends a
//     HEAD through the metrics clientset); 2xx is healthy.
//
// Thread-safety: safe for concurrent use (stateless apart from the const options; the
// kube client is itself thread-safe).
// Ownership: borrows the kube client, which must outlive the provider.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/api/quantity.h"
#include "kube/client.h"
#include "loadwatcher/metrics.h"
#include "loadwatcher/metrics_provider.h"

namespace trimaran::providers::metrics_server {

inline constexpr absl::string_view kNodeMetricsPath = "/apis/metrics.k8s.io/v1beta1/nodes";

struct Options {
  // Divide by node.status.allocatable instead of node.status.capacity (upstream uses
  // capacity). A node without the chosen resource falls back to the other one.
  bool use_allocatable = false;
};

// One item of a NodeMetricsList.
struct NodeUsage {
  std::string name{};
  kube::Quantity cpu{};
  kube::Quantity memory{};
};

// The decoded items of a metrics.k8s.io/v1beta1 NodeMetricsList. Items whose usage
// does not parse are left out and described in `errors`.
struct NodeUsageList {
  std::vector<NodeUsage> items{};
  std::vector<absl::Status> errors{};
};

// Decodes a NodeMetricsList document. Internal when the document is not JSON or not a
// list (no "items" array); per-item problems go to NodeUsageList::errors.
absl::StatusOr<NodeUsageList> ParseNodeMetricsList(absl::string_view json);

class MetricsServerProvider final : public lw::MetricsProvider {
 public:
  explicit MetricsServerProvider(kube::Client& client, Options options = {});

  std::string Name() const override;
  // The host's two metrics; NotFound when metrics-server or the node list lacks it.
  absl::StatusOr<std::vector<lw::Metric>> FetchHostMetrics(absl::string_view host,
                                                           const lw::Window& window) override;
  // Fails (nothing usable) when either request fails or the metrics list does not
  // decode; otherwise returns every node it could compute, with the problems above.
  absl::StatusOr<lw::HostsMetrics> FetchAllHostsMetrics(const lw::Window& window) override;
  absl::Status Health() override;

 private:
  kube::Client& client_;
  const Options options_;
};

}  // namespace trimaran::providers::metrics_server
