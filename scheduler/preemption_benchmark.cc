// kube-scheduler's scheduler_perf preemption workloads (spec kube-scheduler-constraints.md
// §11) through the full in-process cycle of the real Scheduler with the default v1 profile
// (DefaultPreemption included): a FakeClient stands in for the apiserver, and a real pod
// informer on it brings every write back (the preemptor's nomination, the victims'
// deletions, new pods), as in the daemon; Bind is a no-op that counts
// (scheduler_benchmark_util.h). The queue's backoff is zero, so the figures measure
// scheduling and preemption work, not backoff waits. Nodes are node-default (4 CPU / 32Gi /
// 110 pods); init pods are created bound to their nodes (round robin).
//
//   BM_PreemptionBasic/nodes:1000     4,000 low-priority 900m pods, then 1,000
//       high-priority (10) 3000m pods, each of which must evict three: pods/s = high pods
//       bound / wall time; preemptions_per_s.
//   BM_PreemptionAsync/nodes:5000     20,000 low 900m pods; 5,000 default pods (100m /
//       500Mi) measured while a high-priority 3000m pod arrives every 200 ms and preempts.
//   BM_Unschedulable/nodes:5000/init:<n>   n default init pods; 10,000 default pods
//       measured while a high-priority pod that fits no node (9 CPU) arrives every 200 ms.
//
//   items_per_second   measured pods / wall time (scheduler_perf's SchedulingThroughput)
//   threshold          scheduler_perf's CI floor (pods/s, spec §11); 0: none
//   preemptions        victims' DELETE calls / 3 (Basic, Async)
//
// ctest runs the small sizes (label benchmark-smoke); the figures in docs/benchmarks.md:
//   build/scheduler/sched_preemption_benchmark --benchmark_filter='nodes:(1000|5000)'

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "common/check.h"
#include "common/clock.h"
#include "kube/informer.h"
#include "kube/testing/wrappers.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_benchmark_util.h"
#include "scheduler/scheduler_test_util.h"

namespace trimaran::sched {
namespace {

using kube::testing::MakePod;

std::string NodeName(int i) { return absl::StrFormat("node-%05d", i); }

struct Workload {
  int nodes = 0;
  int init_pods = 0;
  std::string init_cpu = "100m";
  int32_t init_priority = 0;
  // The measured pods: default pods, or (high_measured) high-priority preemptors.
  int measured = 0;
  bool high_measured = false;
  // High-priority pods injected every `inject_every` while the measured pods run (0: none).
  absl::Duration inject_every = absl::ZeroDuration();
  std::string high_cpu = "3000m";
  double threshold = 0;
};

kube::Pod Pod(const std::string& name, const std::string& cpu, int32_t priority,
              const std::string& node = "") {
  auto w = MakePod().Name(name).Namespace("default").UID(name).Req(
      {{"cpu", cpu}, {"memory", cpu == "100m" ? "500Mi" : "1Gi"}});
  if (priority != 0) w.Priority(priority);
  if (!node.empty()) w.NodeName(node);
  return w.Obj();
}

void CheckOk(const absl::Status& s) { TRIMARAN_CHECK(s.ok()) << s; }

void RunWorkload(benchmark::State& state, const Workload& w) {
  std::atomic<int64_t> measured_bound{0};
  std::atomic<int64_t> high_bound{0};
  auto env = scheduler_testing::MakeBenchScheduler(scheduler_testing::BenchSchedulerOptions{
      .yaml = scheduler_testing::DefaultProfileYaml(),
      .num_nodes = w.nodes,
      .node_capacity = {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}},
      .backoff = BackoffPolicy{.initial = absl::ZeroDuration(), .max = absl::ZeroDuration()},
      .on_bind = [&](const kube::Pod& p) {
        if (absl::StartsWith(p.metadata.name, "m-")) measured_bound.fetch_add(1);
        if (absl::StartsWith(p.metadata.name, "h-")) high_bound.fetch_add(1);
      }});
  Scheduler& sched = *env->sched;
  for (int i = 0; i < w.init_pods; ++i) {
    CheckOk(env->client
                .CreatePod(Pod(absl::StrFormat("i-%06d", i), w.init_cpu, w.init_priority,
                               NodeName(i % w.nodes)))
                .status());
  }
  kube::Informer<kube::Pod> informer(kube::PodListerWatcher(env->client), RealClock::Get());
  informer.AddEventHandlers(kube::EventHandlers<kube::Pod>{
      .on_add = [&](const std::shared_ptr<const kube::Pod>& p) { sched.OnPodAdd(p); },
      .on_update = [&](const std::shared_ptr<const kube::Pod>& o,
                       const std::shared_ptr<const kube::Pod>& n) { sched.OnPodUpdate(o, n); },
      .on_delete = [&](const std::shared_ptr<const kube::Pod>& p, bool) { sched.OnPodDelete(p); },
  });
  informer.Start();
  TRIMARAN_CHECK(informer.WaitForSync(absl::Minutes(2)));
  TRIMARAN_CHECK(sched.cache().PodCount() == w.init_pods);

  const int deletes_before = env->client.Calls("DeletePod");
  int64_t injected = 0;
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    for (int i = 0; i < w.measured; ++i) {
      CheckOk(env->client
                  .CreatePod(w.high_measured ? Pod(absl::StrFormat("h-%06d", i), w.high_cpu, 10)
                                             : Pod(absl::StrFormat("m-%06d", i), "100m", 0))
                  .status());
    }
    auto next_inject = std::chrono::steady_clock::now();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    auto done = [&] {
      return w.high_measured ? high_bound.load() >= w.measured
                             : measured_bound.load() >= w.measured;
    };
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      if (w.inject_every > absl::ZeroDuration() &&
          std::chrono::steady_clock::now() >= next_inject) {
        CheckOk(env->client.CreatePod(Pod(absl::StrFormat("h-%06d", injected++), w.high_cpu, 10))
                    .status());
        next_inject += absl::ToChronoNanoseconds(w.inject_every);
      }
      if (sched.queue().Counts().active == 0) {
        sched.queue().FlushBackoffQCompleted();
        if (sched.queue().Counts().active == 0) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          continue;
        }
      }
      sched.ScheduleOne();
    }
    sched.WaitForBindings();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  informer.Stop();
  sched.Stop();
  const int64_t measured_done = w.high_measured ? high_bound.load() : measured_bound.load();
  const double preemptions = (env->client.Calls("DeletePod") - deletes_before) / 3.0;
  state.counters["pods_per_s"] = static_cast<double>(measured_done) / seconds;
  state.counters["measured_bound"] = static_cast<double>(measured_done);
  state.counters["preemptions"] = preemptions;
  state.counters["preemptions_per_s"] = preemptions / seconds;
  state.counters["high_bound"] = static_cast<double>(high_bound.load());
  state.counters["injected"] = static_cast<double>(injected);
  state.counters["threshold"] = w.threshold;
  state.counters["seconds"] = seconds;
}

void BM_PreemptionBasic(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  RunWorkload(state, Workload{.nodes = nodes,
                              .init_pods = 4 * nodes,
                              .init_cpu = "900m",
                              .measured = nodes,
                              .high_measured = true});
}
BENCHMARK(BM_PreemptionBasic)
    ->ArgNames({"nodes"})
    ->Arg(100)
    ->Arg(1000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_PreemptionAsync(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  RunWorkload(state, Workload{.nodes = nodes,
                              .init_pods = 4 * nodes,
                              .init_cpu = "900m",
                              .measured = nodes,
                              .inject_every = absl::Milliseconds(200),
                              .threshold = 570});
}
BENCHMARK(BM_PreemptionAsync)
    ->ArgNames({"nodes"})
    ->Arg(500)
    ->Arg(5000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Unschedulable(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const int init = static_cast<int>(state.range(1));
  RunWorkload(state, Workload{.nodes = nodes,
                              .init_pods = init,
                              .measured = 2 * nodes,
                              .inject_every = absl::Milliseconds(200),
                              .high_cpu = "9",
                              .threshold = init >= 4 * nodes ? 600.0 : 590.0});
}
BENCHMARK(BM_Unschedulable)
    ->ArgNames({"nodes", "init"})
    ->Args({500, 100})
    ->Args({5000, 100})
    ->Args({5000, 20000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace trimaran::sched
