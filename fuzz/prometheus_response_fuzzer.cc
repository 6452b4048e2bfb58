// Fuzzes the Prometheus provider's parsing of /api/v1/query answers
// (providers/prometheus): the provider runs its four default queries against a
// transport that answers with the fuzzer's bytes, first with no node table (series map
// to their trimmed label values), then with a table of nodes (names, IPs, FQDNs), and
// finally through StartupCheck.
//
// Input: up to four answers separated by kSeparator (fuzz_util.h), used in query order
// and cycled when fewer. An answer starting with three digits and a space ("503 {...}")
// gets that HTTP status, otherwise 200; 405 makes the provider retry with GET, which
// gets the same answer.
//
// Invariants:
//   - a successful fetch has fewer partial errors than queries (it fails when all fail);
//   - every metric carries the window as its rollup and one of the configured queries'
//     name/type/operator, and every node has a name;
//   - with a node table, only known nodes get metrics;
//   - StartupCheck reports every query once, and nodes without series are sorted,
//     known and indeed without mapped series.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "fuzz/quiet_logs.h"
#include "loadwatcher/metrics.h"
#include "providers/prometheus/prometheus_provider.h"

namespace trimaran::providers::prometheus {
namespace {

// The nodes of providers/prometheus/testdata (and of the seed corpus).
std::vector<NodeRef> KnownNodes() {
  return {{.name = "node-1", .addresses = {"10.0.0.1"}},
          {.name = "node-2", .addresses = {"10.0.0.2", "10.9.9.9"}},
          {.name = "node-3.example.com", .addresses = {"10.0.0.3"}}};
}

void CheckFetch(const absl::StatusOr<lw::HostsMetrics>& result, const PrometheusOptions& options,
                const lw::Window& window, const std::set<std::string>* known) {
  if (!result.ok()) return;
  FUZZ_CHECK(result->partial_errors.size() < options.queries.size())
      << "every query failed but the fetch succeeded";
  for (const auto& [node, metrics] : result->nodes) {
    FUZZ_CHECK(!node.empty()) << "metrics for a node without a name";
    if (known != nullptr) FUZZ_CHECK(known->contains(node)) << "unknown node " << node;
    for (const lw::Metric& m : metrics.metrics) {
      FUZZ_CHECK(m.rollup == window.duration) << node << ": rollup " << m.rollup;
      const bool configured = std::any_of(
          options.queries.begin(), options.queries.end(),
          [&](const QuerySpec& q) { return q.name == m.name && q.type == m.type && q.op == m.op; });
      FUZZ_CHECK(configured) << node << ": metric " << m.name << "/" << m.type << "/" << m.op;
    }
  }
}

}  // namespace
}  // namespace trimaran::providers::prometheus

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  trimaran::fuzz::QuietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimaran::providers::prometheus;  // NOLINT(build/namespaces)
  using trimaran::fuzz::ScriptedTransport;
  namespace lw = trimaran::lw;
  namespace http = trimaran::http;

  const std::vector<std::string_view> parts = trimaran::fuzz::SplitInput(data, size, 4);
  size_t next = 0;
  std::string_view current;
  ScriptedTransport transport([&](const http::HttpRequest& request) {
    // A GET retry after 405/501 re-reads the answer of the same query.
    if (request.method == "POST") current = parts[next++ % parts.size()];
    return trimaran::fuzz::AnswerFromPart(current);
  });

  PrometheusOptions options;
  options.address = "http://prometheus.fuzz:9090";
  options.node_labels = {"node", "kubernetes_node", "instance"};
  absl::StatusOr<std::unique_ptr<PrometheusProvider>> provider =
      PrometheusProvider::Create(options, &transport);
  FUZZ_CHECK(provider.ok()) << provider.status();
  const lw::Window window{.duration = "5m", .start = 1700000000 - 300, .end = 1700000000};

  CheckFetch((*provider)->FetchAllHostsMetrics(window), options, window, nullptr);

  const std::vector<NodeRef> nodes = KnownNodes();
  std::set<std::string> known;
  for (const NodeRef& n : nodes) known.insert(n.name);
  (*provider)->SetNodes(nodes);
  next = 0;
  CheckFetch((*provider)->FetchAllHostsMetrics(window), options, window, &known);

  next = 0;
  absl::StatusOr<StartupReport> report = (*provider)->StartupCheck(nodes, "5m", window.end);
  FUZZ_CHECK(report.ok()) << report.status();
  FUZZ_CHECK(report->queries.size() == options.queries.size()) << report->queries.size();
  FUZZ_CHECK(
      std::is_sorted(report->nodes_without_series.begin(), report->nodes_without_series.end()));
  for (const std::string& name : report->nodes_without_series) {
    FUZZ_CHECK(known.contains(name)) << "unknown node without series " << name;
  }
  int mapped = 0;
  for (const QueryCheck& q : report->queries) {
    FUZZ_CHECK(q.mapped_series <= q.series) << q.query;
    FUZZ_CHECK(q.status.ok() || q.series == 0) << q.query;
    mapped += q.mapped_series;
  }
  FUZZ_CHECK(mapped > 0 || report->nodes_without_series.size() == nodes.size())
      << "nodes have series although no series mapped";
  (void)report->Summary(static_cast<int>(nodes.size()));
  return 0;
}
