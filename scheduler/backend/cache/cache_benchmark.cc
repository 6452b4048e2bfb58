// Benchmarks of the scheduler cache (issue 4):
//   BM_Fill150kPodsRss               5,000 nodes × 30 pods (150,000 pods) in the cache
//                                    plus a snapshot; reports peak RSS (getrusage) and
//                                    the RSS growth due to the pod objects, the cache and
//                                    the snapshot. Registered first so that the process's
//                                    peak is its own (later benchmarks reuse freed heap).
//   BM_UpdateSnapshotOneNodeChanged  UpdateSnapshot on 5,000 nodes (30 pods each) when one
//                                    node changed since the last update.
//   BM_AssumePod                     AssumePod on a 5,000-node, 150,000-pod cache (the
//                                    ForgetPods that undo it run with the timer paused).
//
//   build-<you>/scheduler/backend/cache/sched_cache_benchmark
//   build-<you>/scheduler/backend/cache/sched_cache_benchmark --benchmark_filter=Rss
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "common/check.h"
#include "common/stats/registry.h"
#include "common/stats/scope.h"
#include "common/testing/fake_clock.h"
#include "kube/testing/wrappers.h"
#include "scheduler/backend/cache/cache_impl.h"

namespace trimaran::sched {
namespace {

using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;

constexpr int kNodes = 5000;
constexpr int kPodsPerNode = 30;

std::shared_ptr<const kube::Node> MakeBenchNode(int i) {
  return std::make_shared<const kube::Node>(
      MakeNode()
          .Name(absl::StrCat("node-", i))
          .UID(absl::StrCat("node-uid-", i))
          .Label("kubernetes.io/hostname", absl::StrCat("node-", i))
          .Label("topology.kubernetes.io/zone", absl::StrCat("zone-", i % 3))
          .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}})
          .Obj());
}

// A typical small pod: one container, cpu and memory requests, a couple of labels, a
// 36-character UID.
std::shared_ptr<const kube::Pod> MakeBenchPod(int i, const std::string& node) {
  return std::make_shared<const kube::Pod>(
      MakePod()
          .Name(absl::StrCat("pod-", i))
          .Namespace("default")
          .UID(absl::StrCat("00000000-0000-0000-0000-", 1000000000000LL + i))
          .Label("app", "bench")
          .NodeName(node)
          .Req({{"cpu", "100m"}, {"memory", "500Mi"}})
          .Obj());
}

struct Fixture {
  testing::FakeClock clock;
  stats::Registry registry;
  CacheImpl cache{clock, StatsScopes{.upstream = stats::Scope(registry, "scheduler_"),
                                     .own = stats::Scope(registry, "trimaran_")}};
  std::vector<std::shared_ptr<const kube::Node>> nodes;
};

std::unique_ptr<Fixture> NewFilledCache(int pods_per_node) {
  auto f = std::make_unique<Fixture>();
  int pod = 0;
  for (int i = 0; i < kNodes; ++i) {
    f->nodes.push_back(MakeBenchNode(i));
    TRIMARAN_CHECK(f->cache.AddNode(f->nodes.back()).ok());
    for (int j = 0; j < pods_per_node; ++j) {
      TRIMARAN_CHECK(f->cache.AddPod(MakeBenchPod(pod++, f->nodes.back()->metadata.name)).ok());
    }
  }
  return f;
}

int64_t MaxRssKb() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;  // KiB on Linux
}

int64_t CurrentRssKb() {
  long pages = 0;
  long resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

void BM_Fill150kPodsRss(benchmark::State& state) {
  for (auto _ : state) {
    const int64_t rss_start = CurrentRssKb();
    // The pods and nodes as an informer store would hold them.
    std::vector<std::shared_ptr<const kube::Node>> nodes;
    std::vector<std::shared_ptr<const kube::Pod>> pods;
    nodes.reserve(kNodes);
    pods.reserve(kNodes * kPodsPerNode);
    for (int i = 0; i < kNodes; ++i) {
      nodes.push_back(MakeBenchNode(i));
      for (int j = 0; j < kPodsPerNode; ++j) {
        pods.push_back(MakeBenchPod(i * kPodsPerNode + j, nodes.back()->metadata.name));
      }
    }
    const int64_t rss_objects = CurrentRssKb();
    auto f = std::make_unique<Fixture>();
    for (const auto& node : nodes) TRIMARAN_CHECK(f->cache.AddNode(node).ok());
    for (const auto& pod : pods) TRIMARAN_CHECK(f->cache.AddPod(pod).ok());
    const int64_t rss_cache = CurrentRssKb();
    Snapshot snapshot;
    TRIMARAN_CHECK(f->cache.UpdateSnapshot(snapshot).ok());
    const int64_t rss_snapshot = CurrentRssKb();
    TRIMARAN_CHECK(f->cache.PodCount() == kNodes * kPodsPerNode);

    state.counters["pods"] = f->cache.PodCount();
    state.counters["peak_rss_MB"] = static_cast<double>(MaxRssKb()) / 1024;
    state.counters["objects_MB"] = static_cast<double>(rss_objects - rss_start) / 1024;
    state.counters["cache_MB"] = static_cast<double>(rss_cache - rss_objects) / 1024;
    state.counters["snapshot_MB"] = static_cast<double>(rss_snapshot - rss_cache) / 1024;
  }
}
BENCHMARK(BM_Fill150kPodsRss)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_UpdateSnapshotOneNodeChanged(benchmark::State& state) {
  const std::unique_ptr<Fixture> f = NewFilledCache(kPodsPerNode);
  Snapshot snapshot;
  TRIMARAN_CHECK(f->cache.UpdateSnapshot(snapshot).ok());
  int i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    // One node changes (a pod assumed on it and forgotten again: two generations).
    const auto pod = MakeBenchPod(10'000'000 + i, f->nodes[i % kNodes]->metadata.name);
    TRIMARAN_CHECK(f->cache.AssumePod(pod).ok());
    TRIMARAN_CHECK(f->cache.ForgetPod(*pod).ok());
    ++i;
    state.ResumeTiming();
    TRIMARAN_CHECK(f->cache.UpdateSnapshot(snapshot).ok());
  }
  TRIMARAN_CHECK(snapshot.LastUpdateCopiedNodesForTest() == 1);
  state.counters["nodes"] = static_cast<double>(snapshot.NumNodes());
}
BENCHMARK(BM_UpdateSnapshotOneNodeChanged)->Unit(benchmark::kMicrosecond);

void BM_AssumePod(benchmark::State& state) {
  // 5,000 nodes with 30 pods each; assume onto a rotating node, forget in batches.
  const std::unique_ptr<Fixture> f = NewFilledCache(kPodsPerNode);
  constexpr int kBatch = 1024;
  std::vector<std::shared_ptr<const kube::Pod>> pods;
  for (int i = 0; i < kBatch; ++i) {
    pods.push_back(MakeBenchPod(20'000'000 + i, f->nodes[(i * 7) % kNodes]->metadata.name));
  }
  int next = 0;
  for (auto _ : state) {
    if (next == kBatch) {
      state.PauseTiming();
      for (const auto& pod : pods) TRIMARAN_CHECK(f->cache.ForgetPod(*pod).ok());
      next = 0;
      state.ResumeTiming();
    }
    TRIMARAN_CHECK(f->cache.AssumePod(pods[next++]).ok());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AssumePod);

}  // namespace
}  // namespace trimaran::sched
