#pragma once
// Benchmark-only fixture of the full in-process scheduling cycle (scheduler_benchmark,
// target_load_packing_benchmark): a real Scheduler over a FakeClient with the in-tree
// plugins, a binder that binds nothing and a recorder that records nothing, on N
// identical nodes ("node-%05d", 32 CPU / 128Gi / 110 pods), and the ScheduleOne loop
// that reports per-pod latency quantiles.
//
//   auto env = MakeBenchScheduler(BenchSchedulerOptions{.yaml = ..., .num_nodes = 5000});
//   RunScheduleOne(state, *env);  // schedules state.max_iterations pods of 100m / 500Mi
//
// The scheduler_perf workloads (constraints_benchmark, volumes_benchmark) share
// MakePerfScheduler (node-default nodes, the default profile), PerfPod (pod-default),
// PlaceInitPods, ReportPerfCounters and TRIMARAN_PERF_BENCHMARK (a 500-node smoke size
// for ctest and the 5,000-node size of docs/benchmarks.md).
//
// TRIMARAN_BENCH_PARALLELISM (environment) overrides the Filter/Score workers (default
// 16). Set-up failures abort (TRIMARAN_CHECK): a benchmark has nobody to report to.
//
// Thread-safety: none; one benchmark thread. Ownership: BenchScheduler owns everything
// the Scheduler borrows (client, stats, registry, recorder).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"
#include "common/stats/registry.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/client.h"
#include "scheduler/event_recorder.h"
#include "scheduler/framework/registry.h"
#include "scheduler/scheduler.h"

namespace trimaran::sched::scheduler_testing {

// Records nothing: the benchmark measures the scheduler, not events.
class NullRecorder final : public EventRecorder {
 public:
  void Eventf(const kube::Pod&, const kube::Pod*, EventType, absl::string_view, absl::string_view,
              absl::string_view) override {}
};

struct BenchScheduler {
  kube::testing::FakeClient client;
  stats::Registry stats;
  Registry registry;
  NullRecorder recorder;
  std::unique_ptr<Scheduler> sched;
};

struct BenchSchedulerOptions {
  // A KubeSchedulerConfiguration; every profile's binder is replaced by one that binds
  // nothing.
  std::string yaml;
  int num_nodes = 0;
  // > 0: every profile's percentageOfNodesToScore.
  int percentage_of_nodes_to_score = 0;
  // The load watcher of the load-aware plugins (may be null).
  lw::Client* load_watcher = nullptr;
  // Registers benchmark-only plugins besides the in-tree ones (may be empty).
  std::function<absl::Status(Registry&)> register_plugins;
  // Node i's labels (none when empty) and capacity (default 32 CPU / 128Gi / 110 pods).
  std::function<kube::Labels(int i)> node_labels;
  kube::testing::ResourceMap node_capacity = {{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}};
  // The queue's backoff (default: the scheduler's, 1 s doubling to 10 s).
  std::optional<BackoffPolicy> backoff;
  // Where decisions are recorded (SchedulerOptions::decisions; null: not recorded).
  decisions::DecisionRing* decisions = nullptr;
  // Called by the no-op binder for every pod it "binds" (binding threads; may be empty).
  std::function<void(const kube::Pod&)> on_bind;
  // SchedulerOptions::queueing_hints.
  bool queueing_hints = true;
};

std::unique_ptr<BenchScheduler> MakeBenchScheduler(const BenchSchedulerOptions& options);

// Adds state.max_iterations pending pods ("p-%06d", 100m / 500Mi), schedules one per
// iteration, waits for the bindings and sets the counters p50_us, p99_us (per-pod
// ScheduleOne latency) and scheduled (pods in the cache).
void RunScheduleOne(benchmark::State& state, BenchScheduler& env);
// The same with pods from `make_pod(i)` (each must have a unique namespace/name and UID).
void RunScheduleOne(benchmark::State& state, BenchScheduler& env,
                    const std::function<kube::Pod(int64_t i)>& make_pod);

// ---- scheduler_perf workloads ----

// "node-%05d": the name MakeBenchScheduler gives node i.
std::string BenchNodeName(int i);
// scheduler_perf's node-default (4 CPU / 32Gi / 110 pods) under the default v1 profile,
// labelled kubernetes.io/hostname and, when `zones` is not empty,
// topology.kubernetes.io/zone from `zones` round robin.
std::unique_ptr<BenchScheduler> MakePerfScheduler(int nodes, std::vector<std::string> zones = {});
// scheduler_perf's pod-default: "<prefix>-%06d" in `ns` (UID "<ns>-<prefix>-%06d"),
// requesting 100m / 500Mi.
kube::testing::PodWrapper PerfPod(const std::string& prefix, int64_t i, const std::string& ns);
// Adds `count` assigned pods make(i), pod i on node BenchNodeName(node_of(i)).
void PlaceInitPods(BenchScheduler& env, int64_t count,
                   const std::function<kube::Pod(int64_t i)>& make,
                   const std::function<int(int64_t i)>& node_of);
// The counters every scheduler_perf workload reports besides RunScheduleOne's:
// threshold (the workload's CI floor, pods/s) and peak_rss_mb (getrusage's ru_maxrss,
// process-wide: run one workload per process for its own figure).
void ReportPerfCounters(benchmark::State& state, double threshold);

}  // namespace trimaran::sched::scheduler_testing

// Registers `fn` twice with args {nodes, init pods} and measured pods as iterations:
// {500, init/10} x measured/10 (the size ctest runs) and {5000, init} x measured.
#define TRIMARAN_PERF_BENCHMARK(fn, init, measured) \
  BENCHMARK(fn)                                     \
      ->ArgNames({"nodes", "init"})                 \
      ->Args({500, (init) / 10})                    \
      ->Iterations((measured) / 10)                 \
      ->Unit(benchmark::kMicrosecond)               \
      ->UseRealTime();                              \
  BENCHMARK(fn)                                     \
      ->ArgNames({"nodes", "init"})                 \
      ->Args({5000, (init)})                        \
      ->Iterations(measured)                        \
      ->Unit(benchmark::kMicrosecond)               \
      ->UseRealTime()
