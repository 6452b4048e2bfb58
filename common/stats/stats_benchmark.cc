// Costs of the hot paths: updating a cached child, finding a child by label values, and
// a scrape.

#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "common/stats/registry.h"

namespace trimaran::stats {
namespace {

void BM_CounterInc(benchmark::State& state) {
  static Registry* registry = new Registry();
  static Counter& counter =
      registry->CounterFamily("bench_ops_total", "", {"result"}).WithLabels({"ok"});
  for (auto _ : state) counter.Inc();
}
BENCHMARK(BM_CounterInc)->ThreadRange(1, 2);

void BM_CounterAddDouble(benchmark::State& state) {
  static Registry* registry = new Registry();
  static Counter& counter =
      registry->CounterFamily("bench_seconds_total", "", {"result"}).WithLabels({"ok"});
  for (auto _ : state) counter.Add(0.25);
}
BENCHMARK(BM_CounterAddDouble)->ThreadRange(1, 2);

void BM_HistogramObserve(benchmark::State& state) {
  static Registry* registry = new Registry();
  static Histogram& histogram = registry
                                    ->HistogramFamily("bench_latency_seconds", "", {"result"},
                                                      ExponentialBuckets(0.001, 2, 15))
                                    .WithLabels({"ok"});
  double v = 0;
  for (auto _ : state) {
    histogram.Observe(v);
    v = v < 20 ? v + 0.0137 : 0;
  }
}
BENCHMARK(BM_HistogramObserve)->ThreadRange(1, 2);

void BM_WithLabelsLookup(benchmark::State& state) {
  Registry registry;
  Family<Counter>& family = registry.CounterFamily("bench_total", "", {"result", "profile"});
  for (auto _ : state) family.WithLabels({"scheduled", "trimaran"}).Inc();
}
BENCHMARK(BM_WithLabelsLookup);

void BM_PrometheusText(benchmark::State& state) {
  Registry registry;
  Family<Counter>& counters = registry.CounterFamily("bench_node_ops_total", "", {"node"});
  Family<Histogram>& histograms = registry.HistogramFamily("bench_node_seconds", "", {"node"},
                                                           ExponentialBuckets(0.001, 2, 15));
  for (int i = 0; i < state.range(0); ++i) {
    const std::string node = absl::StrCat("node-", i);
    counters.WithLabels({node}).Add(i);
    histograms.WithLabels({node}).Observe(i * 0.01);
  }
  for (auto _ : state) benchmark::DoNotOptimize(registry.PrometheusText());
}
BENCHMARK(BM_PrometheusText)->Arg(100)->Arg(1000);

}  // namespace
}  // namespace trimaran::stats
