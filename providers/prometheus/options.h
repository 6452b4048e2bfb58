#pragma once
// PrometheusOptions: everything the Prometheus provider is configured with. Plain
// values; validated by PrometheusProvider::Create.
//
// A query is an expression template: "$window" is replaced by the window duration
// ("15m"), and each sample of the instant-vector answer becomes one lw::Metric with the
// query's name/type/operator, rollup = the window duration and value = sample x scale.

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "common/http/transport.h"

namespace trimaran::providers::prometheus {

inline constexpr char kDefaultAddress[] = "http://prometheus-k8s:9090";
inline constexpr char kWindowPlaceholder[] = "$window";

struct QuerySpec {
  std::string expr{};  // e.g. "avg_over_time(instance:node_cpu:ratio[$window])"
  std::string name{};  // lw::Metric::name, e.g. "instance:node_cpu:ratio"
  std::string type{};  // lw::kTypeCpu, lw::kTypeMemory, ...
  std::string op{};    // lw::kOpAvg, lw::kOpStd, ...
  double scale = 100;  // upstream multiplies every sample by 100 (ratio -> percent)

  friend bool operator==(const QuerySpec&, const QuerySpec&) = default;
};

// Upstream's CPU/memory queries in upstream's order (method outer, metric inner):
//   avg_over_time(instance:node_cpu:ratio[$window])                  CPU    AVG
//   avg_over_time(instance:node_memory_utilisation:ratio[$window])   Memory AVG
//   stddev_over_time(instance:node_cpu:ratio[$window])               CPU    STD
//   stddev_over_time(instance:node_memory_utilisation:ratio[$window]) Memory STD
std::vector<QuerySpec> DefaultQueries();
inline constexpr char kDefaultCpuMetric[] = "instance:node_cpu:ratio";
inline constexpr char kDefaultMemoryMetric[] = "instance:node_memory_utilisation:ratio";
// The same four queries over other series (e.g. a recording rule of your own that gives
// a 0..1 ratio per node); DefaultQueries() = QueriesFor(kDefaultCpuMetric,
// kDefaultMemoryMetric).
std::vector<QuerySpec> QueriesFor(const std::string& cpu_metric, const std::string& memory_metric);

// "$window" in `expr` replaced by `window` ("15m").
std::string ExpandQuery(const std::string& expr, const std::string& window);

struct PrometheusOptions {
  std::string address = kDefaultAddress;  // scheme://host[:port][/path-prefix]
  std::string bearer_token{};             // sent as "Authorization: Bearer <token>"
  std::string bearer_token_file{};        // re-read on every fetch (rotated tokens)
  // CA file / insecure_skip_verify. Applied to every request when any field is set;
  // otherwise the transport's defaults apply.
  http::TlsOptions tls{};
  absl::Duration query_timeout = absl::Seconds(10);  // upstream's per-query timeout
  std::vector<QuerySpec> queries = DefaultQueries();
  // Labels naming the node, tried in order; the first present on a series is used,
  // e.g. {"node", "kubernetes_node", "instance"}.
  std::vector<std::string> node_labels = {"instance"};
  // Extra headers sent with every query (after Authorization, so they may replace it),
  // e.g. {"X-Scope-OrgID", "tenant-1"} for Grafana Mimir.
  std::vector<std::pair<std::string, std::string>> headers{};
};

}  // namespace trimaran::providers::prometheus
