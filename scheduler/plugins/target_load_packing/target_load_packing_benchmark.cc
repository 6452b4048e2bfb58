// Per-pod scheduling cost of TargetLoadPacking at 5,000 nodes (issue 7, "Benchmark"):
// the full in-process cycle through the real Scheduler (queue → PreFilter → Filter →
// PreScore → Score → select → Reserve → Assume → bind with a no-op binder), as
// scheduler/scheduler_benchmark.cc, with these profiles:
//
//   BM_ScheduleOne/5000/0   MostAllocated (NodeResourcesFit, cpu+memory) alone
//   BM_ScheduleOne/5000/1   MostAllocated + TargetLoadPacking (weight 1 each), with a
//                           load watcher (FakeLoadWatcherClient) holding CPU AVG metrics
//                           for every node
//   BM_ScheduleOne/5000/2   MostAllocated + ConstantScore, a Score plugin that returns 0
//                           and does nothing else, scored node by node (the default
//                           ScoreNodes: one virtual Score call per node)
//   BM_ScheduleOne/5000/3   MostAllocated + BatchConstantScore, the same through its own
//                           ScoreNodes (one call per run of nodes): the runtime's own cost
//                           of a second batch Score plugin, the floor under
//                           TargetLoadPacking's overhead
//
//   cmake --build build --target target_load_packing_benchmark -j2
//   TRIMARAN_BENCH_PARALLELISM=1 build/scheduler/plugins/target_load_packing/
//     target_load_packing_benchmark --benchmark_repetitions=10
//     --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true
//   (one command line)
// (interleaved repetitions: this machine's speed drifts by several % between runs, which
// is the size of the effect measured; compare the medians).

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "common/check.h"
#include "common/clock.h"
#include "common/stats/registry.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_test_util.h"

namespace trimaran::sched {
namespace {

using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;

class NoopBinder final : public BindPlugin {
 public:
  static constexpr absl::string_view kName = "NoopBinder";
  absl::string_view Name() const override { return kName; }
  Status Bind(CycleState&, const kube::Pod&, absl::string_view) override { return Status(); }
};

class ConstantScore final : public ScorePlugin {
 public:
  static constexpr absl::string_view kName = "ConstantScore";
  absl::string_view Name() const override { return kName; }
  ScoreResult Score(const CycleState&, const kube::Pod&, const NodeInfo&) const override {
    return ScoreResult::Of(0);
  }
};

class BatchConstantScore final : public ScorePlugin {
 public:
  static constexpr absl::string_view kName = "BatchConstantScore";
  absl::string_view Name() const override { return kName; }
  ScoreResult Score(const CycleState&, const kube::Pod&, const NodeInfo&) const override {
    return ScoreResult::Of(0);
  }
  Status ScoreNodes(const CycleState&, const kube::Pod&, std::span<const NodeInfo* const>,
                    std::span<NodeScore> scores) const override {
    for (NodeScore& s : scores) s.score = 0;
    return Status();
  }
};

class NullRecorder final : public EventRecorder {
 public:
  void Eventf(const kube::Pod&, const kube::Pod*, EventType, absl::string_view, absl::string_view,
              absl::string_view) override {}
};

// extra: 0 none, 1 TargetLoadPacking, 2 ConstantScore, 3 BatchConstantScore.
std::string ProfileYaml(int extra) {
  const bool tlp = extra == 1;
  return absl::StrCat(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "  - schedulerName: default-scheduler\n"
      "    pluginConfig:\n"
      "      - name: NodeResourcesFit\n"
      "        args:\n"
      "          scoringStrategy:\n"
      "            type: MostAllocated\n"
      "            resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]\n"
      "    plugins:\n"
      "      multiPoint:\n"
      "        enabled:\n",
      tlp ? "          - name: TargetLoadPacking\n" : "          - name: NodeResourcesFit\n",
      "      score:\n"
      "        disabled:\n"
      "          - name: \"*\"\n"
      "        enabled:\n"
      "          - name: NodeResourcesFit\n"
      "            weight: 1\n",
      tlp          ? "          - name: TargetLoadPacking\n            weight: 1\n"
      : extra == 2 ? "          - name: ConstantScore\n            weight: 1\n"
      : extra == 3 ? "          - name: BatchConstantScore\n            weight: 1\n"
                   : "");
}

struct Env {
  kube::testing::FakeClient client;
  stats::Registry stats;
  Registry registry;
  NullRecorder recorder;
  lw::testing::FakeLoadWatcherClient load_watcher;
  std::unique_ptr<Scheduler> sched;
};

void CheckOk(const absl::Status& status) { TRIMARAN_CHECK(status.ok()); }

std::unique_ptr<Env> MakeEnv(int num_nodes, int extra) {
  auto env = std::make_unique<Env>();
  CheckOk(plugins::RegisterInTreePlugins(env->registry));
  CheckOk(env->registry.Register(NoopBinder::kName,
                                 [](const PluginArgs&, Handle&) -> absl::StatusOr<PluginPtr> {
                                   return std::make_unique<NoopBinder>();
                                 }));
  CheckOk(env->registry.Register(ConstantScore::kName,
                                 [](const PluginArgs&, Handle&) -> absl::StatusOr<PluginPtr> {
                                   return std::make_unique<ConstantScore>();
                                 }));
  CheckOk(env->registry.Register(BatchConstantScore::kName,
                                 [](const PluginArgs&, Handle&) -> absl::StatusOr<PluginPtr> {
                                   return std::make_unique<BatchConstantScore>();
                                 }));
  auto profiles = scheduler_testing::ProfilesFromYaml(ProfileYaml(extra));
  CheckOk(profiles.status());
  for (ProfileConfig& p : *profiles) p.bind = {std::string(NoopBinder::kName)};
  auto metrics = lw::testing::MakeWatcherMetrics().Timestamp(absl::ToUnixSeconds(absl::Now()));
  for (int i = 0; i < num_nodes; ++i) {
    metrics.Node(absl::StrFormat("node-%05d", i)).Cpu(lw::kOpAvg, i % 60);
  }
  env->load_watcher.Set(metrics.Obj());
  SchedulerOptions options;
  options.run_queue_flushers = false;
  options.load_watcher = &env->load_watcher;
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
  std::unique_ptr<Env> env = MakeEnv(num_nodes, static_cast<int>(state.range(1)));
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
    ->ArgNames({"nodes", "extra"})
    ->Args({5000, 0})
    ->Args({5000, 1})
    ->Args({5000, 2})
    ->Args({5000, 3})
    ->Iterations(3000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace trimaran::sched
