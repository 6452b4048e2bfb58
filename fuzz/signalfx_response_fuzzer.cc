// Fuzzes the SignalFx provider's parsing and join of /v1/timeserieswindow and
// /v2/metrictimeseries answers (providers/signalfx) through a transport that answers
// with the fuzzer's bytes.
//
// Input: up to four answers separated by kSeparator (fuzz_util.h), in request order:
// CPU timeserieswindow, CPU metrictimeseries, memory timeserieswindow, memory
// metrictimeseries, cycled when fewer (two parts: the same pair for both metrics). An
// answer starting with three digits and a space ("500 ...") gets that HTTP status.
//
// Invariants, for a successful fetch:
//   - every node is a non-empty host name cut at its first "." (NodeNameFromHost);
//   - every metric is {sf_metric name, its type CPU or Memory, AVG, rollup ""}, at most
//     one per type and node;
//   - at most one metric failed (the fetch fails when both do), so at most three
//     partial errors (one failure, two skip reports);
//   - FetchHostMetrics of a node answers that node's metrics.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "fuzz/quiet_logs.h"
#include "loadwatcher/metrics.h"
#include "providers/signalfx/signalfx_provider.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  trimaran::fuzz::QuietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimaran::providers::signalfx;  // NOLINT(build/namespaces)
  namespace lw = trimaran::lw;
  namespace http = trimaran::http;

  const std::vector<std::string_view> parts = trimaran::fuzz::SplitInput(data, size, 4);
  size_t next = 0;
  trimaran::fuzz::ScriptedTransport transport([&](const http::HttpRequest&) {
    return trimaran::fuzz::AnswerFromPart(parts[next++ % parts.size()]);
  });
  absl::StatusOr<std::unique_ptr<SignalFxProvider>> provider = SignalFxProvider::Create(
      transport, Options{.address = "https://signalfx.fuzz", .token = "t", .cluster_name = "c"});
  FUZZ_CHECK(provider.ok()) << provider.status();
  const lw::Window window{.duration = "5m", .start = 1700000000 - 300, .end = 1700000000};

  absl::StatusOr<lw::HostsMetrics> result = (*provider)->FetchAllHostsMetrics(window);
  if (!result.ok()) return 0;
  FUZZ_CHECK(result->partial_errors.size() <= 3) << result->partial_errors.size();
  for (const auto& [node, metrics] : result->nodes) {
    FUZZ_CHECK(!node.empty() && NodeNameFromHost(node) == node) << "node \"" << node << "\"";
    int cpu = 0;
    int memory = 0;
    for (const lw::Metric& m : metrics.metrics) {
      const bool is_cpu = m.type == lw::kTypeCpu && m.name == kCpuMetric;
      const bool is_memory = m.type == lw::kTypeMemory && m.name == kMemoryMetric;
      FUZZ_CHECK((is_cpu || is_memory) && m.op == lw::kOpAvg && m.rollup.empty())
          << node << ": " << m.name << "/" << m.type << "/" << m.op << "/" << m.rollup;
      cpu += is_cpu;
      memory += is_memory;
    }
    FUZZ_CHECK(cpu <= 1 && memory <= 1) << node << ": " << cpu << " cpu, " << memory << " memory";
  }
  // The same answers again, through the per-host entry point.
  if (!result->nodes.empty()) {
    const auto& [node, metrics] = *result->nodes.begin();
    next = 0;
    absl::StatusOr<std::vector<lw::Metric>> host = (*provider)->FetchHostMetrics(node, window);
    FUZZ_CHECK(host.ok() && host->size() == metrics.metrics.size()) << node;
    for (size_t i = 0; i < host->size(); ++i) {
      const lw::Metric& a = (*host)[i];
      const lw::Metric& b = metrics.metrics[i];
      // Bitwise: the same points give the same mean, NaN included (a mean of huge values
      // can overflow; the watcher drops non-finite values).
      FUZZ_CHECK(a.name == b.name && a.type == b.type &&
                 std::bit_cast<uint64_t>(a.value) == std::bit_cast<uint64_t>(b.value))
          << node << ": FetchHostMetrics disagrees on " << a.name;
    }
  }
  return 0;
}
