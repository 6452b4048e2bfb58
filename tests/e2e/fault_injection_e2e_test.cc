// The fault-injection suite (ctest label `fault`): the real trimaran-scheduler binary
// against the real kube-apiserver 1.20.2, with faults injected by the FaultProxy
// (tests/e2e/harness/fault_proxy.h) between them. Every scenario asserts the
// invariants of tests/e2e/harness/invariants.h (0 pods lost, 0 bound twice, 0 nodes
// overcommitted, no failure written on a bound pod) and a bounded time to recover;
// docs/benchmarks.md records the recovery times.
#include <signal.h>

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/fault_proxy.h"
#include "tests/e2e/harness/invariants.h"
#include "tests/e2e/harness/scheduler_process.h"

namespace trimaran::e2e {
namespace {

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;

class FaultInjectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(cluster_, Cluster::Start());
    ControlPlane& cp = cluster_->control_plane();
    TRIMARAN_ASSERT_OK_AND_ASSIGN(proxy_, FaultProxy::Start({.upstream = cp.server(),
                                                             .upstream_ca_file = cp.ca_file(),
                                                             .tls_cert_dir = cp.dir() + "/proxy"}));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        kubeconfig_, cp.WriteKubeconfigFor("via-proxy", proxy_->url(), proxy_->ca_file()));
  }

  absl::StatusOr<SchedulerProcess> StartScheduler(const std::string& tag) {
    return StartSchedulerProcess({.binary = kSchedulerBin,
                                  .dir = cluster_->control_plane().dir(),
                                  .tag = tag,
                                  .config_yaml = SchedulerConfigYaml("trimaran", false),
                                  .kubeconfig = kubeconfig_});
  }

  absl::Status CreatePods(int n, const std::string& prefix) {
    return cluster_->CreatePods(n, [&](int i) {
      return PodShape{.name = absl::StrCat(prefix, "-", i),
                      .scheduler_name = "trimaran",
                      .cpu = "100m",
                      .memory = "128Mi"};
    });
  }

  int Bound() {
    auto pods = cluster_->client().ListPods("default", {});
    if (!pods.ok()) return -1;
    int n = 0;
    for (const kube::Pod& p : pods->items) n += !p.spec.node_name.empty();
    return n;
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<FaultProxy> proxy_;
  std::string kubeconfig_;
};

// Scenario 6: a Bind commits upstream but the scheduler sees 504 instead of 201. The REST
// client retries the POST, gets 409 (already bound), confirms with a GET that the pod is
// bound to the node it chose, and treats it as bound: PodScheduled=True, one Scheduled
// event, no FailedScheduling.
TEST_F(FaultInjectionTest, BindCommitsButItsAnswerIsA504) {
  constexpr int kPods = 20;
  const RequestMatch bind = {.method = "POST", .path_regex = kBindingPathRegex};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      RuleId replaced, proxy_->AddRule(FaultRule::ReplaceResponse(
                                           bind, CannedResponse::KubeStatus(
                                                     504, "Timeout", "injected gateway timeout"))
                                           .Times(3)));
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 4), {.cpu = "4", .memory = "16Gi"}));
  TRIMARAN_ASSERT_OK(CreatePods(kPods, "web"));
  const absl::Time start = absl::Now();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(SchedulerProcess sched, StartScheduler("bind504"));
  ASSERT_TRUE(Eventually([&] { return Bound() == kPods; }, absl::Seconds(60)))
      << Bound() << "/" << kPods << "\n"
      << sched.process->LogTail();
  const absl::Duration recovery = absl::Now() - start;
  EXPECT_EQ(proxy_->Hits(replaced), 3);

  // Let the events land, then audit.
  ASSERT_TRUE(Eventually(
      [&] {
        auto audit = AuditCluster(cluster_->client(), "default");
        int scheduled = 0;
        if (audit.ok()) {
          for (const auto& [pod, n] : audit->scheduled_events) scheduled += n;
        }
        return scheduled >= kPods;
      },
      absl::Seconds(30)));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(ClusterAudit audit, AuditCluster(cluster_->client(), "default"));
  EXPECT_EQ(audit.Violations(kPods), "");
  EXPECT_TRUE(audit.failed_scheduling.empty());
  for (int i = 0; i < kPods; ++i) {
    EXPECT_EQ(audit.scheduled_events[absl::StrCat("web-", i)], 1) << "web-" << i;
  }
  // The three pods whose first answer was replaced were POSTed again and got 409.
  int conflicts = 0;
  for (const RequestRecord& r : proxy_->Requests()) {
    if (r.request.method == "POST" && absl::EndsWith(r.request.path, "/binding")) {
      conflicts += r.client_status == 409;
    }
  }
  EXPECT_EQ(conflicts, 3);
  std::cout << "[scenario 6] all " << kPods << " pods bound in " << recovery << "\n";

  sched.process->Signal(SIGTERM);
  absl::StatusOr<int> code = sched.process->Wait(absl::Seconds(30));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << sched.process->LogTail();
}

}  // namespace
}  // namespace trimaran::e2e
