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
// TRIMARAN_BENCH_PARALLELISM (environment) overrides the Filter/Score workers (default
// 16). Set-up failures abort (TRIMARAN_CHECK): a benchmark has nobody to report to.
//
// Thread-safety: none; one benchmark thread. Ownership: BenchScheduler owns everything
// the Scheduler borrows (client, stats, registry, recorder).

#include <functional>
#include <memory>
#include <optional>
#include <string>

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
};

std::unique_ptr<BenchScheduler> MakeBenchScheduler(const BenchSchedulerOptions& options);

// Adds state.max_iterations pending pods ("p-%06d", 100m / 500Mi), schedules one per
// iteration, waits for the bindings and sets the counters p50_us, p99_us (per-pod
// ScheduleOne latency) and scheduled (pods in the cache).
void RunScheduleOne(benchmark::State& state, BenchScheduler& env);
// The same with pods from `make_pod(i)` (each must have a unique namespace/name and UID).
void RunScheduleOne(benchmark::State& state, BenchScheduler& env,
                    const std::function<kube::Pod(int64_t i)>& make_pod);

}  // namespace trimaran::sched::scheduler_testing
