// /watcher serialisation for large clusters (issue 6 target: < 20 ms for 5,000 nodes).
#include <string>

#include "benchmark/benchmark.h"
#include "loadwatcher/json.h"
#include "loadwatcher/metrics.h"

namespace trimaran::lw {
namespace {

// `metrics_per_node`: 4 = Prometheus CPU/memory AVG+STD; 34 = every upstream query.
WatcherMetrics MakeCluster(int nodes, int metrics_per_node) {
  WatcherMetrics m;
  m.timestamp = 1700000062;
  m.window = {"15m", 1699999160, 1700000060};
  m.source = "Prometheus";
  for (int n = 0; n < nodes; ++n) {
    NodeMetrics& node = m.data.node_metrics_map["ip-10-0-" + std::to_string(n) + ".ec2.internal"];
    for (int i = 0; i < metrics_per_node; ++i) {
      node.metrics.push_back(Metric{"instance:node_cpu:ratio", "CPU", i % 2 ? "STD" : "AVG", "15m",
                                    100.0 * (n % 97 + 1) / (i + 3)});
    }
  }
  return m;
}

void BM_EncodeWatcherJson(benchmark::State& state) {
  const WatcherMetrics m =
      MakeCluster(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  size_t bytes = 0;
  for (auto _ : state) {
    std::string json = EncodeWatcherMetricsJson(m);
    bytes = json.size();
    benchmark::DoNotOptimize(json);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_EncodeWatcherJson)->Args({5000, 4})->Args({5000, 34})->Unit(benchmark::kMillisecond);

void BM_DecodeWatcherJson(benchmark::State& state) {
  const std::string json = EncodeWatcherMetricsJson(
      MakeCluster(static_cast<int>(state.range(0)), static_cast<int>(state.range(1))));
  for (auto _ : state) {
    auto m = DecodeWatcherMetricsJson(json);
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK(BM_DecodeWatcherJson)->Args({5000, 4})->Args({5000, 34})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace trimaran::lw
