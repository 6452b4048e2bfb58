// Per-pod scheduling cost of TargetLoadPacking at 5,000 nodes (issue 7, "Benchmark"):
// the full in-process cycle through the real Scheduler (queue → PreFilter → Filter →
// PreScore → Score → select → Reserve → Assume → bind with a no-op binder), as
// scheduler_benchmark.cc beside it, with these profiles (it lives in scheduler/, not in
// the plugin's folder, because it runs the whole Scheduler with every in-tree plugin):
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
//   BM_ScheduleOne/5000/4   MostAllocated + LoadVariationRiskBalancing (CPU AVG and STD)
//   BM_ScheduleOne/5000/5   MostAllocated + LowRiskOverCommitment (CPU AVG and STD)
//
//   cmake --build build --target target_load_packing_benchmark -j2
//   TRIMARAN_BENCH_PARALLELISM=1 build/scheduler/target_load_packing_benchmark
//     --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true
//     --benchmark_report_aggregates_only=true
//   (one command line)
// (interleaved repetitions: this machine's speed drifts by several % between runs, which
// is the size of the effect measured; compare the medians).

#include <memory>
#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "common/status_macros.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"
#include "scheduler/scheduler_benchmark_util.h"

namespace trimaran::sched {
namespace {

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

// extra: 0 none, 1 TargetLoadPacking, 2 ConstantScore, 3 BatchConstantScore,
// 4 LoadVariationRiskBalancing, 5 LowRiskOverCommitment.
constexpr const char* kExtraPlugin[] = {"",
                                        "TargetLoadPacking",
                                        "ConstantScore",
                                        "BatchConstantScore",
                                        "LoadVariationRiskBalancing",
                                        "LowRiskOverCommitment"};
bool LoadAware(int extra) { return extra == 1 || extra >= 4; }

std::string ProfileYaml(int extra) {
  const std::string plugin = kExtraPlugin[extra];
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
      "        enabled:\n"
      "          - name: NodeResourcesFit\n",
      // The load-aware plugins also run at PreScore and Reserve.
      LoadAware(extra) ? absl::StrCat("          - name: ", plugin, "\n") : "",
      "      score:\n"
      "        disabled:\n"
      "          - name: \"*\"\n"
      "        enabled:\n"
      "          - name: NodeResourcesFit\n"
      "            weight: 1\n",
      extra == 0 ? "" : absl::StrCat("          - name: ", plugin, "\n            weight: 1\n"));
}

void BM_ScheduleOne(benchmark::State& state) {
  const int num_nodes = static_cast<int>(state.range(0));
  // CPU AVG 0..59 %: nodes on both sides of the default target (40).
  lw::testing::FakeLoadWatcherClient load_watcher;
  auto metrics = lw::testing::MakeWatcherMetrics().Timestamp(absl::ToUnixSeconds(absl::Now()));
  for (int i = 0; i < num_nodes; ++i) {
    metrics.Node(absl::StrFormat("node-%05d", i)).Cpu(lw::kOpAvg, i % 60);
    // LoadVariationRiskBalancing and LowRiskOverCommitment also read the spread.
    if (state.range(1) >= 4) metrics.Cpu(lw::kOpStd, i % 7);
  }
  load_watcher.Set(metrics.Obj());
  auto env = scheduler_testing::MakeBenchScheduler(scheduler_testing::BenchSchedulerOptions{
      .yaml = ProfileYaml(static_cast<int>(state.range(1))),
      .num_nodes = num_nodes,
      .load_watcher = &load_watcher,
      .register_plugins = [](Registry& registry) -> absl::Status {
        TRIMARAN_RETURN_IF_ERROR(registry.Register(
            ConstantScore::kName, [](const PluginArgs&, Handle&) -> absl::StatusOr<PluginPtr> {
              return std::make_unique<ConstantScore>();
            }));
        return registry.Register(BatchConstantScore::kName,
                                 [](const PluginArgs&, Handle&) -> absl::StatusOr<PluginPtr> {
                                   return std::make_unique<BatchConstantScore>();
                                 });
      }});
  scheduler_testing::RunScheduleOne(state, *env);
}
BENCHMARK(BM_ScheduleOne)
    ->ArgNames({"nodes", "extra"})
    ->Args({5000, 0})
    ->Args({5000, 1})
    ->Args({5000, 2})
    ->Args({5000, 3})
    ->Args({5000, 4})
    ->Args({5000, 5})
    ->Iterations(3000)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace trimaran::sched
