// kube-scheduler's scheduler_perf volume workloads (spec kube-scheduler-constraints.md
// §11), through the full in-process cycle of the real Scheduler with the default v1
// profile (VolumeBinding, VolumeRestrictions, VolumeZone and NodeVolumeLimits included;
// scheduler_benchmark_util.h: a no-op Bind, events discarded). Nodes as scheduler_perf's
// node-default (4 CPU / 32Gi / 110 pods); every pod (pod-default, 100m / 500Mi) has its
// own claim, fully bound (volumeName + pv.kubernetes.io/bind-completed) to its own 1Gi
// ReadOnlyMany PV, so these exercise the bound-claim path (no PreBind API calls), as
// upstream's do:
//
//   BM_SchedulingInTreePVs          in-tree awsElasticBlockStore PVs; nodes without CSINode
//   BM_SchedulingMigratedInTreePVs  the same PVs; every node has a CSINode with
//                                   ebs.csi.aws.com allocatable 39 and kubernetes.io/aws-ebs
//                                   migrated, so NodeVolumeLimits counts them as CSI volumes
//   BM_SchedulingCSIPVs             CSI PVs (ebs.csi.aws.com); CSINode count 39
//
// Init pods are placed round robin on the nodes directly; measured pods go through the
// scheduler. Counters as constraints_benchmark.cc (items_per_second = measured pods / wall
// time; threshold = scheduler_perf's CI floor).
//   build/scheduler/sched_volumes_benchmark --benchmark_filter=nodes:5000/

#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "kube/api/storage.h"
#include "kube/testing/storage_wrappers.h"
#include "kube/testing/wrappers.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_benchmark_util.h"
#include "scheduler/scheduler_test_util.h"

namespace trimaran::sched {
namespace {

using kube::testing::MakeClaim;
using kube::testing::MakePv;

constexpr char kEbsDriver[] = "ebs.csi.aws.com";

enum class Kind { kInTree, kMigrated, kCsi };

std::string NodeName(int i) { return scheduler_testing::BenchNodeName(i); }

std::unique_ptr<scheduler_testing::BenchScheduler> MakeEnv(int nodes, Kind kind) {
  auto env = scheduler_testing::MakePerfScheduler(nodes);
  if (kind != Kind::kInTree) {
    for (int i = 0; i < nodes; ++i) {
      kube::CSINode csi = kube::testing::MakeCsiNode(NodeName(i), {{kEbsDriver, 39}});
      if (kind == Kind::kMigrated) {
        csi.metadata.annotations[std::string(kube::kAnnMigratedPlugins)] = "kubernetes.io/aws-ebs";
      }
      env->sched->storage().Apply(std::move(csi));
    }
  }
  return env;
}

// Pod `prefix`-i in `ns` with its own claim bound to its own PV.
kube::Pod PodWithVolume(scheduler_testing::BenchScheduler& env, Kind kind,
                        const std::string& prefix, int64_t i, const std::string& ns) {
  const std::string name = absl::StrFormat("%s-%06d", prefix, i);
  const std::string pv_name = absl::StrFormat("pv-%s-%s", ns, name);
  kube::PersistentVolumeClaim claim = MakeClaim(ns, name)
                                          .AccessModes({std::string(kube::kReadOnlyMany)})
                                          .Request("1Gi")
                                          .BoundTo(pv_name)
                                          .Obj();
  kube::testing::PvWrapper pv = MakePv(pv_name)
                                    .Capacity("1Gi")
                                    .AccessModes({std::string(kube::kReadOnlyMany)})
                                    .ClaimRef(claim);
  if (kind == Kind::kCsi) {
    pv.Csi(kEbsDriver, "vol-" + pv_name);
  } else {
    pv.Ebs("vol-" + pv_name);
  }
  env.sched->storage().Apply(std::move(pv).Obj());
  env.sched->storage().Apply(std::move(claim));
  return kube::testing::WithClaims(scheduler_testing::PerfPod(prefix, i, ns).Obj(), {name});
}

void Run(benchmark::State& state, Kind kind, double threshold) {
  const int nodes = static_cast<int>(state.range(0));
  const int64_t init = state.range(1);
  auto env = MakeEnv(nodes, kind);
  scheduler_testing::PlaceInitPods(
      *env, init, [&](int64_t i) { return PodWithVolume(*env, kind, "init", i, "sched-0"); },
      [nodes](int64_t i) { return static_cast<int>(i % nodes); });
  // The measured pods' claims and PVs exist before the clock starts.
  std::vector<kube::Pod> pods;
  pods.reserve(static_cast<size_t>(state.max_iterations));
  for (int64_t i = 0; i < static_cast<int64_t>(state.max_iterations); ++i) {
    pods.push_back(PodWithVolume(*env, kind, "measured", i, "sched-1"));
  }
  scheduler_testing::RunScheduleOne(state, *env,
                                    [&pods](int64_t i) { return pods[static_cast<size_t>(i)]; });
  scheduler_testing::ReportPerfCounters(state, threshold);
}

// SchedulingInTreePVs/5000Nodes_2000Pods (threshold 290).
void BM_SchedulingInTreePVs(benchmark::State& state) { Run(state, Kind::kInTree, 290); }
// SchedulingMigratedInTreePVs/5000Nodes_5000Pods (threshold 100).
void BM_SchedulingMigratedInTreePVs(benchmark::State& state) { Run(state, Kind::kMigrated, 100); }
// SchedulingCSIPVs/5000Nodes_5000Pods (threshold 100).
void BM_SchedulingCSIPVs(benchmark::State& state) { Run(state, Kind::kCsi, 100); }

// {nodes, init pods}, measured pods = iterations (TRIMARAN_PERF_BENCHMARK).
TRIMARAN_PERF_BENCHMARK(BM_SchedulingInTreePVs, 1000, 2000);
TRIMARAN_PERF_BENCHMARK(BM_SchedulingMigratedInTreePVs, 5000, 5000);
TRIMARAN_PERF_BENCHMARK(BM_SchedulingCSIPVs, 5000, 5000);

}  // namespace
}  // namespace trimaran::sched
