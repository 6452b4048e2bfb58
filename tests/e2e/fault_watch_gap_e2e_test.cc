// Fault scenario 9 (ctest label `fault`, issue 14): a pod is bound and deleted inside a
// 410 gap. The real trimaran-scheduler binds pod "gap" through a FaultProxy in front of
// the real kube-apiserver 1.37.2 (watch cache off, so a compacted revision answers 410
// as etcd does); while its Binding is held at the proxy, the scheduler's watches are cut
// and gated, so it never sees the pod bound: the pod stays assumed in its cache. The
// Binding is then let through, the pod deleted and etcd compacted, and the watches
// released: they resume from a compacted resourceVersion, get 410 Gone, and re-list;
// the pod is absent from the list, so the informer delivers its delete as a tombstone
// (DeletedFinalStateUnknown). The scheduler must drop the assumed pod on that tombstone:
//
//   - scheduler_cache_size{type="assumed_pods"} returns to 0 and {type="pods"}
//     to the live pods (0);
//   - node requests equal the sum over live pods: the node's whole capacity is free
//     again, so four pods of one CPU each bind on the 4-CPU node (a leaked assumed pod
//     would hold one CPU, and the fourth would stay pending);
//   - the invariants audit of harness/invariants.h holds.
//
// docs/benchmarks.md records the recovery time.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/testing/status_matchers.h"
#include "gtest/gtest.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/fault_proxy.h"
#include "tests/e2e/harness/invariants.h"
#include "tests/e2e/harness/proc_metrics.h"
#include "tests/e2e/harness/scheduler_process.h"

namespace trimaran::e2e {
namespace {

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
const RequestMatch kBind = {.method = "POST", .path_regex = kBindingPathRegex};

TEST(FaultWatchGapTest, PodBoundAndDeletedInsideA410GapLeavesNoAssumedPod) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Cluster> cluster,
                                Cluster::Start({.control_plane = {.watch_cache = false}}));
  ControlPlane& cp = cluster->control_plane();
  TRIMARAN_ASSERT_OK(cluster->AddNode("node-0", {.cpu = "4", .memory = "16Gi"}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<FaultProxy> proxy,
                                FaultProxy::Start({.upstream = cp.server(),
                                                   .upstream_ca_file = cp.ca_file(),
                                                   .tls_cert_dir = cp.dir() + "/proxy"}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::string kubeconfig,
                                cp.WriteKubeconfigFor("via-proxy", proxy->url(), proxy->ca_file()));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerProcess sched,
      StartSchedulerProcess({.binary = kSchedulerBin,
                             .dir = cp.dir(),
                             .tag = "gap",
                             .config_yaml = SchedulerConfigYaml("trimaran", false),
                             .kubeconfig = kubeconfig}));
  const std::string base = absl::StrCat("https://127.0.0.1:", sched.secure_port);
  ASSERT_TRUE(Eventually(
      [&] {
        int status = 0;
        Curl(base + "/readyz", &status);
        return status == 200;
      },
      absl::Seconds(30)))
      << sched.process->LogTail();
  auto cache_size = [&](const std::string& type) {
    return SumSamples(Curl(base + "/metrics"), "scheduler_cache_size",
                      {absl::StrCat("type=\"", type, "\"")});
  };

  // 1. Hold every Binding at the proxy; the scheduler assumes "gap" and binds.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(RuleId hold,
                                proxy->AddRule(FaultRule::Hang(kBind, absl::InfiniteDuration())));
  TRIMARAN_ASSERT_OK(cluster->CreatePods(1, [](int) {
    return PodShape{.name = "gap", .scheduler_name = "trimaran", .cpu = "1", .memory = "1Gi"};
  }));
  ASSERT_TRUE(Eventually([&] { return proxy->HeldRequests() >= 1; }, absl::Seconds(30)))
      << sched.process->LogTail();
  EXPECT_EQ(cache_size("assumed_pods"), 1);

  // 2. Blind the scheduler: gate new watches, cut every connection (the watches and the
  // held Binding; the binder retries on a new connection, which the rule holds again).
  const int64_t mark = proxy->NextSeq();
  proxy->GateWatches();
  proxy->CutConnections();
  ASSERT_TRUE(Eventually(
      [&] {
        return proxy->CountRequests({.watch = true}, mark) >= 2 &&
               proxy->CountRequests(kBind, mark) >= 1 && proxy->HeldRequests() >= 3;
      },
      absl::Seconds(30)))
      << "watches and the Binding should come back (and be held); " << sched.process->LogTail();

  // 3. Inside the gap: let the Binding through, then delete the bound pod and compact.
  proxy->RemoveRule(hold);
  ASSERT_TRUE(Eventually(
      [&] {
        auto pod = cluster->client().GetPod("default", "gap");
        return pod.ok() && !pod->spec.node_name.empty();
      },
      absl::Seconds(30)))
      << sched.process->LogTail();
  TRIMARAN_ASSERT_OK(
      cluster->client()
          .Raw("DELETE", "/api/v1/namespaces/default/pods/gap",
               R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})",
               "application/json")
          .status());
  ASSERT_TRUE(Eventually([&] { return !cluster->client().GetPod("default", "gap").ok(); },
                         absl::Seconds(30)));
  TRIMARAN_ASSERT_OK(cp.CompactEtcd().status());
  // Still assumed: the scheduler has seen neither the binding nor the delete.
  EXPECT_EQ(cache_size("assumed_pods"), 1);

  // 4. Release the watches: 410, re-list, the tombstone.
  const absl::Time released = absl::Now();
  const int64_t release_mark = proxy->NextSeq();
  proxy->ReleaseWatches();
  ASSERT_TRUE(Eventually([&] { return cache_size("assumed_pods") == 0 && cache_size("pods") == 0; },
                         absl::Seconds(30)))
      << "assumed_pods " << cache_size("assumed_pods") << " pods " << cache_size("pods") << "\n"
      << sched.process->LogTail();
  const double recovery_s = absl::ToDoubleSeconds(absl::Now() - released);
  // The gap was real: the pod informer re-listed (its resumed watch got 410 Gone).
  EXPECT_GE(proxy->CountRequests({.method = "GET", .path_regex = "/api/v1/pods", .watch = false},
                                 release_mark),
            1);
  std::printf("scenario 9: assumed pod dropped %.2f s after the watches were released\n",
              recovery_s);

  // 5. The node's whole capacity is free: four 1-CPU pods bind.
  TRIMARAN_ASSERT_OK(cluster->CreatePods(4, [](int i) {
    return PodShape{.name = absl::StrCat("after-", i),
                    .scheduler_name = "trimaran",
                    .cpu = "1",
                    .memory = "1Gi"};
  }));
  const absl::Time created = absl::Now();
  ASSERT_TRUE(Eventually(
      [&] {
        auto audit = AuditCluster(cluster->client(), "default", {proxy.get()});
        return audit.ok() && audit->bound == 4;
      },
      absl::Seconds(30)))
      << sched.process->LogTail();
  std::printf("scenario 9: 4 pods filling the node bound in %.2f s\n",
              absl::ToDoubleSeconds(absl::Now() - created));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterAudit audit,
                                AuditCluster(cluster->client(), "default", {proxy.get()}));
  EXPECT_EQ(audit.Violations(4), "");
  // Full: a pod the stale cache still counted would have left one unbound, one it did
  // not would overcommit the node.
  EXPECT_GE(audit.CpuRequestedFraction(), 0.9);
  EXPECT_EQ(cache_size("assumed_pods"), 0);
}

}  // namespace
}  // namespace trimaran::e2e
