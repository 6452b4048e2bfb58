// The full in-process scheduling cycle (issue 4, "Benchmarks"): queue → PreFilter →
// Filter → PreScore → Score → select → Reserve → Assume → Permit → binding cycle on the
// binding pool with a no-op Bind plugin (no API round trip), through Scheduler.
//
//   BM_ScheduleOne/<nodes>/<profile>/<pct>   profile 0 = v1 defaults (LeastAllocated +
//       BalancedAllocation + TaintToleration + NodeAffinity, ...), 1 = MostAllocated
//       packing; pct 0 = default (adaptive) node sampling, 100 = score every node.
//       items_per_second = pods/s; p50_us / p99_us = per-pod scheduling-cycle latency.
//   BM_CacheRss/5000/30   5,000 nodes × 30 assigned pods (150,000) in the cache plus
//       one snapshot; peak_rss_mb = getrusage ru_maxrss (run it alone: the peak is
//       process-wide).
//
// Build and run (RelWithDebInfo, the default):
//   cmake --build build --target sched_scheduler_benchmark -j2
//   build/scheduler/sched_scheduler_benchmark --benchmark_filter=BM_ScheduleOne
//   build/scheduler/sched_scheduler_benchmark --benchmark_filter=BM_CacheRss

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "common/check.h"
#include "common/clock.h"
#include "common/stats/registry.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_test_util.h"

namespace trimaran::sched {
namespace {

using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;

// Binds nothing: the benchmark measures the scheduler, not the apiserver.
class NoopBinder final : public BindPlugin {
 public:
  static constexpr absl::string_view kName = "NoopBinder";
  absl::string_view Name() const override { return kName; }
  Status Bind(CycleState&, const kube::Pod&, absl::string_view) override { return Status(); }
};

class NullRecorder final : public EventRecorder {
 public:
  void Eventf(const kube::Pod&, const kube::Pod*, EventType, absl::string_view, absl::string_view,
              absl::string_view) override {}
};

void CheckOk(const absl::Status& status) { TRIMARAN_CHECK(status.ok()); }

struct Env {
  kube::testing::FakeClient client;
  stats::Registry stats;
  Registry registry;
  NullRecorder recorder;
  std::unique_ptr<Scheduler> sched;
};

std::unique_ptr<Env> MakeEnv(int num_nodes, bool most_allocated, int pct) {
  auto env = std::make_unique<Env>();
  CheckOk(plugins::RegisterInTreePlugins(env->registry));
  CheckOk(env->registry.Register(NoopBinder::kName,
                                 [](const PluginArgs&, Handle&) -> absl::StatusOr<PluginPtr> {
                                   return std::make_unique<NoopBinder>();
                                 }));
  auto profiles = scheduler_testing::ProfilesFromYaml(
      most_allocated ? scheduler_testing::MostAllocatedProfileYaml("default-scheduler")
                     : scheduler_testing::DefaultProfileYaml());
  CheckOk(profiles.status());
  for (ProfileConfig& p : *profiles) {
    p.bind = {std::string(NoopBinder::kName)};
    if (pct > 0) p.percentage_of_nodes_to_score = pct;
  }
  SchedulerOptions options;
  options.run_queue_flushers = false;
  // TRIMARAN_BENCH_PARALLELISM overrides the Filter/Score workers (default 16).
  if (const char* p = std::getenv("TRIMARAN_BENCH_PARALLELISM"); p != nullptr) {
    options.parallelism = std::max(1, std::atoi(p));
  }
  auto sched = Scheduler::Create(*std::move(profiles), env->registry, env->client, RealClock::Get(),
                                 stats::Scope(env->stats), options, &env->recorder);
  CheckOk(sched.status());
  env->sched = *std::move(sched);
  for (int i = 0; i < num_nodes; ++i) {
    env->sched->OnNodeAdd(std::make_shared<const kube::Node>(
        MakeNode()
            .Name(absl::StrFormat("node-%05d", i))
            .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}})
            .Obj()));
  }
  return env;
}

void BM_ScheduleOne(benchmark::State& state) {
  const int num_nodes = static_cast<int>(state.range(0));
  const bool most_allocated = state.range(1) == 1;
  const int pct = static_cast<int>(state.range(2));
  std::unique_ptr<Env> env = MakeEnv(num_nodes, most_allocated, pct);
  const int64_t pods = state.max_iterations;
  for (int64_t i = 0; i < pods; ++i) {
    env->sched->OnPodAdd(
        std::make_shared<const kube::Pod>(MakePod()
                                              .Name(absl::StrFormat("p-%06d", i))
                                              .Namespace("default")
                                              .UID(absl::StrFormat("uid-%06d", i))
                                              .Req({{"cpu", "100m"}, {"memory", "500Mi"}})
                                              .Obj()));
  }
  std::vector<double> latencies_us;
  latencies_us.reserve(pods);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    env->sched->ScheduleOne();
    latencies_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  env->sched->WaitForBindings();
  state.SetItemsProcessed(state.iterations());
  std::sort(latencies_us.begin(), latencies_us.end());
  auto quantile = [&](double q) {
    if (latencies_us.empty()) return 0.0;
    return latencies_us[std::min(
        latencies_us.size() - 1,
        static_cast<size_t>(q * static_cast<double>(latencies_us.size())))];
  };
  state.counters["p50_us"] = quantile(0.50);
  state.counters["p99_us"] = quantile(0.99);
  state.counters["scheduled"] = env->sched->cache().PodCount();
}
BENCHMARK(BM_ScheduleOne)
    ->ArgNames({"nodes", "most_allocated", "pct"})
    ->Args({500, 0, 0})
    ->Args({500, 0, 100})
    ->Args({500, 1, 0})
    ->Args({500, 1, 100})
    ->Args({5000, 0, 0})
    ->Args({5000, 0, 100})
    ->Args({5000, 1, 0})
    ->Args({5000, 1, 100})
    ->Iterations(3000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_CacheRss(benchmark::State& state) {
  const int num_nodes = static_cast<int>(state.range(0));
  const int pods_per_node = static_cast<int>(state.range(1));
  for (auto _ : state) {
    std::unique_ptr<Env> env = MakeEnv(num_nodes, /*most_allocated=*/false, 0);
    for (int n = 0; n < num_nodes; ++n) {
      const std::string node = absl::StrFormat("node-%05d", n);
      for (int i = 0; i < pods_per_node; ++i) {
        env->sched->OnPodAdd(
            std::make_shared<const kube::Pod>(MakePod()
                                                  .Name(absl::StrFormat("p-%05d-%02d", n, i))
                                                  .Namespace("default")
                                                  .UID(absl::StrFormat("uid-%05d-%02d", n, i))
                                                  .NodeName(node)
                                                  .Req({{"cpu", "100m"}, {"memory", "500Mi"}})
                                                  .Obj()));
      }
    }
    // One scheduling cycle: builds the snapshot (a NodeInfo copy per node).
    env->sched->OnPodAdd(std::make_shared<const kube::Pod>(
        MakePod().Name("probe").Namespace("default").Req({{"cpu", "100m"}}).Obj()));
    env->sched->ScheduleOne();
    env->sched->WaitForBindings();
    state.counters["pods_in_cache"] = env->sched->cache().PodCount();
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    state.counters["peak_rss_mb"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  }
}
BENCHMARK(BM_CacheRss)->Args({5000, 30})->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace trimaran::sched
