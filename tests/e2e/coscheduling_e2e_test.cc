// Coscheduling end to end (issue 21): the real trimaran-scheduler on a real etcd +
// kube-apiserver 1.37 (127.0.0.1) with the PodGroup CRD of
// deploy/components/coscheduling installed (kubectl apply), a profile with Coscheduling
// as the only QueueSort plugin and at PreFilter, PostFilter, Reserve and Permit.
//
//   1. Two gangs of 8 one-cpu pods (minMember 8) on 3 nodes of 4 cpus (room for 12):
//      one gang binds completely (either), the other binds nothing (never part of it) for as
//      long as the first holds the room; once the first gang's pods are deleted, the
//      second binds completely. PodGroup status: Scheduled with scheduled = 8 for the
//      bound gang, Scheduling with scheduled = 0 for the waiting one.
//   2. A gang below its minMember at Permit (minMember 5; 5 labelled pods, only 3 of
//      them for this scheduler, scheduleTimeoutSeconds 3): its 3 pods are reserved, time
//      out, and release the room; a 3-cpu pod then binds on the one 4-cpu node; no
//      member of the gang is ever bound. Status: Scheduling, scheduled 0.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/json_codec.h"
#include "kube/api/pod_group.h"
#include "kube/rest_client.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kCrd[] = TRIMARAN_COSCHEDULING_CRD;
constexpr char kNs[] = "gang";
constexpr absl::Duration kTimeout = absl::Seconds(60);

constexpr char kProfile[] = R"(    plugins:
      queueSort:
        enabled:
          - name: Coscheduling
        disabled:
          - name: "*"
      preFilter:
        enabled:
          - name: Coscheduling
      postFilter:
        enabled:
          - name: Coscheduling
      reserve:
        enabled:
          - name: Coscheduling
      permit:
        enabled:
          - name: Coscheduling
    pluginConfig:
      - name: Coscheduling
        args:
          permitWaitingTimeSeconds: 10
          podGroupBackoffSeconds: 2
)";

class CoschedulingE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    // The CRD as shipped, applied as a user would.
    TRIMARAN_ASSERT_OK(cluster_->InstallPodGroupCrd(kCrd, kTimeout));
    TRIMARAN_ASSERT_OK(Send("POST", "/api/v1/namespaces",
                            absl::StrCat(R"({"metadata":{"name":")", kNs, R"("}})")));
  }

  void TearDown() override {
    if (HasFailure() && sched_) {
      std::fprintf(stderr, "--- trimaran-scheduler ---\n%s\n", sched_->LogTail(12000).c_str());
    }
    if (sched_) sched_->Stop(absl::Seconds(20));
  }

  absl::Status Send(const std::string& method, const std::string& path, const std::string& body) {
    return cluster_->Send(method, path, body);
  }

  absl::Status CreateGroup(const std::string& name, int min_member, int timeout_seconds) {
    return Send("POST",
                absl::StrCat("/apis/scheduling.x-k8s.io/v1alpha1/namespaces/", kNs, "/podgroups"),
                absl::StrCat(R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",)",
                             R"("metadata":{"name":")", name, R"("},"spec":{"minMember":)",
                             min_member, R"(,"scheduleTimeoutSeconds":)", timeout_seconds, "}}"));
  }

  absl::StatusOr<kube::PodGroup> GetGroup(const std::string& name) {
    TRIMARAN_ASSIGN_OR_RETURN(http::HttpResponse r,
                              cluster_->control_plane().Request(
                                  "GET",
                                  absl::StrCat("/apis/scheduling.x-k8s.io/v1alpha1/namespaces/",
                                               kNs, "/podgroups/", name),
                                  ""));
    if (r.status_code != 200) return absl::InternalError(r.body);
    return kube::DecodePodGroup(r.body);
  }

  // `n` members "<group>-<i>" of one cpu; those from `foreign_from` on belong to another
  // scheduler (they exist, count for minMember, and are never placed).
  absl::Status CreateMembers(const std::string& group, int n, int foreign_from = 1 << 30) {
    return cluster_->CreatePods(n,
                                [&](int i) {
                                  return PodShape{
                                      .name = absl::StrCat(group, "-", i),
                                      .namespace_name = kNs,
                                      .scheduler_name = i >= foreign_from ? "nobody" : "trimaran",
                                      .cpu = "1",
                                      .memory = "64Mi",
                                      .labels = {{std::string(kube::kPodGroupLabel), group}}};
                                },
                                {.parallelism = 1});
  }

  // Bound pods per pod-group label ("" for pods without one).
  std::map<std::string, int> BoundByGroup() {
    std::map<std::string, int> out;
    absl::StatusOr<kube::PodList> pods = cluster_->client().ListPods(kNs, {});
    if (!pods.ok()) return out;
    for (const kube::Pod& p : pods->items) {
      if (!p.spec.node_name.empty()) ++out[std::string(kube::PodGroupNameOf(p))];
    }
    return out;
  }

  void StartScheduler() {
    absl::StatusOr<SchedulerProcess> s =
        StartSchedulerProcess({.binary = kSchedulerBin,
                               .dir = cluster_->control_plane().dir(),
                               .tag = "gang",
                               .config_yaml = SchedulerConfigYaml("trimaran", false, kProfile),
                               .kubeconfig = cluster_->kubeconfig()});
    ASSERT_TRUE(s.ok()) << s.status();
    sched_ = std::move(s->process);
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<Subprocess> sched_;
};

TEST_F(CoschedulingE2ETest, TwoGangsForOneGangsRoomNeverBindHalf) {
  TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", 3), {.cpu = "4", .memory = "16Gi"}));
  TRIMARAN_ASSERT_OK(CreateGroup("a", 8, 10));
  absl::SleepFor(absl::Seconds(1));  // a is older than b (second resolution)
  TRIMARAN_ASSERT_OK(CreateGroup("b", 8, 10));
  TRIMARAN_ASSERT_OK(CreateMembers("a", 8));
  TRIMARAN_ASSERT_OK(CreateMembers("b", 8));
  StartScheduler();

  // One of the two gangs binds completely (usually a, the older one; which one depends
  // on the order the members reach the queue).
  std::string first, second;
  ASSERT_TRUE(Eventually(
      [&] {
        std::map<std::string, int> bound = BoundByGroup();
        if (bound["a"] == 8) first = "a", second = "b";
        if (bound["b"] == 8) first = "b", second = "a";
        return !first.empty();
      },
      kTimeout))
      << "no gang bound completely: a " << BoundByGroup()["a"] << ", b " << BoundByGroup()["b"];
  // For as long as it holds the room (well past the other's 10 s Permit timeout), the
  // other gang binds nothing.
  const absl::Time until = absl::Now() + absl::Seconds(15);
  while (absl::Now() < until) {
    std::map<std::string, int> bound = BoundByGroup();
    ASSERT_EQ(bound[second], 0) << "a partial gang " << second << " was bound";
    ASSERT_EQ(bound[first], 8);
    absl::SleepFor(absl::Milliseconds(250));
  }
  ASSERT_TRUE(Eventually(
      [&] {
        auto f = GetGroup(first);
        auto w = GetGroup(second);
        return f.ok() && w.ok() && f->status.phase == kube::PodGroupPhase::kScheduled &&
               f->status.scheduled == 8 && w->status.phase == kube::PodGroupPhase::kScheduling &&
               w->status.scheduled == 0;
      },
      kTimeout))
      << "PodGroup status";
  EXPECT_TRUE(GetGroup(second)->status.schedule_start_time.has_value());

  // Room appears: the other gang binds, completely.
  // At once (no kubelet here to finish a graceful deletion).
  for (int i = 0; i < 8; ++i) {
    TRIMARAN_ASSERT_OK(
        Send("DELETE", absl::StrCat("/api/v1/namespaces/", kNs, "/pods/", first, "-", i),
             R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0})"));
  }
  ASSERT_TRUE(Eventually([&] { return BoundByGroup()[second] == 8; }, kTimeout))
      << "gang " << second << " bound " << BoundByGroup()[second];
  ASSERT_TRUE(Eventually(
      [&] {
        auto w = GetGroup(second);
        return w.ok() && w->status.phase == kube::PodGroupPhase::kScheduled &&
               w->status.scheduled == 8;
      },
      kTimeout))
      << "PodGroup " << second << " status";
}

TEST_F(CoschedulingE2ETest, GangBelowMinMemberTimesOutAndReleasesItsRoom) {
  TRIMARAN_ASSERT_OK(cluster_->AddNode("node-0", {.cpu = "4", .memory = "16Gi"}));
  TRIMARAN_ASSERT_OK(CreateGroup("c", 5, 3));
  TRIMARAN_ASSERT_OK(CreateMembers("c", 5, /*foreign_from=*/3));
  StartScheduler();
  // Its 3 pods reach Permit, wait 3 s and are released (and retried) over and over.
  absl::SleepFor(absl::Seconds(5));
  ASSERT_EQ(BoundByGroup()["c"], 0);
  TRIMARAN_ASSERT_OK(cluster_->CreatePods(1, [](int) {
    return PodShape{.name = "filler",
                    .namespace_name = kNs,
                    .scheduler_name = "trimaran",
                    .cpu = "3",
                    .memory = "64Mi"};
  }));
  ASSERT_TRUE(Eventually(
      [&] {
        std::map<std::string, int> bound = BoundByGroup();
        EXPECT_EQ(bound["c"], 0) << "a member of the incomplete gang was bound";
        return bound[""] == 1;
      },
      kTimeout))
      << "the filler pod never got the gang's room";
  EXPECT_EQ(BoundByGroup()["c"], 0);
  ASSERT_TRUE(Eventually(
      [&] {
        auto c = GetGroup("c");
        return c.ok() && c->status.phase == kube::PodGroupPhase::kScheduling &&
               c->status.scheduled == 0;
      },
      kTimeout))
      << "PodGroup c status";
}

}  // namespace
}  // namespace trimaran::e2e
