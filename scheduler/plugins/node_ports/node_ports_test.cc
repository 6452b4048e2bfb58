#include "scheduler/plugins/node_ports/node_ports.h"

#include <memory>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using kube::Protocol;
using kube::testing::MakeNode;
using kube::testing::MakePod;
using kube::testing::PodWrapper;

// A pod using host ports given as (protocol, hostIP, port).
struct Port {
  Protocol protocol;
  std::string ip;
  int32_t port;
};
kube::Pod PodWithPorts(const std::string& name, const std::vector<Port>& ports) {
  PodWrapper pod = MakePod().Name(name).Namespace("ns").UID(name);
  for (const Port& p : ports) pod.HostPort(p.port, p.protocol, p.ip);
  return std::move(pod).Obj();
}

TEST(NodePortsTest, PreFilterAndFilter) {
  const std::string kReason(NodePorts::kErrReason);
  struct Case {
    std::string name;
    std::vector<Port> wanted;    // the incoming pod's host ports
    std::vector<Port> existing;  // a pod already on the node
    Code want;                   // the Filter verdict (PreFilter's when it skips)
  };
  const Case cases[] = {
      {"no host ports: PreFilter skips", {}, {{Protocol::kTCP, "", 8080}}, Code::kSkip},
      {"free node", {{Protocol::kUDP, "127.0.0.1", 8080}}, {}, Code::kSuccess},
      {"other port",
       {{Protocol::kUDP, "127.0.0.1", 8080}},
       {{Protocol::kUDP, "127.0.0.1", 9090}},
       Code::kSuccess},
      {"same port, same protocol, same IP",
       {{Protocol::kUDP, "127.0.0.1", 8080}},
       {{Protocol::kUDP, "127.0.0.1", 8080}},
       Code::kUnschedulable},
      {"same port, other protocol",
       {{Protocol::kTCP, "127.0.0.1", 8080}},
       {{Protocol::kUDP, "127.0.0.1", 8080}},
       Code::kSuccess},
      {"same port, other IPs",
       {{Protocol::kTCP, "127.0.0.2", 8080}},
       {{Protocol::kTCP, "127.0.0.1", 8080}},
       Code::kSuccess},
      // Empty IP means 0.0.0.0, which overlaps every IP, either way round.
      {"wanted on all IPs",
       {{Protocol::kTCP, "", 8080}},
       {{Protocol::kTCP, "127.0.0.1", 8080}},
       Code::kUnschedulable},
      {"existing on all IPs",
       {{Protocol::kTCP, "127.0.0.1", 8080}},
       {{Protocol::kTCP, "0.0.0.0", 8080}},
       Code::kUnschedulable},
      {"second port conflicts",
       {{Protocol::kTCP, "", 8000}, {Protocol::kUDP, "", 8080}},
       {{Protocol::kUDP, "", 8080}},
       Code::kUnschedulable},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeInfo node_info(std::make_shared<const kube::Node>(MakeNode().Name("n1").Obj()));
    if (!c.existing.empty()) {
      node_info.AddPod(std::make_shared<const kube::Pod>(PodWithPorts("old", c.existing)));
    }
    const kube::Pod pod = PodWithPorts("new", c.wanted);
    NodePorts plugin;
    CycleState state;
    PreFilterResult result;
    const NodeInfo* nodes[] = {&node_info};
    const Status pre = plugin.PreFilter(state, pod, nodes, result);
    EXPECT_TRUE(result.AllNodes());
    if (c.want == Code::kSkip) {
      EXPECT_EQ(pre.code(), Code::kSkip);
      continue;
    }
    ASSERT_TRUE(pre.IsSuccess()) << pre;
    const Status got = plugin.Filter(state, pod, node_info);
    EXPECT_EQ(got.code(), c.want) << got;
    if (c.want == Code::kUnschedulable) {
      EXPECT_THAT(got.reasons(), ::testing::ElementsAre(kReason));
      EXPECT_EQ(got.plugin(), "NodePorts");
    }
  }
}

TEST(NodePortsTest, InitContainerPortsCount) {
  kube::Pod pod = MakePod().Name("p").InitReq({}).Obj();
  kube::ContainerPort port;
  port.container_port = 53;
  port.host_port = 53;
  port.protocol = Protocol::kUDP;
  pod.spec.init_containers[0].ports.push_back(port);

  NodeInfo node_info(std::make_shared<const kube::Node>(MakeNode().Name("n1").Obj()));
  node_info.AddPod(
      std::make_shared<const kube::Pod>(PodWithPorts("old", {{Protocol::kUDP, "", 53}})));
  NodePorts plugin;
  CycleState state;
  PreFilterResult result;
  ASSERT_TRUE(plugin.PreFilter(state, pod, {}, result).IsSuccess());
  EXPECT_EQ(plugin.Filter(state, pod, node_info).code(), Code::kUnschedulable);
}

TEST(NodePortsTest, FilterWithoutPreFilterIsError) {
  NodePorts plugin;
  CycleState state;
  NodeInfo node_info(std::make_shared<const kube::Node>(MakeNode().Name("n1").Obj()));
  const Status got = plugin.Filter(state, PodWithPorts("p", {{Protocol::kTCP, "", 80}}), node_info);
  EXPECT_EQ(got.code(), Code::kError) << got;
}

TEST(NodePortsTest, EventsAndFactory) {
  auto handle = testing::NewHandleForTest();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Plugin> plugin,
                                NodePorts::New(PluginArgs{}, *handle));
  EXPECT_EQ(plugin->Name(), "NodePorts");
  auto* ext = dynamic_cast<EnqueueExtensions*>(plugin.get());
  ASSERT_NE(ext, nullptr);
  const std::vector<ClusterEvent> events = ext->EventsToRegister();
  auto matches = [&](const ClusterEvent& incoming) {
    for (const ClusterEvent& e : events) {
      if (e.Match(incoming)) return true;
    }
    return false;
  };
  EXPECT_TRUE(matches(kAssignedPodDeleteEvent));
  EXPECT_TRUE(matches(kNodeAddEvent));
  EXPECT_FALSE(matches(kAssignedPodAddEvent));
  EXPECT_FALSE(matches({EventResource::kNode, ActionType::kUpdateNodeAllocatable, "x"}));
}

// Upstream's TestNodePortsIsSchedulableAfterAssignedPodDeleted (1.37).
TEST(NodePortsTest, QueueingHints) {
  NodePorts plugin;
  const kube::Pod pod = PodWithPorts("p", {{Protocol::kTCP, "", 8080}});
  kube::Pod same_port = PodWithPorts("a", {{Protocol::kTCP, "", 8080}});
  same_port.spec.node_name = "n";
  kube::Pod other_port = PodWithPorts("b", {{Protocol::kTCP, "", 8081}});
  other_port.spec.node_name = "n";
  kube::Pod no_ports = PodWithPorts("c", {});
  no_ports.spec.node_name = "n";
  const kube::Pod unscheduled = PodWithPorts("d", {{Protocol::kTCP, "", 8080}});
  kube::Pod nominated = unscheduled;
  nominated.status.nominated_node_name = "n";
  struct Case {
    std::string name;
    const kube::Pod* deleted;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"backoff-queue-when-the-deleted-pod-used-the-same-port", &same_port, QueueingHint::kQueue},
      {"skip-queue-when-the-deleted-pod-used-another-port", &other_port, QueueingHint::kQueueSkip},
      {"skip-queue-when-the-deleted-pod-has-no-ports", &no_ports, QueueingHint::kQueueSkip},
      {"skip-queue-when-the-deleted-pod-was-unscheduled", &unscheduled, QueueingHint::kQueueSkip},
      {"queue-when-the-deleted-pod-was-nominated", &nominated, QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    const absl::StatusOr<QueueingHint> got =
        plugin.Hint(pod, kAssignedPodDeleteEvent, EventObjects{.old_pod = c.deleted});
    ASSERT_TRUE(got.ok()) << c.name;
    EXPECT_EQ(*got, c.want) << c.name;
  }
  const kube::Node node = MakeNode().Name("n").Obj();
  const absl::StatusOr<QueueingHint> add =
      plugin.Hint(pod, kNodeAddEvent, EventObjects{.new_node = &node});
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(*add, QueueingHint::kQueue);
}

}  // namespace
}  // namespace trimaran::sched::plugins
