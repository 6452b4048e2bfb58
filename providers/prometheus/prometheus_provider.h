#pragma once
// PrometheusProvider: a lw::MetricsProvider over the Prometheus HTTP API (instant
// queries, POST /api/v1/query with a GET fallback on 405/501), after paypal/load-watcher's
// Prometheus provider (spec trimaran-and-load-watcher.md §5.6) with its quirks fixed:
//
//   - Every query is configurable (PrometheusOptions::queries); the defaults are
//     upstream's four that Trimaran reads: avg_over_time and stddev_over_time of
//     instance:node_cpu:ratio and instance:node_memory_utilisation:ratio over the
//     window, sample x 100 (a percentage), method outer loop, metric inner loop.
//   - One failing query (transport error, timeout, HTTP error, garbage JSON,
//     "status":"error") does not throw away the others: their data is returned and the
//     failure is reported in HostsMetrics::partial_errors. Only when every query fails
//     does FetchAllHostsMetrics return an error.
//   - Series map to nodes not only by `instance` == node name: the labels in
//     PrometheusOptions::node_labels are tried in order, and a label value matches a
//     node by name, by one of the node's addresses (InternalIP, "IP:port"), or by its
//     first DNS label ("node-1.example.com" -> "node-1"). See SetNodes().
//   - Health() asks the configured address (upstream always asks the default one).
//   - TLS settings apply with or without a token (upstream drops them without one).
//   - StartupCheck() names the nodes without series and the queries returning nothing.
//
// Thread-safety: safe for concurrent use. Options are immutable after Create; the node
// table is swapped under a mutex as a whole (shared_ptr), so a fetch maps every sample
// against one consistent table without taking a lock per sample.
// Ownership: borrows the HttpTransport, which must outlive the provider.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/http/transport.h"
#include "loadwatcher/metrics_provider.h"
#include "providers/prometheus/options.h"

namespace trimaran::providers::prometheus {

// A node the provider may map series to: its name and its addresses (InternalIP,
// ExternalIP, Hostname from node.status.addresses; any order).
struct NodeRef {
  std::string name{};
  std::vector<std::string> addresses{};
};

// One query's outcome in a StartupCheck.
struct QueryCheck {
  std::string query{};    // the expression sent
  int series = 0;         // samples returned
  int mapped_series = 0;  // samples that mapped to a known node
  absl::Status status{};  // the query's error, OK when it answered
};

// StartupCheck's result. `ok()` when every query answered with data and every node
// has at least one series.
struct StartupReport {
  std::vector<QueryCheck> queries{};                // in PrometheusOptions::queries order
  std::vector<std::string> empty_queries{};         // answered but returned no series
  std::vector<std::string> failed_queries{};        // did not answer (see QueryCheck::status)
  std::vector<std::string> nodes_without_series{};  // sorted
  std::vector<std::string> unmapped_labels{};  // label values matching no node (sorted, unique)

  bool ok() const {
    return empty_queries.empty() && failed_queries.empty() && nodes_without_series.empty();
  }
  // One line for the log: "prometheus startup check: 2/3 nodes have series; nodes
  // without series: [n3]; queries returning nothing: [...]; failed queries: [...]".
  std::string Summary(int node_count) const;
};

class PrometheusProvider final : public lw::MetricsProvider {
 public:
  // Validates `options` (InvalidArgument: no transport, an empty query list or
  // expression, an address without http(s)://, both token and token file, a
  // non-positive timeout). `transport` is borrowed.
  static absl::StatusOr<std::unique_ptr<PrometheusProvider>> Create(PrometheusOptions options,
                                                                    http::HttpTransport* transport);

  PrometheusProvider(const PrometheusProvider&) = delete;
  PrometheusProvider& operator=(const PrometheusProvider&) = delete;

  // Replaces the known nodes used for mapping. With no nodes set, a series maps to its
  // first node label's value with the port and the FQDN's domain removed (IP addresses
  // are kept whole). With nodes set, series that match none of them are dropped.
  void SetNodes(const std::vector<NodeRef>& nodes);

  std::string Name() const override;
  absl::StatusOr<std::vector<lw::Metric>> FetchHostMetrics(absl::string_view host,
                                                           const lw::Window& window) override;
  absl::StatusOr<lw::HostsMetrics> FetchAllHostsMetrics(const lw::Window& window) override;
  // GET <address>/-/healthy; when that path is absent (404: a proxy or an API-only
  // endpoint) the trivial query "vector(1)".
  absl::Status Health() override;

  // Sets `nodes` (as SetNodes), runs every query over `window_duration` and reports
  // which nodes have no series and which queries return nothing or fail; logs the
  // Summary (warning unless ok()). Errors only when the token file cannot be read.
  absl::StatusOr<StartupReport> StartupCheck(const std::vector<NodeRef>& nodes,
                                             absl::string_view window_duration = "5m",
                                             int64_t now_unix = 0);

  // Maps a label value to a node name against the current table ("" = no node).
  std::string MapLabelForTest(absl::string_view value) const;

 private:
  struct NodeTable;
  struct Sample {
    std::string node;         // "" when unmapped
    std::string label_value;  // the node label's value
    double value = 0;
  };

  PrometheusProvider(PrometheusOptions options, http::HttpTransport* transport);

  absl::StatusOr<std::string> Token() const;
  // Runs one instant query; returns its samples (unmapped ones included).
  absl::StatusOr<std::vector<Sample>> RunQuery(absl::string_view expr, int64_t time_unix,
                                               absl::string_view token,
                                               const NodeTable& table) const;
  absl::StatusOr<http::HttpResponse> Send(std::string method, std::string url, std::string body,
                                          absl::string_view token) const;
  std::shared_ptr<const NodeTable> Table() const;

  const PrometheusOptions options_;
  http::HttpTransport* const transport_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const NodeTable> table_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::providers::prometheus
