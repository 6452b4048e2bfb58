#include "scheduler/framework/node_info.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/pod_resources.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched {
namespace {

using ::testing::HasSubstr;
using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

constexpr int64_t kMi = 1024 * 1024;
constexpr int64_t kGi = 1024 * kMi;

std::shared_ptr<const kube::Pod> Share(const kube::Pod& pod) {
  return std::make_shared<const kube::Pod>(pod);
}

std::shared_ptr<const kube::Node> TestNode() {
  return std::make_shared<const kube::Node>(
      MakeNode()
          .Name("n1")
          .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}, {"example.com/gpu", "2"}})
          .Obj());
}

// Containers 500m/1Gi and 250m/(none); a sidecar 100m/50Mi declared before a regular
// init container 2/100Mi; overhead 10m/10Mi.
kube::Pod ComplexPod() {
  return MakePod()
      .Name("complex")
      .Namespace("default")
      .UID("uid-complex")
      .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
      .Req({{"cpu", "250m"}})
      .SidecarReq({{"cpu", "100m"}, {"memory", "50Mi"}})
      .InitReq({{"cpu", "2"}, {"memory", "100Mi"}})
      .Overhead({{"cpu", "10m"}, {"memory", "10Mi"}})
      .Obj();
}

TEST(NonZeroRequestTest, DefaultsOnlyMissingEntries) {
  struct TestCase {
    std::string name;
    kube::Pod pod;
    NonZeroRequest want;
  };
  const std::vector<TestCase> cases = {
      {"no requests at all: both defaults",
       MakePod().Container("img").Obj(),
       {.milli_cpu = 100, .memory = 200 * kMi}},
      {"explicit zero cpu stays zero",
       MakePod().Req({{"cpu", "0"}}).Obj(),
       {.milli_cpu = 0, .memory = 200 * kMi}},
      {"explicit requests kept",
       MakePod().Req({{"cpu", "1"}, {"memory", "1Gi"}}).Obj(),
       {.milli_cpu = 1000, .memory = kGi}},
      // Per container: 100m default for the second container's cpu.
      {"per container",
       MakePod().Req({{"cpu", "1"}}).Req({{"memory", "1Gi"}}).Obj(),
       {.milli_cpu = 1100, .memory = 200 * kMi + kGi}},
      // containers 500+250+100(sidecar)=850m, 1Gi+200Mi(default)+50Mi;
      // init phase 2000+100=2100m, 100Mi+50Mi; max, then + overhead 10m/10Mi.
      {"init containers, sidecars, overhead",
       ComplexPod(),
       {.milli_cpu = 2110, .memory = kGi + 260 * kMi}},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(ComputeNonZeroRequest(tc.pod), tc.want);
  }
}

TEST(PodInfoTest, CreateUsesComputePodRequests) {
  const kube::Pod pod = ComplexPod();
  const PodInfo info = PodInfo::Create(Share(pod));
  EXPECT_EQ(info.request, kube::ComputePodRequests(pod));
  // max(850m, 2100m) + 10m; max(1Gi+50Mi, 150Mi) + 10Mi.
  EXPECT_EQ(info.request.milli_cpu, 2110);
  EXPECT_EQ(info.request.memory, kGi + 60 * kMi);
  EXPECT_EQ(info.non_zero_request, ComputeNonZeroRequest(pod));
}

TEST(NodeInfoTest, NewNodeInfo) {
  const NodeInfo info(TestNode());
  EXPECT_EQ(info.name(), "n1");
  ASSERT_NE(info.node(), nullptr);
  EXPECT_EQ(info.allocatable().milli_cpu, 4000);
  EXPECT_EQ(info.allocatable().memory, 8 * kGi);
  EXPECT_EQ(info.allocatable().allowed_pod_number, 110);
  EXPECT_EQ(info.allocatable().Get("example.com/gpu"), 2);
  EXPECT_TRUE(info.pods().empty());
  EXPECT_TRUE(info.requested().IsZero());
  EXPECT_TRUE(info.non_zero_requested().IsZero());
  EXPECT_TRUE(info.used_ports().empty());
}

TEST(NodeInfoTest, EmptyNodeInfo) {
  const NodeInfo info;
  EXPECT_EQ(info.node(), nullptr);
  EXPECT_EQ(info.name(), "");
  EXPECT_TRUE(info.allocatable().IsZero());
  EXPECT_GT(info.generation(), 0);
}

TEST(NodeInfoTest, AddAndRemovePodsKeepSums) {
  NodeInfo info(TestNode());
  const kube::Pod complex = ComplexPod();
  const kube::Pod best_effort =
      MakePod().Name("be").Namespace("default").UID("uid-be").Container("img").Obj();
  const kube::Pod gpu = MakePod()
                            .Name("gpu")
                            .Namespace("default")
                            .UID("uid-gpu")
                            .Req({{"cpu", "1"}, {"memory", "2Gi"}, {"example.com/gpu", "1"}})
                            .Obj();
  info.AddPod(Share(complex));
  info.AddPod(Share(best_effort));
  info.AddPod(Share(gpu));

  ASSERT_EQ(info.pods().size(), 3u);
  // Requested: 2110m + 0 + 1000m; 1Gi+60Mi + 0 + 2Gi; gpu 1.
  EXPECT_EQ(info.requested().milli_cpu, 3110);
  EXPECT_EQ(info.requested().memory, 3 * kGi + 60 * kMi);
  EXPECT_EQ(info.requested().Get("example.com/gpu"), 1);
  // Non-zero: 2110m + 100m + 1000m; (1Gi+260Mi) + 200Mi + 2Gi.
  EXPECT_EQ(info.non_zero_requested().milli_cpu, 3210);
  EXPECT_EQ(info.non_zero_requested().memory, 3 * kGi + 460 * kMi);
  EXPECT_EQ(info.non_zero_requested().ephemeral_storage, 0);
  EXPECT_TRUE(info.non_zero_requested().scalar.empty());

  ASSERT_THAT(info.RemovePod(complex), IsOk());
  EXPECT_EQ(info.pods().size(), 2u);
  EXPECT_EQ(info.requested().milli_cpu, 1000);
  EXPECT_EQ(info.requested().memory, 2 * kGi);
  EXPECT_EQ(info.non_zero_requested().milli_cpu, 1100);
  EXPECT_EQ(info.non_zero_requested().memory, 2 * kGi + 200 * kMi);

  ASSERT_THAT(info.RemovePod(gpu), IsOk());
  ASSERT_THAT(info.RemovePod(best_effort), IsOk());
  EXPECT_TRUE(info.pods().empty());
  EXPECT_TRUE(info.requested().IsZero());
  EXPECT_TRUE(info.non_zero_requested().IsZero());
}

TEST(NodeInfoTest, KeepsThePodsWithAffinity) {
  const kube::LabelSelector db = kube::testing::MakeLabelSelector().Label("app", "db").Obj();
  NodeInfo info(std::make_shared<const kube::Node>(MakeNode().Name("n").Obj()));
  auto plain = std::make_shared<const kube::Pod>(MakePod().Name("plain").UID("1").Obj());
  auto soft = std::make_shared<const kube::Pod>(
      MakePod().Name("soft").UID("2").PreferredPodAntiAffinity(1, "zone", db).Obj());
  auto hard = std::make_shared<const kube::Pod>(
      MakePod().Name("hard").UID("3").PodAntiAffinity("zone", db).Obj());
  auto affinity = std::make_shared<const kube::Pod>(
      MakePod().Name("aff").UID("4").PodAffinity("zone", db).Obj());
  for (const auto& p : {plain, soft, hard, affinity}) info.AddPod(p);
  auto names = [](const std::vector<PodInfo>& list) {
    std::vector<std::string> out;
    for (const PodInfo& p : list) out.push_back(p.pod->metadata.name);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(names(info.pods_with_affinity()), (std::vector<std::string>{"aff", "hard", "soft"}));
  EXPECT_EQ(names(info.pods_with_required_anti_affinity()), (std::vector<std::string>{"hard"}));
  ASSERT_TRUE(info.RemovePod(*hard).ok());
  ASSERT_TRUE(info.RemovePod(*plain).ok());
  EXPECT_EQ(names(info.pods_with_affinity()), (std::vector<std::string>{"aff", "soft"}));
  EXPECT_TRUE(info.pods_with_required_anti_affinity().empty());
}

TEST(NodeInfoTest, RemovePodSubtractsWhatWasAdded) {
  // The cache may remove a pod using a newer version of the object (an update); the
  // node must subtract the requests it recorded, not the new ones.
  NodeInfo info(TestNode());
  info.AddPod(Share(MakePod().Name("p").UID("u1").Req({{"cpu", "1"}}).Obj()));
  const kube::Pod newer = MakePod().Name("p").UID("u1").Req({{"cpu", "3"}}).Obj();
  ASSERT_THAT(info.RemovePod(newer), IsOk());
  EXPECT_TRUE(info.requested().IsZero());
  EXPECT_TRUE(info.non_zero_requested().IsZero());
}

TEST(NodeInfoTest, RemovePodIdentity) {
  NodeInfo info(TestNode());
  info.AddPod(Share(MakePod().Name("p").Namespace("a").UID("u1").Obj()));
  info.AddPod(Share(MakePod().Name("q").Namespace("a").Obj()));  // no UID

  const int64_t before = info.generation();
  // Same name, different UID: a different pod.
  EXPECT_THAT(info.RemovePod(MakePod().Name("p").Namespace("a").UID("u2").Obj()),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(info.RemovePod(MakePod().Name("x").Namespace("a").Obj()),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(info.generation(), before) << "a failed removal changes nothing";
  // Without UIDs, namespace/name identify the pod.
  EXPECT_THAT(info.RemovePod(MakePod().Name("q").Namespace("b").Obj()),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(info.RemovePod(MakePod().Name("q").Namespace("a").Obj()), IsOk());
  EXPECT_THAT(info.RemovePod(MakePod().Name("p").Namespace("a").UID("u1").Obj()), IsOk());
  EXPECT_TRUE(info.pods().empty());
}

TEST(NodeInfoTest, RemovePodErrorNamesPodAndNode) {
  NodeInfo info(TestNode());
  const absl::Status s = info.RemovePod(MakePod().Name("web").Namespace("prod").Obj());
  EXPECT_THAT(std::string(s.message()), HasSubstr("prod/web"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("n1"));
}

TEST(NodeInfoTest, GenerationBumpsOnEveryMutation) {
  NodeInfo info;
  int64_t last = info.generation();
  const auto expect_bumped = [&](absl::string_view what) {
    EXPECT_GT(info.generation(), last) << what;
    last = info.generation();
  };
  info.SetNode(TestNode());
  expect_bumped("SetNode");
  const kube::Pod pod = MakePod().Name("p").UID("u").Obj();
  info.AddPod(Share(pod));
  expect_bumped("AddPod");
  ASSERT_THAT(info.RemovePod(pod), IsOk());
  expect_bumped("RemovePod");
  info.AddPodInfo(PodInfo::Create(Share(pod)));
  expect_bumped("AddPodInfo");
  info.RemoveNode();
  expect_bumped("RemoveNode");

  // Generations are global: a later NodeInfo is newer than every earlier change.
  const NodeInfo other(TestNode());
  EXPECT_GT(other.generation(), last);
  EXPECT_GT(NextGeneration(), other.generation());
}

TEST(NodeInfoTest, RemoveNodeKeepsPods) {
  NodeInfo info(TestNode());
  info.AddPod(Share(MakePod().Name("p").UID("u").Req({{"cpu", "1"}}).Obj()));
  info.RemoveNode();
  EXPECT_EQ(info.node(), nullptr);
  EXPECT_EQ(info.name(), "");
  EXPECT_TRUE(info.allocatable().IsZero());
  EXPECT_EQ(info.pods().size(), 1u);
  EXPECT_EQ(info.requested().milli_cpu, 1000);
  // A node that comes back keeps them.
  info.SetNode(TestNode());
  EXPECT_EQ(info.allocatable().milli_cpu, 4000);
  EXPECT_EQ(info.pods().size(), 1u);
}

TEST(NodeInfoTest, CloneIsIndependent) {
  NodeInfo info(TestNode());
  const kube::Pod p1 = MakePod().Name("p1").UID("u1").Req({{"cpu", "1"}}).HostPort(80).Obj();
  info.AddPod(Share(p1));

  std::unique_ptr<NodeInfo> clone = info.Clone();
  EXPECT_EQ(clone->generation(), info.generation());
  EXPECT_EQ(clone->requested(), info.requested());

  clone->AddPod(Share(MakePod().Name("p2").UID("u2").Req({{"cpu", "2"}}).HostPort(81).Obj()));
  ASSERT_THAT(clone->RemovePod(p1), IsOk());

  EXPECT_EQ(info.pods().size(), 1u);
  EXPECT_EQ(info.pods()[0].pod->metadata.name, "p1");
  EXPECT_EQ(info.requested().milli_cpu, 1000);
  EXPECT_TRUE(info.used_ports().CheckConflict("", kube::Protocol::kTCP, 80));
  EXPECT_FALSE(info.used_ports().CheckConflict("", kube::Protocol::kTCP, 81));
  EXPECT_EQ(clone->requested().milli_cpu, 2000);
  EXPECT_FALSE(clone->used_ports().CheckConflict("", kube::Protocol::kTCP, 80));
  EXPECT_TRUE(clone->used_ports().CheckConflict("", kube::Protocol::kTCP, 81));
  EXPECT_GT(clone->generation(), info.generation());
}

TEST(NodeInfoTest, TracksHostPortsOfAllContainers) {
  NodeInfo info(TestNode());
  kube::Pod pod = MakePod().Name("p").UID("u").HostPort(8080).Obj();
  kube::Container sidecar;
  sidecar.name = "sidecar";
  sidecar.restart_policy = kube::ContainerRestartPolicy::kAlways;
  sidecar.ports.push_back({.name = "dns",
                           .container_port = 53,
                           .host_port = 53,
                           .protocol = kube::Protocol::kUDP,
                           .host_ip = "10.0.0.1"});
  sidecar.ports.push_back({.name = "no-host-port", .container_port = 9000});
  pod.spec.init_containers.push_back(sidecar);

  EXPECT_EQ(GetHostPorts(pod).size(), 2u);
  info.AddPod(Share(pod));
  EXPECT_EQ(info.used_ports().size(), 2u);
  EXPECT_TRUE(info.used_ports().CheckConflict("127.0.0.1", kube::Protocol::kTCP, 8080));
  EXPECT_TRUE(info.used_ports().CheckConflict("10.0.0.1", kube::Protocol::kUDP, 53));
  EXPECT_FALSE(info.used_ports().CheckConflict("10.0.0.2", kube::Protocol::kUDP, 53));
  EXPECT_FALSE(info.used_ports().CheckConflict("", kube::Protocol::kTCP, 9000));
  ASSERT_THAT(info.RemovePod(pod), IsOk());
  EXPECT_TRUE(info.used_ports().empty());
}

TEST(NodeInfoTest, SharedHostPortSurvivesOneRemoval) {
  NodeInfo info(TestNode());
  const kube::Pod a = MakePod().Name("a").UID("a").HostPort(80).Obj();
  const kube::Pod b = MakePod().Name("b").UID("b").HostPort(80).Obj();
  info.AddPod(Share(a));
  info.AddPod(Share(b));
  EXPECT_EQ(info.used_ports().size(), 1u);
  ASSERT_THAT(info.RemovePod(a), IsOk());
  EXPECT_TRUE(info.used_ports().CheckConflict("", kube::Protocol::kTCP, 80));
  ASSERT_THAT(info.RemovePod(b), IsOk());
  EXPECT_FALSE(info.used_ports().CheckConflict("", kube::Protocol::kTCP, 80));
}

TEST(HostPortInfoTest, ConflictTable) {
  struct Use {
    std::string ip;
    kube::Protocol protocol;
    int32_t port;
  };
  struct TestCase {
    std::string name;
    std::vector<Use> existing;
    Use check;
    bool want_conflict;
  };
  using P = kube::Protocol;
  const std::vector<TestCase> cases = {
      {"empty node", {}, {"127.0.0.1", P::kTCP, 80}, false},
      {"same ip, protocol, port", {{"127.0.0.1", P::kTCP, 80}}, {"127.0.0.1", P::kTCP, 80}, true},
      {"different ip", {{"127.0.0.1", P::kTCP, 80}}, {"127.0.0.2", P::kTCP, 80}, false},
      {"different port", {{"127.0.0.1", P::kTCP, 80}}, {"127.0.0.1", P::kTCP, 8080}, false},
      {"different protocol", {{"127.0.0.1", P::kTCP, 80}}, {"127.0.0.1", P::kUDP, 80}, false},
      {"existing wildcard", {{"0.0.0.0", P::kTCP, 80}}, {"127.0.0.1", P::kTCP, 80}, true},
      {"new wildcard", {{"127.0.0.1", P::kTCP, 80}}, {"0.0.0.0", P::kTCP, 80}, true},
      {"empty ip is wildcard (existing)", {{"", P::kTCP, 80}}, {"10.0.0.1", P::kTCP, 80}, true},
      {"empty ip is wildcard (new)", {{"10.0.0.1", P::kTCP, 80}}, {"", P::kTCP, 80}, true},
      {"wildcard, other protocol", {{"0.0.0.0", P::kUDP, 80}}, {"127.0.0.1", P::kTCP, 80}, false},
      {"sctp", {{"127.0.0.1", P::kSCTP, 80}}, {"127.0.0.1", P::kSCTP, 80}, true},
      {"new wildcard, several ips",
       {{"127.0.0.1", P::kTCP, 79}, {"127.0.0.2", P::kTCP, 80}},
       {"0.0.0.0", P::kTCP, 80},
       true},
      {"port 0 never conflicts", {{"0.0.0.0", P::kTCP, 0}}, {"0.0.0.0", P::kTCP, 0}, false},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    HostPortInfo ports;
    for (const Use& u : tc.existing) ports.Add(u.ip, u.protocol, u.port);
    EXPECT_EQ(ports.CheckConflict(tc.check.ip, tc.check.protocol, tc.check.port), tc.want_conflict);
  }
}

TEST(HostPortInfoTest, AddRemoveCounts) {
  HostPortInfo ports;
  ports.Add("", kube::Protocol::kTCP, 80);
  ports.Add("0.0.0.0", kube::Protocol::kTCP, 80);  // the same triple
  ports.Add("1.2.3.4", kube::Protocol::kTCP, 80);
  ports.Add("1.2.3.4", kube::Protocol::kTCP, -1);  // ignored
  EXPECT_EQ(ports.size(), 2u);
  ports.Remove("0.0.0.0", kube::Protocol::kTCP, 80);
  EXPECT_EQ(ports.size(), 2u);
  ports.Remove("", kube::Protocol::kTCP, 80);
  EXPECT_EQ(ports.size(), 1u);
  ports.Remove("9.9.9.9", kube::Protocol::kTCP, 80);  // not recorded: no-op
  ports.Remove("1.2.3.4", kube::Protocol::kTCP, 80);
  EXPECT_TRUE(ports.empty());
}

TEST(NodeInfoTest, DebugString) {
  NodeInfo info(TestNode());
  info.AddPod(Share(MakePod().Name("p").UID("u").Req({{"cpu", "1"}}).Obj()));
  const std::string s = info.DebugString();
  EXPECT_THAT(s, HasSubstr("node=n1"));
  EXPECT_THAT(s, HasSubstr("pods=1"));
  EXPECT_THAT(s, HasSubstr("cpu=1000m"));
}

}  // namespace
}  // namespace trimaran::sched
