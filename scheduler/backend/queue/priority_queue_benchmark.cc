// Add + Pop throughput of PriorityQueue: 10k pods with mixed priorities are added,
// then all popped (and marked Done), per iteration.
//
//   build-*/scheduler/backend/queue/sched_queue_benchmark

#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "common/stats/stats.h"
#include "common/testing/fake_clock.h"
#include "kube/testing/wrappers.h"
#include "scheduler/backend/queue/priority_queue.h"

namespace trimaran::sched {
namespace {

void BM_AddPop(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<std::shared_ptr<const kube::Pod>> pods;
  pods.reserve(n);
  for (int i = 0; i < n; ++i) {
    pods.push_back(std::make_shared<const kube::Pod>(kube::testing::MakePod()
                                                         .Name("pod-" + std::to_string(i))
                                                         .Namespace("default")
                                                         .Priority(i % 7)
                                                         .Obj()));
  }
  trimaran::testing::FakeClock clock;
  stats::Registry registry;
  PriorityQueue queue(clock, stats::Scope(registry, "scheduler_"));
  for (auto _ : state) {
    for (const auto& pod : pods) queue.Add(pod);
    for (int i = 0; i < n; ++i) {
      std::optional<QueuedPodInfo> info = queue.Pop();
      queue.Done(*info->pod);
      benchmark::DoNotOptimize(info);
    }
  }
  state.SetItemsProcessed(state.iterations() * n);  // pods added and popped
}
BENCHMARK(BM_AddPop)->Arg(10'000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace trimaran::sched
