// Pods trimaran does not place (issue 32, point 6), against the reference: the real
// trimaran-scheduler (its default profile, schedulerName trimaran) and the real
// kube-scheduler 1.37 (profile kube) on one real etcd + kube-apiserver 1.37 (127.0.0.1),
// two 4-CPU nodes. For each scheduler the same two pods: "plain" (100m) and "claims",
// which also has spec.resourceClaims [{name: gpu, resourceClaimTemplateName: one-gpu}]
// (Dynamic Resource Allocation, GA and on in 1.37; no ResourceClaim is ever made from the
// template, since no resourceclaim controller runs).
//
//   - Both "plain" pods are bound (both schedulers work).
//   - Neither "claims" pod is bound: kube-scheduler's DynamicResources waits for the
//     claim; trimaran, which does not implement DRA, refuses it: a FailedScheduling event
//     and a PodScheduled=False condition whose message names spec.resourceClaims and
//     kube-scheduler, and trimaran_unsupported_pods_total{feature="dynamic_resources"}.
//     Before issue 32 trimaran bound it to a node, where it could never start.
//
// The Workload API's spec.schedulingGroup is refused the same way (unit tests in
// scheduler/); it is not exercised here because its feature gate (GenericWorkload) is off
// in 1.37, so the apiserver drops the field.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/pod.h"
#include "kube/rest_client.h"
#include "kube/testing/wrappers.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/curl.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/kube_scheduler.h"
#include "tests/e2e/harness/scheduler_process.h"

namespace trimaran::e2e {
namespace {

using kube::testing::MakePod;
using ::testing::HasSubstr;

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;

kube::Pod TestPod(const std::string& name, const std::string& scheduler, bool claims) {
  kube::Pod pod = MakePod()
                      .Name(name)
                      .Namespace("default")
                      .SchedulerName(scheduler)
                      .Req({{"cpu", "100m"}, {"memory", "128Mi"}})
                      .Obj();
  if (claims) {
    pod.spec.resource_claims = {{.name = "gpu", .resource_claim_template_name = "one-gpu"}};
  }
  return pod;
}

TEST(UnsupportedPodsE2ETest, DraPodsAreNeverBoundByEitherScheduler) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Cluster> cluster, Cluster::Start());
  for (const char* node : {"node-a", "node-b"}) {
    TRIMARAN_ASSERT_OK(cluster->AddNode(node, {.cpu = "4", .memory = "16Gi"}));
  }
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerProcess trimaran,
      StartSchedulerProcess({.binary = kSchedulerBin,
                             .dir = cluster->control_plane().dir(),
                             .tag = "unsupported",
                             .config_yaml = SchedulerConfigYaml("trimaran", false),
                             .kubeconfig = cluster->kubeconfig()}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<KubeScheduler> kube,
      KubeScheduler::Start(cluster->control_plane(), {.kubeconfig = cluster->kubeconfig(),
                                                      .profiles_yaml = "  - schedulerName: kube\n",
                                                      .tag = "kube-scheduler-unsupported"}));
  kube::RestClient& client = cluster->client();
  for (const std::string sched : {"trimaran", "kube"}) {
    TRIMARAN_ASSERT_OK(client.CreatePod(TestPod(sched + "-plain", sched, false)).status());
    absl::StatusOr<kube::Pod> created = client.CreatePod(TestPod(sched + "-claims", sched, true));
    TRIMARAN_ASSERT_OK(created.status());
    ASSERT_EQ(created->spec.resource_claims.size(), 1u) << "the apiserver dropped resourceClaims";
  }
  auto node_of = [&](const std::string& name) {
    absl::StatusOr<kube::Pod> pod = client.GetPod("default", name);
    return pod.ok() ? pod->spec.node_name : std::string("?");
  };
  ASSERT_TRUE(Eventually(
      [&] { return !node_of("trimaran-plain").empty() && !node_of("kube-plain").empty(); },
      absl::Seconds(60)))
      << "trimaran-plain on \"" << node_of("trimaran-plain") << "\", kube-plain on \""
      << node_of("kube-plain") << "\"\n"
      << trimaran.process->LogTail() << kube->process().LogTail();

  // trimaran says why, in an event and the pod's condition.
  std::vector<std::string> notes;
  ASSERT_TRUE(Eventually(
      [&] {
        notes = cluster->EventNotes("default", "FailedScheduling", "trimaran-claims");
        return !notes.empty();
      },
      absl::Seconds(30)))
      << trimaran.process->LogTail();
  EXPECT_EQ(notes[0],
            "0/2 nodes are available: pod uses Dynamic Resource Allocation (spec.resourceClaims: "
            "gpu), which trimaran does not implement; schedule it with kube-scheduler "
            "(spec.schedulerName: default-scheduler).");
  absl::StatusOr<kube::Pod> refused = client.GetPod("default", "trimaran-claims");
  TRIMARAN_ASSERT_OK(refused.status());
  const kube::PodCondition* cond = kube::FindCondition(refused->status, kube::kPodScheduled);
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->status, kube::ConditionStatus::kFalse);
  EXPECT_EQ(cond->reason, "Unschedulable");
  EXPECT_EQ(cond->message, notes[0]);

  // Some seconds more: neither claims pod is bound.
  absl::SleepFor(absl::Seconds(5));
  EXPECT_EQ(node_of("trimaran-claims"), "");
  EXPECT_EQ(node_of("kube-claims"), "") << "the reference bound a pod whose claim does not exist";
  int status = 0;
  const std::string metrics =
      Curl(absl::StrCat("https://127.0.0.1:", trimaran.secure_port, "/metrics"), &status);
  EXPECT_EQ(status, 200);
  EXPECT_THAT(metrics, HasSubstr("trimaran_unsupported_pods_total{feature=\"dynamic_resources\"}"));
  absl::StatusOr<kube::Pod> reference = client.GetPod("default", "kube-claims");
  const kube::PodCondition* kube_cond =
      reference.ok() ? kube::FindCondition(reference->status, kube::kPodScheduled) : nullptr;
  std::printf("[unsupported] trimaran: %s\n[unsupported] kube-scheduler 1.37: %s\n",
              notes[0].c_str(),
              kube_cond == nullptr ? "no PodScheduled condition (waiting at PreEnqueue)"
                                   : kube_cond->message.c_str());
}

}  // namespace
}  // namespace trimaran::e2e
