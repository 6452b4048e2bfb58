// In-place pod resize (issue 32, point 1), against the reference: the real
// trimaran-scheduler (its default profile, schedulerName trimaran) and the real
// kube-scheduler 1.37 (profile kube) on one real etcd + kube-apiserver 1.37 (127.0.0.1).
// Each scheduler has a 4-CPU node of its own (label sched=<name>, which its pods select)
// and on it a running pod "big" of 3 CPU. No kubelet runs: the test writes the pod
// status a kubelet would write at each step of a shrink, through the status subresource.
//
//   1. big runs with 3 CPU (spec, allocatedResources and resources all 3).
//   2. big is shrunk to 1 CPU through the resize subresource; the kubelet has allocated
//      the 1 CPU but the runtime still runs 3 (PodResizeInProgress). kube-scheduler 1.37
//      counts the max of spec, allocated and actual, 3 CPU, so a 2-CPU "probe" pod does
//      not fit: both schedulers refuse it with the same FailedScheduling message, and
//      neither binds it. Before issue 32 trimaran counted the spec only (1 CPU) and bound
//      the probe onto a node that was then overbooked by 1 CPU.
//   3. The runtime applies the shrink (resources 1 CPU, the condition cleared): the pod
//      update is a scale-down event, the probe is requeued at once (no 5-minute flush)
//      and both schedulers bind it.
//
// SidecarsAndPodLevelResourcesCountAs137Does (issue 32, point 2), on the same nodes:
//   1. "sidecar" (app 1 CPU + a restartPolicy: Always init container of 1 CPU) binds and
//      holds 2 CPU; a 2.5-CPU probe is refused by both with the same message (counting
//      the sidecar as an ordinary init container, as upstream Trimaran's load plugins
//      did, would leave 3 CPU and bind it).
//   2. "pod-level" (spec.resources.requests 1.5 CPU over a 100m container) binds; a
//      1-CPU probe is refused by both with the same message (0.5 CPU are left; counting
//      the containers would leave 1.9).
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

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
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/kube_scheduler.h"
#include "tests/e2e/harness/scheduler_process.h"

namespace trimaran::e2e {
namespace {

using kube::testing::MakePod;

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
const std::vector<std::string> kSchedulers = {"trimaran", "kube"};

// The status a kubelet writes for big's one container "c0": allocated and actually
// running cpu, and the pod's resize conditions.
std::string BigStatus(const std::string& allocated_cpu, const std::string& actual_cpu,
                      bool in_progress) {
  const std::string conditions = in_progress ? R"([{"type":"PodResizeInProgress","status":"True",)"
                                               R"("lastTransitionTime":"2026-12-04T00:00:00Z"}])"
                                             : "[]";
  return absl::StrCat(
      R"({"status":{"phase":"Running","startTime":"2026-12-04T00:00:00Z","conditions":)",
      conditions,
      R"(,"containerStatuses":[{"name":"c0","image":"registry.k8s.io/pause:3.10",)"
      R"("imageID":"","ready":true,"restartCount":0,"started":true,)"
      R"("state":{"running":{"startedAt":"2026-12-04T00:00:00Z"}},)"
      R"("allocatedResources":{"cpu":")",
      allocated_cpu, R"(","memory":"128Mi"},"resources":{"requests":{"cpu":")", actual_cpu,
      R"(","memory":"128Mi"}}}]}})");
}

class InPlaceResizeE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(cluster_, Cluster::Start());
    for (const std::string& s : kSchedulers) {
      TRIMARAN_ASSERT_OK(
          cluster_->AddNode("node-" + s, {.cpu = "4", .memory = "16Gi", .labels = {{"sched", s}}}));
    }
  }

  std::string NodeOf(const std::string& pod) {
    absl::StatusOr<kube::Pod> p = cluster_->client().GetPod("default", pod);
    return p.ok() ? p->spec.node_name : std::string("?");
  }

  absl::Status PatchStatus(const std::string& pod, const std::string& body) {
    return cluster_->Send("PATCH", "/api/v1/namespaces/default/pods/" + pod + "/status", body,
                          "application/merge-patch+json");
  }

  std::unique_ptr<Cluster> cluster_;
};

TEST_F(InPlaceResizeE2ETest, APendingShrinkFreesNothingUntilTheKubeletAppliesIt) {
  kube::RestClient& client = cluster_->client();
  // 1. big runs with 3 CPU on each scheduler's node.
  for (const std::string& s : kSchedulers) {
    TRIMARAN_ASSERT_OK(client
                           .CreatePod(MakePod()
                                          .Name("big-" + s)
                                          .Namespace("default")
                                          .NodeName("node-" + s)
                                          .Req({{"cpu", "3"}, {"memory", "128Mi"}})
                                          .Obj())
                           .status());
    TRIMARAN_ASSERT_OK(PatchStatus("big-" + s, BigStatus("3", "3", false)));
  }
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerProcess trimaran,
      StartSchedulerProcess({.binary = kSchedulerBin,
                             .dir = cluster_->control_plane().dir(),
                             .tag = "resize",
                             .config_yaml = SchedulerConfigYaml("trimaran", false),
                             .kubeconfig = cluster_->kubeconfig()}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<KubeScheduler> kube,
      KubeScheduler::Start(cluster_->control_plane(), {.kubeconfig = cluster_->kubeconfig(),
                                                       .profiles_yaml = "  - schedulerName: kube\n",
                                                       .tag = "kube-scheduler-resize"}));

  // 2. Shrunk to 1 CPU: allocated 1, still running 3.
  for (const std::string& s : kSchedulers) {
    TRIMARAN_ASSERT_OK(cluster_->Send(
        "PATCH", "/api/v1/namespaces/default/pods/big-" + s + "/resize",
        R"({"spec":{"containers":[{"name":"c0","resources":{"requests":{"cpu":"1"}}}]}})",
        "application/strategic-merge-patch+json"));
    TRIMARAN_ASSERT_OK(PatchStatus("big-" + s, BigStatus("1", "3", true)));
    absl::StatusOr<kube::Pod> big = client.GetPod("default", "big-" + s);
    TRIMARAN_ASSERT_OK(big.status());
    ASSERT_EQ(big->spec.containers[0].resources.requests.at("cpu").MilliValue(), 1000);
    ASSERT_EQ(big->status.container_statuses.size(), 1u) << "the apiserver dropped the status";
    ASSERT_TRUE(big->status.container_statuses[0].resources.has_value());
  }
  for (const std::string& s : kSchedulers) {
    TRIMARAN_ASSERT_OK(client
                           .CreatePod(MakePod()
                                          .Name("probe-" + s)
                                          .Namespace("default")
                                          .SchedulerName(s)
                                          .NodeSelector({{"sched", s}})
                                          .Req({{"cpu", "2"}, {"memory", "128Mi"}})
                                          .Obj())
                           .status());
  }
  std::map<std::string, std::string> note;
  ASSERT_TRUE(Eventually(
      [&] {
        for (const std::string& s : kSchedulers) {
          const std::vector<std::string> notes =
              cluster_->EventNotes("default", "FailedScheduling", "probe-" + s);
          if (notes.empty()) return false;
          note[s] = notes[0];
        }
        return true;
      },
      absl::Seconds(60)))
      << "probe-trimaran on \"" << NodeOf("probe-trimaran") << "\", probe-kube on \""
      << NodeOf("probe-kube") << "\"\n"
      << trimaran.process->LogTail() << kube->process().LogTail();
  absl::SleepFor(absl::Seconds(3));
  EXPECT_EQ(NodeOf("probe-trimaran"), "") << "bound onto a node whose shrink is not applied";
  EXPECT_EQ(NodeOf("probe-kube"), "");
  EXPECT_THAT(note["trimaran"], ::testing::HasSubstr("1 Insufficient cpu"));
  EXPECT_EQ(note["trimaran"], note["kube"]);
  std::printf("[resize] while the shrink runs: trimaran: %s\n[resize] kube-scheduler 1.37: %s\n",
              note["trimaran"].c_str(), note["kube"].c_str());

  // 3. The runtime applies it: both bind the probe, requeued by the scale-down event.
  const absl::Time applied = absl::Now();
  for (const std::string& s : kSchedulers) {
    TRIMARAN_ASSERT_OK(PatchStatus("big-" + s, BigStatus("1", "1", false)));
  }
  std::map<std::string, absl::Duration> took;
  ASSERT_TRUE(Eventually(
      [&] {
        for (const std::string& s : kSchedulers) {
          if (!took.contains(s) && NodeOf("probe-" + s) == "node-" + s) {
            took[s] = absl::Now() - applied;
          }
        }
        return took.size() == kSchedulers.size();
      },
      absl::Seconds(60)))
      << "probe-trimaran on \"" << NodeOf("probe-trimaran") << "\", probe-kube on \""
      << NodeOf("probe-kube") << "\"\n"
      << trimaran.process->LogTail() << kube->process().LogTail();
  std::printf("[resize] bound after the shrink was applied: trimaran %s, kube-scheduler 1.37 %s\n",
              absl::FormatDuration(took["trimaran"]).c_str(),
              absl::FormatDuration(took["kube"]).c_str());
}

TEST_F(InPlaceResizeE2ETest, SidecarsAndPodLevelResourcesCountAs137Does) {
  kube::RestClient& client = cluster_->client();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      SchedulerProcess trimaran,
      StartSchedulerProcess({.binary = kSchedulerBin,
                             .dir = cluster_->control_plane().dir(),
                             .tag = "effective-requests",
                             .config_yaml = SchedulerConfigYaml("trimaran", false),
                             .kubeconfig = cluster_->kubeconfig()}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<KubeScheduler> kube,
                                KubeScheduler::Start(cluster_->control_plane(),
                                                     {.kubeconfig = cluster_->kubeconfig(),
                                                      .profiles_yaml = "  - schedulerName: kube\n",
                                                      .tag = "kube-scheduler-effective-requests"}));
  auto pod_for = [](const std::string& name, const std::string& s) {
    return MakePod()
        .Name(name + "-" + s)
        .Namespace("default")
        .SchedulerName(s)
        .NodeSelector({{"sched", s}});
  };
  auto bound_on_own_node = [&](const std::string& name) {
    for (const std::string& s : kSchedulers) {
      if (NodeOf(name + "-" + s) != "node-" + s) return false;
    }
    return true;
  };
  // Both refuse `probe`; the message each gives.
  auto refused = [&](const std::string& probe) {
    std::map<std::string, std::string> note;
    EXPECT_TRUE(Eventually(
        [&] {
          for (const std::string& s : kSchedulers) {
            const std::vector<std::string> notes =
                cluster_->EventNotes("default", "FailedScheduling", probe + "-" + s);
            if (notes.empty()) return false;
            note[s] = notes[0];
          }
          return true;
        },
        absl::Seconds(60)))
        << trimaran.process->LogTail() << kube->process().LogTail();
    absl::SleepFor(absl::Seconds(2));
    for (const std::string& s : kSchedulers) EXPECT_EQ(NodeOf(probe + "-" + s), "") << s;
    return note;
  };

  for (const std::string& s : kSchedulers) {
    TRIMARAN_ASSERT_OK(
        client.CreatePod(pod_for("sidecar", s).Req({{"cpu", "1"}}).SidecarReq({{"cpu", "1"}}).Obj())
            .status());
  }
  ASSERT_TRUE(Eventually([&] { return bound_on_own_node("sidecar"); }, absl::Seconds(60)))
      << trimaran.process->LogTail() << kube->process().LogTail();
  for (const std::string& s : kSchedulers) {
    TRIMARAN_ASSERT_OK(
        client.CreatePod(pod_for("probe-a", s).Req({{"cpu", "2500m"}}).Obj()).status());
  }
  std::map<std::string, std::string> note = refused("probe-a");
  EXPECT_THAT(note["trimaran"], ::testing::HasSubstr("1 Insufficient cpu"));
  EXPECT_EQ(note["trimaran"], note["kube"]);
  std::printf(
      "[effective requests] sidecar holds 2 CPU: trimaran: %s\n[effective requests] "
      "kube-scheduler 1.37: %s\n",
      note["trimaran"].c_str(), note["kube"].c_str());

  for (const std::string& s : kSchedulers) {
    TRIMARAN_ASSERT_OK(client.DeletePod("default", "probe-a-" + s));
    TRIMARAN_ASSERT_OK(
        client
            .CreatePod(
                pod_for("pod-level", s).Req({{"cpu", "100m"}}).PodReq({{"cpu", "1500m"}}).Obj())
            .status());
  }
  ASSERT_TRUE(Eventually([&] { return bound_on_own_node("pod-level"); }, absl::Seconds(60)))
      << trimaran.process->LogTail() << kube->process().LogTail();
  absl::StatusOr<kube::Pod> pod_level = client.GetPod("default", "pod-level-trimaran");
  TRIMARAN_ASSERT_OK(pod_level.status());
  ASSERT_TRUE(pod_level->spec.resources.has_value()) << "the apiserver dropped spec.resources";
  for (const std::string& s : kSchedulers) {
    TRIMARAN_ASSERT_OK(client.CreatePod(pod_for("probe-b", s).Req({{"cpu", "1"}}).Obj()).status());
  }
  note = refused("probe-b");
  EXPECT_THAT(note["trimaran"], ::testing::HasSubstr("1 Insufficient cpu"));
  EXPECT_EQ(note["trimaran"], note["kube"]);
  std::printf(
      "[effective requests] pod-level 1.5 CPU: trimaran: %s\n[effective requests] "
      "kube-scheduler 1.37: %s\n",
      note["trimaran"].c_str(), note["kube"].c_str());
}

}  // namespace
}  // namespace trimaran::e2e
