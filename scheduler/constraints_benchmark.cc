// kube-scheduler's scheduler_perf workloads for InterPodAffinity and PodTopologySpread
// (spec kube-scheduler-constraints.md §11), through the full in-process cycle of the
// real Scheduler with the default v1 profile (scheduler_benchmark_util.h: a no-op Bind,
// events discarded). Nodes as scheduler_perf's node-default (4 CPU / 32Gi / 110 pods),
// pods as pod-default (100m / 500Mi) with the workload's labels and terms. Init pods are
// placed on their nodes directly (as the scheduler would place them: one per node for
// anti-affinity, round robin otherwise); the measured pods go through the scheduler.
//
//   BM_<Workload>/<nodes>/<init>/<measured>
//     items_per_second   measured pods / wall time (scheduler_perf's SchedulingThroughput
//                        is the same ratio, with a real apiserver in the loop)
//     threshold          the workload's scheduler_perf CI floor in Kubernetes 1.37
//                        (pods/s, test/integration/scheduler_perf/*/performance-config.yaml)
//     p50_us / p99_us    per-pod cycle latency
//     peak_rss_mb        getrusage's ru_maxrss (process-wide: filter to one workload)
//
// The 500-node sizes are what ctest runs (label benchmark-smoke); the 5,000-node ones are
// the figures in docs/benchmarks.md:
//   cmake --build build --target sched_constraints_benchmark -j2
//   build/scheduler/sched_constraints_benchmark --benchmark_filter=nodes:5000/

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "kube/api/selector_object.h"
#include "kube/testing/wrappers.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_benchmark_util.h"
#include "scheduler/scheduler_test_util.h"

namespace trimaran::sched {
namespace {

using kube::UnsatisfiableConstraintAction;
using kube::testing::MakeLabelSelector;
using kube::testing::PodWrapper;

using scheduler_testing::PlaceInitPods;

constexpr char kHostname[] = "kubernetes.io/hostname";
constexpr char kZone[] = "topology.kubernetes.io/zone";

// Nodes: hostname, and a zone from `zones` (round robin).
std::unique_ptr<scheduler_testing::BenchScheduler> MakeEnv(int nodes,
                                                           std::vector<std::string> zones) {
  return scheduler_testing::MakePerfScheduler(nodes, std::move(zones));
}

// pod-default: 100m / 500Mi in namespace `ns`.
PodWrapper BasePod(const std::string& prefix, int64_t i, const std::string& ns) {
  return scheduler_testing::PerfPod(prefix, i, ns);
}

// The affinity terms of the scheduler_perf templates reach both namespaces.
kube::PodAffinityTerm Term(const std::string& color, const std::string& key) {
  kube::PodAffinityTerm t;
  t.label_selector = MakeLabelSelector().Label("color", color).Obj();
  t.topology_key = key;
  t.namespaces = {"sched-0", "sched-1"};
  return t;
}

// pod-with-pod-anti-affinity: color=green, required anti-affinity to green on hostname.
kube::Pod AntiAffinityPod(const std::string& prefix, int64_t i, const std::string& ns) {
  kube::Pod p = BasePod(prefix, i, ns).Label("color", "green").Label("name", "test").Obj();
  p.spec.affinity.emplace().pod_anti_affinity.emplace().required.push_back(
      Term("green", kHostname));
  return p;
}
// pod-with-pod-affinity: color=blue, required affinity to blue on zone.
kube::Pod AffinityPod(const std::string& prefix, int64_t i, const std::string& ns) {
  kube::Pod p = BasePod(prefix, i, ns).Label("color", "blue").Obj();
  p.spec.affinity.emplace().pod_affinity.emplace().required.push_back(Term("blue", kZone));
  return p;
}
// pod-with-preferred-pod-affinity: color=red, preferred affinity (1) to red on hostname.
kube::Pod PreferredAffinityPod(const std::string& prefix, int64_t i, const std::string& ns) {
  kube::Pod p = BasePod(prefix, i, ns).Label("color", "red").Obj();
  p.spec.affinity.emplace().pod_affinity.emplace().preferred.push_back({1, Term("red", kHostname)});
  return p;
}
// pod-with-preferred-pod-anti-affinity: color=yellow, preferred anti-affinity (1).
kube::Pod PreferredAntiAffinityPod(const std::string& prefix, int64_t i, const std::string& ns) {
  kube::Pod p = BasePod(prefix, i, ns).Label("color", "yellow").Obj();
  p.spec.affinity.emplace().pod_anti_affinity.emplace().preferred.push_back(
      {1, Term("yellow", kHostname)});
  return p;
}
// pod-with-topology-spreading: color=blue, maxSkew 5 on zone.
kube::Pod SpreadPod(int64_t i, UnsatisfiableConstraintAction when) {
  return BasePod("spread", i, "sched-1")
      .Label("color", "blue")
      .SpreadConstraint(5, kZone, when, MakeLabelSelector().Label("color", "blue").Obj())
      .Obj();
}

struct Size {
  int nodes;
  int64_t init;
};
Size SizeOf(const benchmark::State& state) {
  return {static_cast<int>(state.range(0)), state.range(1)};
}

void Finish(benchmark::State& state, double threshold) {
  scheduler_testing::ReportPerfCounters(state, threshold);
}

// SchedulingPodAntiAffinity/5000Nodes_2000Pods (threshold 180 in 1.37).
void BM_PodAntiAffinity(benchmark::State& state) {
  const Size size = SizeOf(state);
  auto env = MakeEnv(size.nodes, {"zone1"});
  PlaceInitPods(
      *env, size.init, [](int64_t i) { return AntiAffinityPod("init", i, "sched-0"); },
      [&](int64_t i) { return static_cast<int>(i % size.nodes); });
  scheduler_testing::RunScheduleOne(
      state, *env, [](int64_t i) { return AntiAffinityPod("measured", i, "sched-1"); });
  Finish(state, 180);
}

// SchedulingPodAffinity/5000Nodes_5000Pods: every node in zone1 (threshold 70 in 1.37).
void BM_PodAffinity(benchmark::State& state) {
  const Size size = SizeOf(state);
  auto env = MakeEnv(size.nodes, {"zone1"});
  PlaceInitPods(
      *env, size.init, [](int64_t i) { return AffinityPod("init", i, "sched-0"); },
      [&](int64_t i) { return static_cast<int>(i % size.nodes); });
  scheduler_testing::RunScheduleOne(
      state, *env, [](int64_t i) { return AffinityPod("measured", i, "sched-1"); });
  Finish(state, 70);
}

// SchedulingPreferredPodAffinity/5000Nodes_5000Pods (threshold 160 in 1.37).
void BM_PreferredPodAffinity(benchmark::State& state) {
  const Size size = SizeOf(state);
  auto env = MakeEnv(size.nodes, {"zone1"});
  PlaceInitPods(
      *env, size.init, [](int64_t i) { return PreferredAffinityPod("init", i, "sched-0"); },
      [&](int64_t i) { return static_cast<int>(i % size.nodes); });
  scheduler_testing::RunScheduleOne(
      state, *env, [](int64_t i) { return PreferredAffinityPod("measured", i, "sched-1"); });
  Finish(state, 160);
}

// SchedulingPreferredPodAntiAffinity/5000Nodes_5000Pods (threshold 190 in 1.37).
void BM_PreferredPodAntiAffinity(benchmark::State& state) {
  const Size size = SizeOf(state);
  auto env = MakeEnv(size.nodes, {"zone1"});
  PlaceInitPods(
      *env, size.init, [](int64_t i) { return PreferredAntiAffinityPod("init", i, "sched-0"); },
      [&](int64_t i) { return static_cast<int>(i % size.nodes); });
  scheduler_testing::RunScheduleOne(
      state, *env, [](int64_t i) { return PreferredAntiAffinityPod("measured", i, "sched-1"); });
  Finish(state, 190);
}

// MixedSchedulingBasePod/5000Nodes_5000Pods: init = equal parts default, affinity,
// anti-affinity, preferred affinity and preferred anti-affinity pods; measured = default
// pods (threshold 540 in 1.37).
void BM_MixedSchedulingBasePod(benchmark::State& state) {
  const Size size = SizeOf(state);
  auto env = MakeEnv(size.nodes, {"zone1"});
  const int64_t part = size.init / 5;
  auto node_of = [&](int64_t i) { return static_cast<int>(i % size.nodes); };
  PlaceInitPods(
      *env, part, [](int64_t i) { return BasePod("default", i, "sched-0").Obj(); }, node_of);
  PlaceInitPods(
      *env, part, [](int64_t i) { return AffinityPod("affinity", i, "sched-0"); }, node_of);
  PlaceInitPods(
      *env, part, [](int64_t i) { return AntiAffinityPod("anti", i, "sched-0"); }, node_of);
  PlaceInitPods(
      *env, part, [](int64_t i) { return PreferredAffinityPod("pref", i, "sched-0"); }, node_of);
  PlaceInitPods(
      *env, part, [](int64_t i) { return PreferredAntiAffinityPod("prefanti", i, "sched-0"); },
      node_of);
  scheduler_testing::RunScheduleOne(
      state, *env, [](int64_t i) { return BasePod("measured", i, "sched-1").Obj(); });
  Finish(state, 540);
}

// TopologySpreading/5000Nodes_5000Pods: 3 zones, default init pods, measured pods with a
// DoNotSchedule maxSkew 5 zone constraint (threshold 460).
void BM_TopologySpreading(benchmark::State& state) {
  const Size size = SizeOf(state);
  auto env = MakeEnv(size.nodes, {"moon-1", "moon-2", "moon-3"});
  PlaceInitPods(
      *env, size.init, [](int64_t i) { return BasePod("init", i, "sched-0").Obj(); },
      [&](int64_t i) { return static_cast<int>(i % size.nodes); });
  scheduler_testing::RunScheduleOne(state, *env, [](int64_t i) {
    return SpreadPod(i, UnsatisfiableConstraintAction::kDoNotSchedule);
  });
  Finish(state, 460);
}

// PreferredTopologySpreading/5000Nodes_5000Pods: the same, ScheduleAnyway (threshold 340).
void BM_PreferredTopologySpreading(benchmark::State& state) {
  const Size size = SizeOf(state);
  auto env = MakeEnv(size.nodes, {"moon-1", "moon-2", "moon-3"});
  PlaceInitPods(
      *env, size.init, [](int64_t i) { return BasePod("init", i, "sched-0").Obj(); },
      [&](int64_t i) { return static_cast<int>(i % size.nodes); });
  scheduler_testing::RunScheduleOne(state, *env, [](int64_t i) {
    return SpreadPod(i, UnsatisfiableConstraintAction::kScheduleAnyway);
  });
  Finish(state, 340);
}

// DefaultTopologySpreading/5000Nodes_50000Pods: a Service selects the measured pods, so
// the System default constraints (hostname 3, zone 5, ScheduleAnyway) spread them
// (threshold 160).
void BM_DefaultTopologySpreading(benchmark::State& state) {
  const Size size = SizeOf(state);
  auto env = MakeEnv(size.nodes, {"moon-1", "moon-2", "moon-3"});
  auto svc = std::make_shared<kube::SelectorObject>();
  svc->metadata.namespace_name = "sched-1";
  svc->metadata.name = "svc";
  svc->selector = kube::LabelSelector{.match_labels = {{"app", "spread"}}};
  env->sched->objects().Apply(kube::SelectorResource::kServices, svc);
  PlaceInitPods(
      *env, size.init, [](int64_t i) { return BasePod("init", i, "sched-0").Obj(); },
      [&](int64_t i) { return static_cast<int>(i % size.nodes); });
  scheduler_testing::RunScheduleOne(state, *env, [](int64_t i) {
    return BasePod("measured", i, "sched-1").Label("app", "spread").Obj();
  });
  Finish(state, 160);
}

// {nodes, init pods}, measured pods = iterations (TRIMARAN_PERF_BENCHMARK).
TRIMARAN_PERF_BENCHMARK(BM_PodAntiAffinity, 1000, 2000);
TRIMARAN_PERF_BENCHMARK(BM_PodAffinity, 5000, 5000);
TRIMARAN_PERF_BENCHMARK(BM_PreferredPodAffinity, 5000, 5000);
TRIMARAN_PERF_BENCHMARK(BM_PreferredPodAntiAffinity, 5000, 5000);
TRIMARAN_PERF_BENCHMARK(BM_MixedSchedulingBasePod, 10000, 5000);
TRIMARAN_PERF_BENCHMARK(BM_TopologySpreading, 5000, 5000);
TRIMARAN_PERF_BENCHMARK(BM_PreferredTopologySpreading, 5000, 5000);
// 10,000 measured pods of upstream's 50,000 (the rate is flat after the first thousands).
TRIMARAN_PERF_BENCHMARK(BM_DefaultTopologySpreading, 5000, 10000);

}  // namespace
}  // namespace trimaran::sched
