// The full in-process scheduling cycle (issue 4, "Benchmarks"): queue → PreFilter →
// Filter → PreScore → Score → select → Reserve → Assume → Permit → binding cycle on the
// binding pool with a no-op Bind plugin (no API round trip), through Scheduler.
//
//   BM_ScheduleOne/<nodes>/<profile>/<pct>   profile 0 = v1 defaults (LeastAllocated +
//       BalancedAllocation + TaintToleration + NodeAffinity, ...), 1 = MostAllocated
//       packing; pct 0 = default (adaptive) node sampling, 100 = score every node.
//       items_per_second = pods/s; p50_us / p99_us = per-pod scheduling-cycle latency.
//   BM_ScheduleOneRecording/<nodes>/<profile>/<decisions>   BM_ScheduleOne at adaptive
//       sampling without (0) and with (1) a 1,000-decision DecisionRing: what recording
//       the live decisions (scheduler/decisions/) costs per pod.
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
#include "scheduler/decisions/decision_ring.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_benchmark_util.h"
#include "scheduler/scheduler_test_util.h"

namespace trimaran::sched {
namespace {

using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;

std::unique_ptr<scheduler_testing::BenchScheduler> MakeEnv(int num_nodes, bool most_allocated,
                                                           int pct) {
  return scheduler_testing::MakeBenchScheduler(scheduler_testing::BenchSchedulerOptions{
      .yaml = most_allocated ? scheduler_testing::MostAllocatedProfileYaml("default-scheduler")
                             : scheduler_testing::DefaultProfileYaml(),
      .num_nodes = num_nodes,
      .percentage_of_nodes_to_score = pct});
}

void BM_ScheduleOneRecording(benchmark::State& state) {
  decisions::DecisionRing ring(1000);
  const bool most_allocated = state.range(1) == 1;
  auto env = scheduler_testing::MakeBenchScheduler(scheduler_testing::BenchSchedulerOptions{
      .yaml = most_allocated ? scheduler_testing::MostAllocatedProfileYaml("default-scheduler")
                             : scheduler_testing::DefaultProfileYaml(),
      .num_nodes = static_cast<int>(state.range(0)),
      .decisions = state.range(2) == 1 ? &ring : nullptr});
  scheduler_testing::RunScheduleOne(state, *env);
  if (state.range(2) == 1) {
    state.counters["recorded"] = static_cast<double>(ring.recorded());
  }
}
BENCHMARK(BM_ScheduleOneRecording)
    ->ArgNames({"nodes", "most_allocated", "decisions"})
    ->Args({5000, 0, 0})
    ->Args({5000, 0, 1})
    ->Args({5000, 1, 0})
    ->Args({5000, 1, 1})
    ->Iterations(3000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_ScheduleOne(benchmark::State& state) {
  auto env = MakeEnv(static_cast<int>(state.range(0)), state.range(1) == 1,
                     static_cast<int>(state.range(2)));
  scheduler_testing::RunScheduleOne(state, *env);
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
    auto env = MakeEnv(num_nodes, /*most_allocated=*/false, 0);
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

// Requeues under churn, with and without the plugins' QueueingHints (issue 32, point 7):
// 100 nodes of 4 CPU, each holding a 3.5-CPU pod, and 200 pending 1-CPU pods that
// NodeResourcesFit rejects everywhere. Each iteration is one round of the churn a real
// cluster sends that can never make them fit: a 500m node joins, a node's allocatable
// shrinks by 100m (kubelet reservations), an assigned pod shrinks its memory (in-place
// resize) and a node reports a condition. Without hints each registered event moves
// every pending pod to activeQ (backoff zero here) and each is attempted again in vain;
// with them none moves. Counters: moves (pods moved to activeQ) and attempts per round.
void BM_RequeuesUnderChurn(benchmark::State& state) {
  constexpr int kNodes = 100;
  constexpr int kPending = 200;
  auto env = scheduler_testing::MakeBenchScheduler(scheduler_testing::BenchSchedulerOptions{
      .yaml = scheduler_testing::DefaultProfileYaml(),
      .num_nodes = kNodes,
      .node_capacity = {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}},
      .backoff = BackoffPolicy{.initial = absl::ZeroDuration(), .max = absl::ZeroDuration()},
      .queueing_hints = state.range(0) == 1});
  Scheduler& sched = *env->sched;
  std::vector<std::shared_ptr<const kube::Pod>> fillers;
  for (int n = 0; n < kNodes; ++n) {
    auto pod = std::make_shared<const kube::Pod>(MakePod()
                                                     .Name(absl::StrFormat("fill-%03d", n))
                                                     .Namespace("default")
                                                     .UID(absl::StrFormat("fill-%03d", n))
                                                     .NodeName(scheduler_testing::BenchNodeName(n))
                                                     .Req({{"cpu", "3500m"}, {"memory", "4Gi"}})
                                                     .Obj());
    fillers.push_back(pod);
    sched.OnPodAdd(pod);
  }
  for (int i = 0; i < kPending; ++i) {
    // In the fake API too: each failed attempt patches its PodScheduled condition.
    absl::StatusOr<kube::Pod> created =
        env->client.CreatePod(MakePod()
                                  .Name(absl::StrFormat("big-%03d", i))
                                  .Namespace("default")
                                  .UID(absl::StrFormat("big-%03d", i))
                                  .Req({{"cpu", "1"}})
                                  .Obj());
    TRIMARAN_CHECK(created.ok());
    sched.OnPodAdd(std::make_shared<const kube::Pod>(*std::move(created)));
  }
  auto drain = [&] {
    int64_t attempts = 0;
    while (sched.queue().Counts().active > 0) {
      sched.ScheduleOne();
      ++attempts;
    }
    sched.WaitForBindings();
    return attempts;
  };
  drain();
  TRIMARAN_CHECK(sched.queue().Counts().unschedulable == static_cast<size_t>(kPending));
  int64_t moves = 0;
  int64_t attempts = 0;
  int64_t round = 0;
  auto after_event = [&] {
    moves += static_cast<int64_t>(sched.queue().Counts().active);
    attempts += drain();
  };
  for (auto _ : state) {
    sched.OnNodeAdd(std::make_shared<const kube::Node>(
        MakeNode()
            .Name(absl::StrFormat("tiny-%06d", round))
            .Capacity({{"cpu", "500m"}, {"memory", "1Gi"}, {"pods", "110"}})
            .Obj()));
    after_event();
    // Node n (each node once in kNodes rounds): its allocatable shrinks, then it reports
    // a condition; its filler pod shrinks its memory.
    const int n = static_cast<int>(round % kNodes);
    const std::string name = scheduler_testing::BenchNodeName(n);
    auto old_node = std::make_shared<const kube::Node>(
        MakeNode().Name(name).Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}}).Obj());
    auto shrunk = std::make_shared<const kube::Node>(
        MakeNode()
            .Name(name)
            .Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}})
            .Allocatable({{"cpu", "3900m"}, {"memory", "16Gi"}, {"pods", "110"}})
            .Obj());
    sched.OnNodeUpdate(old_node, shrunk);
    after_event();
    auto heartbeat = std::make_shared<kube::Node>(*shrunk);
    heartbeat->status.conditions.push_back(
        kube::NodeCondition{.type = "Ready", .status = kube::ConditionStatus::kTrue});
    sched.OnNodeUpdate(shrunk, heartbeat);
    after_event();
    auto resized = std::make_shared<kube::Pod>(*fillers[n]);
    resized->spec.containers[0].resources.requests =
        kube::testing::MakeResourceList({{"cpu", "3500m"}, {"memory", "3Gi"}});
    sched.OnPodUpdate(fillers[n], resized);
    fillers[n] = resized;
    after_event();
    ++round;
  }
  state.counters["moves_per_round"] = static_cast<double>(moves) / static_cast<double>(round);
  state.counters["attempts_per_round"] = static_cast<double>(attempts) / static_cast<double>(round);
}
BENCHMARK(BM_RequeuesUnderChurn)
    ->ArgNames({"hints"})
    ->Arg(0)
    ->Arg(1)
    ->Iterations(20)  // at most kNodes: each node is changed once
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace trimaran::sched
