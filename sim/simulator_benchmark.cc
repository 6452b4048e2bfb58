// sim::Simulate at the issue's scale: 1,000 fixed nodes (m5.2xlarge: 8 CPU, 32 GiB; no
// autoscaler) and a Spark-like hour (GenerateSparkTrace: 380 applications, ~8,000 pods,
// no diurnal swing) that keeps them busy (up to ~75 % of CPU requested), run to the end
// of the last pod. One benchmark per profile of sim/examples/: the v1 defaults
// (LeastAllocated; the daemon samples 42 % of the nodes at 1,000), MostAllocated and
// TargetLoadPacking at 60 % (packing profiles: every node is scored).
//
//   build/sim/sim_benchmark --benchmark_repetitions=3
//
// Counters (rates per CPU second of the benchmark thread): placements_per_s (bindings),
// cycles_per_s (scheduling cycles, including those that found no node), and the totals
// of one run (cycles_without_room: cycles decided without the framework because no node
// had the requests free, ProfileResult::cycles_without_room). docs/benchmarks.md has figures.
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "scheduler/plugins/registry.h"
#include "sim/generator.h"
#include "sim/simulator.h"

namespace trimaran::sim {
namespace {

// The profiles of sim/examples/ (default.yaml, binpack.yaml, tlp.yaml).
constexpr char kProfiles[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default
  - schedulerName: most-allocated
    plugins:
      score:
        disabled: [{name: "*"}]
        enabled: [{name: NodeResourcesFit, weight: 1}]
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
  - schedulerName: target-load-packing
    plugins:
      score:
        disabled: [{name: "*"}]
        enabled: [{name: TargetLoadPacking, weight: 1}]
    pluginConfig:
      - name: TargetLoadPacking
        args:
          targetUtilization: 60
          metricProvider: {type: Prometheus, address: "http://prometheus:9090"}
)";

constexpr int kNodes = 1000;

struct Setup {
  sched::Registry registry;
  std::vector<sched::ProfileConfig> profiles;
  std::vector<TracePod> trace;
  ClusterSpec cluster;
  std::string error;
};

const Setup& Get() {
  static const Setup* const setup = [] {
    auto* s = new Setup;
    if (absl::Status st = sched::plugins::RegisterInTreePlugins(s->registry); !st.ok()) {
      s->error = st.ToString();
      return s;
    }
    absl::StatusOr<sched::config::SchedulerConfig> cfg =
        sched::config::ParseConfig(kProfiles, "profiles");
    if (!cfg.ok()) {
      s->error = cfg.status().ToString();
      return s;
    }
    if (absl::Status st = sched::config::Validate(*cfg, s->registry); !st.ok()) {
      s->error = st.ToString();
      return s;
    }
    absl::StatusOr<std::vector<sched::ProfileConfig>> profiles =
        sched::config::ExpandProfiles(*cfg, s->registry);
    if (!profiles.ok()) {
      s->error = profiles.status().ToString();
      return s;
    }
    s->profiles = *std::move(profiles);
    GenOptions gen;
    gen.hours = 1;
    gen.apps_per_hour = 380;
    gen.diurnal_amplitude = 0;
    gen.max_executors = 80;
    gen.services = 12;
    absl::StatusOr<std::vector<TracePod>> trace = GenerateSparkTrace(gen);
    if (!trace.ok()) {
      s->error = trace.status().ToString();
      return s;
    }
    s->trace = *std::move(trace);
    NodeGroup g;
    g.name = "m5-2xlarge";
    g.instance_type = "m5.2xlarge";
    g.cpu_milli = 8000;
    g.memory_mib = 32768;
    g.price_per_hour = 0.384;
    g.min = g.max = g.initial = kNodes;
    s->cluster.groups.push_back(g);
    s->cluster.autoscaler.enabled = false;
    return s;
  }();
  return *setup;
}

void BM_Simulate1000Nodes(benchmark::State& bm) {
  const Setup& s = Get();
  if (!s.error.empty()) {
    bm.SkipWithError(s.error.c_str());
    return;
  }
  const sched::ProfileConfig& profile = s.profiles.at(static_cast<size_t>(bm.range(0)));
  bm.SetLabel(profile.scheduler_name);
  int64_t placements = 0;
  int64_t cycles = 0;
  int64_t without_room = 0;
  // Placements only: cluster compaction (on by default, a report metric with its own
  // cost, docs/benchmarks.md) is off here.
  SimOptions options;
  options.compaction_trials = 0;
  for (auto _ : bm) {
    absl::StatusOr<ProfileResult> r = Simulate(s.trace, s.cluster, profile, s.registry, options);
    if (!r.ok()) {
      bm.SkipWithError(r.status().ToString().c_str());
      return;
    }
    if (r->scheduler_errors > 0 || r->never_scheduled > 0 || r->peak_nodes != kNodes) {
      bm.SkipWithError("the run did not place every pod on the 1,000 nodes");
      return;
    }
    // Bindings: first placements plus re-placements after evictions (none here).
    placements += r->scheduled + r->evicted;
    cycles += r->scheduling_cycles;
    without_room += r->cycles_without_room;
  }
  bm.counters["placements_per_s"] =
      benchmark::Counter(static_cast<double>(placements), benchmark::Counter::kIsRate);
  bm.counters["cycles_per_s"] =
      benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
  bm.counters["placements"] =
      benchmark::Counter(static_cast<double>(placements), benchmark::Counter::kAvgIterations);
  bm.counters["cycles"] =
      benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kAvgIterations);
  bm.counters["cycles_without_room"] =
      benchmark::Counter(static_cast<double>(without_room), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Simulate1000Nodes)
    ->ArgName("profile")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace trimaran::sim
