// DefaultPreemption end to end: the real trimaran-scheduler on a real etcd +
// kube-apiserver 1.37.2 (127.0.0.1). Every test fills 10 nodes (4 CPU each) with four
// 1-CPU pods bound at creation, then creates pods of a higher PriorityClass that fit
// nowhere (2 CPU). No kubelet runs, so the test plays its part for deletions: a pod
// whose deletionTimestamp is set is removed for good (grace period 0) half a second
// later, and until then it still occupies its node. Throughout, every node's bound pods
// (terminating ones included) are summed from the apiserver: no instant may see a node
// above its 4 CPUs.
//
//   1. PreemptsMinimalLowestPriorityVictims: node-3's pods have the lowest priority; a
//      high-priority pod gets status.nominatedNodeName=node-3, exactly two of node-3's
//      pods are deleted (DisruptionTarget condition and a Preempted event), and it is
//      bound to node-3.
//   2. PdbProtectedPodsAreSpared: every filler pod has one priority; a
//      PodDisruptionBudget (policy/v1, the only version 1.37 serves: v1beta1 was removed
//      in 1.25; no disruption controller runs, so disruptionsAllowed stays 0) protects
//      all of them but two on node-9: those two are the victims.
//   3. PreemptionPolicyNeverWaits: a PriorityClass with preemptionPolicy Never: the pod
//      stays pending with "preemption: not eligible due to preemptionPolicy=Never." and
//      no pod is deleted.
//   4. TwoPreemptorsTogether: two high-priority pods at once: both are bound, four
//      victims in all, never two preemptors counting on the same room.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/pod.h"
#include "kube/api/pod_resources.h"
#include "kube/client.h"
#include "kube/rest_client.h"
#include "kube/testing/wrappers.h"
#include "tests/e2e/harness/cluster.h"
#include "tests/e2e/harness/control_plane.h"
#include "tests/e2e/harness/eventually.h"
#include "tests/e2e/harness/scheduler_process.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {
namespace {

using kube::testing::MakePod;
using ::testing::HasSubstr;

constexpr char kSchedulerBin[] = TRIMARAN_SCHEDULER_BIN;
constexpr char kProfile[] = "trimaran";
constexpr int kNodes = 10;
constexpr int kPodsPerNode = 4;
constexpr int64_t kNodeMilliCpu = 4000;
constexpr absl::Duration kTimeout = absl::Seconds(60);

class PreemptionE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    TRIMARAN_ASSERT_OK(cluster_->AddNodes(NumberedNames("node", kNodes),
                                          {.cpu = "4", .memory = "16Gi", .hostname_label = true}));
    TRIMARAN_ASSERT_OK(CreatePriorityClass("lowest", 10, false));
    TRIMARAN_ASSERT_OK(CreatePriorityClass("low", 100, false));
    TRIMARAN_ASSERT_OK(CreatePriorityClass("high", 1000, false));
    TRIMARAN_ASSERT_OK(CreatePriorityClass("high-never", 1000, true));
  }

  void TearDown() override {
    stop_.store(true);
    if (kubelet_.joinable()) kubelet_.join();
    if (sched_) {
      if (HasFailure()) std::fprintf(stderr, "%s\n", sched_->LogTail(20000).c_str());
      sched_->Stop(absl::Seconds(20));
    }
  }

  // The interface: Raw() has its defaults there.
  kube::Client& client() { return cluster_->client(); }

  absl::Status CreatePriorityClass(const std::string& name, int value, bool never) {
    std::string body = absl::StrCat(
        R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":")", name,
        R"("},"value":)", value);
    if (never) absl::StrAppend(&body, R"(,"preemptionPolicy":"Never")");
    absl::StrAppend(&body, "}");
    return client().Raw("POST", "/apis/scheduling.k8s.io/v1/priorityclasses", body).status();
  }

  // Four 1-CPU pods on every node, bound at creation; `priority_class(node, i)` and
  // `labels(node, i)` pick each one's class and labels.
  void Fill(const std::function<std::string(int node, int i)>& priority_class,
            const std::function<kube::StringMap(int node, int i)>& labels) {
    for (int n = 0; n < kNodes; ++n) {
      for (int i = 0; i < kPodsPerNode; ++i) {
        kube::Pod pod = MakePod()
                            .Name(absl::StrCat("fill-", n, "-", i))
                            .Namespace("default")
                            .NodeName(absl::StrCat("node-", n))
                            .Labels(labels(n, i))
                            .PriorityClassName(priority_class(n, i))
                            .Req({{"cpu", "1"}, {"memory", "1Gi"}})
                            .Obj();
        TRIMARAN_ASSERT_OK(client().CreatePod(pod).status());
      }
    }
  }

  // The scheduler, and the test's kubelet stand-in and overcommit watch.
  void StartScheduler() {
    absl::StatusOr<SchedulerProcess> sched =
        StartSchedulerProcess({.binary = kSchedulerBin,
                               .dir = cluster_->control_plane().dir(),
                               .tag = "preemption",
                               .config_yaml = SchedulerConfigYaml(kProfile, false),
                               .kubeconfig = cluster_->kubeconfig(),
                               .extra_args = {"--v=2"}});
    ASSERT_TRUE(sched.ok()) << sched.status();
    sched_ = std::move(sched->process);
    kubelet_ = std::thread([this] { KubeletLoop(); });
  }

  // Removes terminating pods 500 ms after their deletion started (what the kubelet
  // confirms) and checks every node's bound CPU each round.
  void KubeletLoop() {
    std::map<std::string, absl::Time> seen_terminating;
    while (!stop_.load()) {
      absl::StatusOr<kube::PodList> pods = client().ListPods("", {});
      if (pods.ok()) {
        std::map<std::string, int64_t> used;
        for (const kube::Pod& p : pods->items) {
          if (p.spec.node_name.empty()) continue;
          used[p.spec.node_name] += kube::ComputePodRequests(p).milli_cpu;
          if (!kube::IsTerminating(p)) continue;
          const std::string key = absl::StrCat(p.metadata.namespace_name, "/", p.metadata.name);
          auto [it, fresh] = seen_terminating.emplace(key, absl::Now());
          if (!fresh && absl::Now() - it->second > absl::Milliseconds(500)) {
            (void)client().Raw("DELETE",
                               absl::StrCat("/api/v1/namespaces/", p.metadata.namespace_name,
                                            "/pods/", p.metadata.name),
                               R"({"gracePeriodSeconds":0})");
          }
        }
        std::lock_guard<std::mutex> lock(mu_);
        for (const auto& [node, milli] : used) {
          if (milli > kNodeMilliCpu) {
            overcommitted_.insert(absl::StrCat(node, " at ", milli, "m"));
          }
        }
      }
      absl::SleepFor(absl::Milliseconds(50));
    }
  }

  std::set<std::string> Overcommitted() {
    std::lock_guard<std::mutex> lock(mu_);
    return overcommitted_;
  }

  absl::Status CreateHighPod(const std::string& name, const std::string& priority_class) {
    return client()
        .CreatePod(MakePod()
                       .Name(name)
                       .Namespace("default")
                       .SchedulerName(kProfile)
                       .PriorityClassName(priority_class)
                       .Req({{"cpu", "2"}, {"memory", "1Gi"}})
                       .Obj())
        .status();
  }

  // The fill pods that no longer exist or are terminating.
  std::set<std::string> Evicted() {
    std::set<std::string> out;
    for (int n = 0; n < kNodes; ++n) {
      for (int i = 0; i < kPodsPerNode; ++i) {
        const std::string name = absl::StrCat("fill-", n, "-", i);
        absl::StatusOr<kube::Pod> p = client().GetPod("default", name);
        if (!p.ok() || kube::IsTerminating(*p)) out.insert(name);
      }
    }
    return out;
  }

  std::string NodeOf(const std::string& name) {
    absl::StatusOr<kube::Pod> p = client().GetPod("default", name);
    return p.ok() ? p->spec.node_name : "";
  }

  // "Preempted" events (events.k8s.io/v1) in default: regarding name -> note.
  std::map<std::string, std::string> PreemptedEvents() {
    std::map<std::string, std::string> out;
    absl::StatusOr<std::string> body =
        client().Raw("GET", "/apis/events.k8s.io/v1/namespaces/default/events", "");
    if (!body.ok()) return out;
    // Scan the raw JSON: each event object carries "reason":"Preempted", then its
    // "regarding" object (with the pod's name) and its "note"; enough for a test.
    size_t pos = 0;
    while ((pos = body->find(R"("reason":"Preempted")", pos)) != std::string::npos) {
      const size_t regarding = body->find(R"("regarding":)", pos);
      const size_t name_at = body->find(R"("name":")", regarding);
      const size_t note_at = body->find(R"("note":")", pos);
      if (regarding == std::string::npos || name_at == std::string::npos ||
          note_at == std::string::npos) {
        break;
      }
      const size_t name_end = body->find('"', name_at + 8);
      const size_t note_end = body->find('"', note_at + 8);
      out[body->substr(name_at + 8, name_end - name_at - 8)] =
          body->substr(note_at + 8, note_end - note_at - 8);
      pos = note_end;
    }
    return out;
  }

  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<Subprocess> sched_;
  std::thread kubelet_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::set<std::string> overcommitted_;
};

TEST_F(PreemptionE2ETest, PreemptsMinimalLowestPriorityVictims) {
  Fill([](int n, int) { return n == 3 ? "lowest" : "low"; },
       [](int, int) { return kube::StringMap{}; });
  ASSERT_NO_FATAL_FAILURE(StartScheduler());
  TRIMARAN_ASSERT_OK(CreateHighPod("high", "high"));

  std::string nominated;
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<kube::Pod> p = client().GetPod("default", "high");
        if (p.ok()) nominated = p->status.nominated_node_name;
        return !nominated.empty() || (p.ok() && !p->spec.node_name.empty());
      },
      kTimeout));
  ASSERT_TRUE(Eventually([&] { return NodeOf("high") == "node-3"; }, kTimeout))
      << "bound to " << NodeOf("high");
  const std::set<std::string> evicted = Evicted();
  EXPECT_EQ(evicted.size(), 2u);
  for (const std::string& v : evicted) EXPECT_THAT(v, ::testing::StartsWith("fill-3-"));
  if (!nominated.empty()) {
    EXPECT_EQ(nominated, "node-3");
  }
  ASSERT_TRUE(Eventually([&] { return PreemptedEvents().size() == 2; }, absl::Seconds(20)))
      << client().Raw("GET", "/apis/events.k8s.io/v1/namespaces/default/events").value_or("");
  absl::StatusOr<kube::Pod> high = client().GetPod("default", "high");
  ASSERT_TRUE(high.ok());
  for (const auto& [victim, note] : PreemptedEvents()) {
    EXPECT_TRUE(evicted.contains(victim)) << victim;
    EXPECT_EQ(note, absl::StrCat("Preempted by pod ", high->metadata.uid, " on node node-3"));
  }
  EXPECT_TRUE(Overcommitted().empty()) << *Overcommitted().begin();
}

TEST_F(PreemptionE2ETest, PdbProtectedPodsAreSpared) {
  // Everything protected but fill-9-2 and fill-9-3.
  Fill([](int, int) { return "low"; },
       [](int n, int i) {
         return n == 9 && i >= 2 ? kube::StringMap{{"app", "free"}}
                                 : kube::StringMap{{"app", "protected"}};
       });
  TRIMARAN_ASSERT_OK(
      client()
          .Raw("POST", "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
               R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",)"
               R"("metadata":{"name":"protected"},)"
               R"("spec":{"minAvailable":40,"selector":{"matchLabels":{"app":"protected"}}}})")
          .status());
  ASSERT_NO_FATAL_FAILURE(StartScheduler());
  TRIMARAN_ASSERT_OK(CreateHighPod("high", "high"));
  ASSERT_TRUE(Eventually([&] { return NodeOf("high") == "node-9"; }, kTimeout))
      << "bound to " << NodeOf("high");
  EXPECT_EQ(Evicted(), (std::set<std::string>{"fill-9-2", "fill-9-3"}));
  EXPECT_TRUE(Overcommitted().empty()) << *Overcommitted().begin();
}

TEST_F(PreemptionE2ETest, PreemptionPolicyNeverWaits) {
  Fill([](int, int) { return "low"; }, [](int, int) { return kube::StringMap{}; });
  ASSERT_NO_FATAL_FAILURE(StartScheduler());
  TRIMARAN_ASSERT_OK(CreateHighPod("patient", "high-never"));
  std::string message;
  ASSERT_TRUE(Eventually(
      [&] {
        absl::StatusOr<kube::Pod> p = client().GetPod("default", "patient");
        if (!p.ok()) return false;
        const kube::PodCondition* c = kube::FindCondition(p->status, kube::kPodScheduled);
        if (c == nullptr) return false;
        message = c->message;
        return true;
      },
      kTimeout));
  EXPECT_THAT(message, HasSubstr("preemption: not eligible due to preemptionPolicy=Never."));
  absl::SleepFor(absl::Seconds(3));
  EXPECT_TRUE(Evicted().empty());
  EXPECT_EQ(NodeOf("patient"), "");
  absl::StatusOr<kube::Pod> p = client().GetPod("default", "patient");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->status.nominated_node_name, "");
}

TEST_F(PreemptionE2ETest, TwoPreemptorsTogether) {
  Fill([](int, int) { return "low"; }, [](int, int) { return kube::StringMap{}; });
  ASSERT_NO_FATAL_FAILURE(StartScheduler());
  TRIMARAN_ASSERT_OK(CreateHighPod("high-a", "high"));
  TRIMARAN_ASSERT_OK(CreateHighPod("high-b", "high"));
  ASSERT_TRUE(
      Eventually([&] { return !NodeOf("high-a").empty() && !NodeOf("high-b").empty(); }, kTimeout))
      << NodeOf("high-a") << " " << NodeOf("high-b");
  // Each needed two CPUs: four victims in all, two from each preemptor's node (or four
  // from one node that holds both).
  const std::set<std::string> evicted = Evicted();
  EXPECT_EQ(evicted.size(), 4u);
  std::map<std::string, int> per_node;
  for (const std::string& v : evicted)
    ++per_node[absl::StrCat("node-", v.substr(5, v.find('-', 5) - 5))];
  ++per_node[NodeOf("high-a")];
  ++per_node[NodeOf("high-b")];
  for (const auto& [node, count] : per_node) {
    // On a preemptor's node: 2 victims + the preemptor = 3 (or 4 + 2 = 6 for both).
    EXPECT_TRUE(count == 3 || count == 6) << node << " " << count;
  }
  EXPECT_TRUE(Overcommitted().empty()) << *Overcommitted().begin();
}

}  // namespace
}  // namespace trimaran::e2e
