// SchedulePod on 5,000 nodes with simple fake filter/score plugins (no cache, no queue):
// the cost of the runtime itself, per pod.
//
//   build-runtime/scheduler/runtime/sched_runtime_benchmark
//
// Args: {nodes, percentageOfNodesToScore (0 = adaptive), parallelism}.

#include <memory>

#include "benchmark/benchmark.h"
#include "kube/testing/wrappers.h"
#include "scheduler/runtime/runtime_test_util.h"
#include "scheduler/runtime/schedule_algorithm.h"

namespace trimaran::sched {
namespace {

void BM_SchedulePod(benchmark::State& bm) {
  const int nodes = static_cast<int>(bm.range(0));
  const int percentage = static_cast<int>(bm.range(1));
  const int parallelism = static_cast<int>(bm.range(2));
  runtime_testing::ThreadedHandle handle(parallelism);
  handle.fake().snapshot().Set(runtime_testing::MakeBigNodes(nodes), {});
  Registry registry;
  (void)registry.Register("Fit", runtime_testing::FactoryOf([] {
                            return std::make_unique<runtime_testing::SimpleFitPlugin>();
                          }));
  (void)registry.Register(
      "MostAllocated", runtime_testing::FactoryOf([] {
        return std::make_unique<runtime_testing::SimpleMostAllocatedPlugin>(true);
      }));
  ProfileConfig config{.filter = {"Fit"}, .score = {{"MostAllocated", 1}}};
  if (percentage > 0) config.percentage_of_nodes_to_score = percentage;
  auto fw = Framework::Create(config, registry, handle);
  if (!fw.ok()) {
    bm.SkipWithError("framework");
    return;
  }
  const kube::Pod pod = kube::testing::MakePod()
                            .Name("p")
                            .Namespace("default")
                            .Req({{"cpu", "100m"}, {"memory", "500Mi"}})
                            .Obj();
  SchedulingAlgorithmState algo;
  RandomSource random(1);
  for (auto _ : bm) {
    CycleState state;
    ScheduleResult r =
        SchedulePod(**fw, state, pod, handle.snapshot_lister().NodeInfos(), algo, random);
    benchmark::DoNotOptimize(r);
  }
  bm.SetItemsProcessed(bm.iterations());
}
BENCHMARK(BM_SchedulePod)
    ->Args({5000, 0, 1})
    ->Args({5000, 0, 2})
    ->Args({5000, 100, 1})
    ->Args({5000, 100, 2})
    ->Args({500, 0, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace trimaran::sched
