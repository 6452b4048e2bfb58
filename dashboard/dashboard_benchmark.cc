// The node view (`trimaranctl nodes`, the dashboards) in process at the scale: 5,000 nodes
// and 150,000 pods (30 per node) with a load-watcher snapshot for every node. Measures what one
// refresh of the live view costs once the objects are in memory: building the ClusterView (requests
// summed, usage converted, prices looked up, sorted), rendering one screen (header + 40 nodes), and
// the whole `-o json` document. docs/benchmarks.md has figures.
#include <malloc.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "common/clock.h"
#include "dashboard/documents.h"
#include "dashboard/informer_source.h"
#include "dashboard/model.h"
#include "dashboard/terminal/layout.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"

namespace trimaran::dashboard {
namespace {

using terminal::LayoutOptions;
using terminal::RenderTable;

constexpr int kNodes = 5000;
constexpr int kPodsPerNode = 30;

struct Cluster {
  std::vector<kube::Node> nodes;
  PodTotals pods;  // as ApiClusterSource keeps them
  lw::WatcherMetrics metrics;
  PriceTable prices = PriceTable::Builtin();
  absl::Time now = absl::FromUnixSeconds(1767225600);
};

const Cluster& Get() {
  static const Cluster* const cluster = [] {
    auto* c = new Cluster;
    const char* types[] = {"m6i.xlarge", "c6i.2xlarge", "r6g.large", "m7g.4xlarge"};
    auto m = lw::testing::MakeWatcherMetrics()
                 .Timestamp(absl::ToUnixSeconds(c->now) - 20)
                 .Window("15m")
                 .Source("Prometheus");
    for (int i = 0; i < kNodes; ++i) {
      const std::string name = absl::StrCat("ip-10-0-", i / 250, "-", i % 250, ".ec2.internal");
      kube::Node n = kube::testing::MakeNode()
                         .Name(name)
                         .Label("node.kubernetes.io/instance-type", types[i % 4])
                         .Label("karpenter.sh/capacity-type", i % 5 == 0 ? "spot" : "on-demand")
                         .Label("topology.kubernetes.io/zone",
                                absl::StrCat("us-east-1", std::string(1, "abc"[i % 3])))
                         .Capacity({{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}})
                         .Condition("Ready", kube::ConditionStatus::kTrue)
                         .Obj();
      n.metadata.creation_timestamp = c->now - absl::Minutes(i);
      c->nodes.push_back(std::move(n));
      m.Node(name).Cpu(lw::kOpAvg, i % 97).Memory(lw::kOpAvg, (i * 7) % 89);
      for (int p = 0; p < kPodsPerNode; ++p) {
        c->pods.Add(SummarizePod(kube::testing::MakePod()
                                     .Name(absl::StrCat("pod-", i, "-", p))
                                     .Namespace("default")
                                     .NodeName(name)
                                     .Req({{"cpu", absl::StrCat(100 + p * 10, "m")},
                                           {"memory", absl::StrCat(128 + p, "Mi")}})
                                     .Phase(kube::PodPhase::kRunning)
                                     .Obj()));
      }
    }
    c->metrics = m.Obj();
    return c;
  }();
  return *cluster;
}

ModelOptions Options(const Cluster& c) {
  ModelOptions o;
  o.resources = {"cpu", "memory"};
  o.prices = &c.prices;
  o.now = c.now;
  return o;
}

void BM_BuildClusterView(benchmark::State& state) {
  const Cluster& c = Get();
  for (auto _ : state) {
    absl::StatusOr<ClusterView> v = BuildClusterView(c.nodes, c.pods, &c.metrics, "", Options(c));
    benchmark::DoNotOptimize(v);
  }
  state.counters["nodes"] = kNodes;
  state.counters["pods"] = kNodes * kPodsPerNode;
}
BENCHMARK(BM_BuildClusterView)->Unit(benchmark::kMillisecond);

void BM_RenderScreen(benchmark::State& state) {
  const Cluster& c = Get();
  const ClusterView v = *BuildClusterView(c.nodes, c.pods, &c.metrics, "", Options(c));
  LayoutOptions o;
  o.color = true;
  o.max_nodes = 40;
  for (auto _ : state) {
    std::string s = RenderTable(v, o);
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_RenderScreen)->Unit(benchmark::kMillisecond);

void BM_RenderJson(benchmark::State& state) {
  const Cluster& c = Get();
  const ClusterView v = *BuildClusterView(c.nodes, c.pods, &c.metrics, "", Options(c));
  LayoutOptions o;
  for (auto _ : state) {
    std::string s = RenderJson(v, o.target_percent);
    benchmark::DoNotOptimize(s);
    state.counters["bytes"] = static_cast<double>(s.size());
  }
}
BENCHMARK(BM_RenderJson)->Unit(benchmark::kMillisecond);

// One live-view refresh at this scale, as the command runs it: InformerClusterSource::Fetch
// (copy the informers' nodes and the pod summaries, read the watcher) + BuildClusterView
// + one screen. The informers were synced from an in-memory apiserver (FakeClient) once.
// The in-memory apiserver of the live-view benchmarks: 5,000 nodes, 150,000 pods.
kube::testing::FakeClient& LiveCluster() {
  static kube::testing::FakeClient* const kube = [] {
    auto* k = new kube::testing::FakeClient();
    const Cluster& c = Get();
    for (const kube::Node& n : c.nodes) (void)k->CreateNode(n);
    for (int i = 0; i < kNodes; ++i) {
      for (int p = 0; p < kPodsPerNode; ++p) {
        (void)k->CreatePod(kube::testing::MakePod()
                               .Name(absl::StrCat("pod-", i, "-", p))
                               .Namespace("default")
                               .NodeName(c.nodes[static_cast<size_t>(i)].metadata.name)
                               .Req({{"cpu", absl::StrCat(100 + p * 10, "m")},
                                     {"memory", absl::StrCat(128 + p, "Mi")}})
                               .Phase(kube::PodPhase::kRunning)
                               .Obj());
      }
    }
    return k;
  }();
  return *kube;
}

// Heap in use now (glibc's allocator), in MB.
double HeapMB() { return static_cast<double>(mallinfo2().uordblks) / (1 << 20); }

void BM_LiveRefresh(benchmark::State& state) {
  kube::testing::FakeClient* const kube = &LiveCluster();
  const Cluster& c = Get();
  lw::testing::FakeLoadWatcherClient watcher;
  watcher.Set(c.metrics);
  const double heap_before = HeapMB();
  InformerClusterSource source(*kube, &watcher, "", "15m", RealClock::Get());
  if (!source.Start(absl::Minutes(5)).ok()) {
    state.SkipWithError("informers did not sync");
    return;
  }
  // What the live view itself holds after sync (its informers' stores, the totals, the
  // watcher snapshot); the in-memory apiserver's pods were allocated before.
  state.counters["view_heap_MB"] = HeapMB() - heap_before;
  LayoutOptions o;
  o.color = true;
  o.max_nodes = 40;
  for (auto _ : state) {
    absl::StatusOr<ClusterInputs> in = source.Fetch();
    absl::StatusOr<ClusterView> v =
        BuildClusterView(in->nodes, in->pods, in->metrics.get(), "", Options(c));
    std::string screen = RenderTable(*v, o);
    benchmark::DoNotOptimize(screen);
  }
}
BENCHMARK(BM_LiveRefresh)->Unit(benchmark::kMillisecond);

// For comparison: a plain pod informer keeping the 150,000 full pods, as the live view
// did before it slimmed them down.
void BM_FullPodInformerHeap(benchmark::State& state) {
  kube::testing::FakeClient* const kube = &LiveCluster();
  for (auto _ : state) {
    const double heap_before = HeapMB();
    kube::Informer<kube::Pod> pods(kube::PodListerWatcher(*kube), RealClock::Get());
    pods.Start();
    if (!pods.WaitForSync(absl::Minutes(5))) {
      state.SkipWithError("informer did not sync");
      return;
    }
    state.counters["informer_heap_MB"] = HeapMB() - heap_before;
    pods.RequestStop();
    pods.Stop();
  }
}
BENCHMARK(BM_FullPodInformerHeap)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace trimaran::dashboard
