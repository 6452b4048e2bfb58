#include "scheduler/plugins/node_name/node_name.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakeNode;
using kube::testing::MakePod;

TEST(NodeNameTest, Filter) {
  struct Case {
    std::string name;
    std::string pod_node_name;
    Status want;
  };
  const std::vector<Case> cases = {
      {"no node name: any node", "", Status::Success()},
      {"same node", "n1", Status::Success()},
      {"other node", "n2",
       Status::UnschedulableAndUnresolvable("node(s) didn't match the requested node name")
           .WithPlugin("NodeName")},
  };
  NodeName plugin;
  const NodeInfo node_info(std::make_shared<kube::Node>(MakeNode().Name("n1").Obj()));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CycleState state;
    EXPECT_EQ(plugin.Filter(state, MakePod().NodeName(c.pod_node_name).Obj(), node_info), c.want);
  }
}

TEST(NodeNameTest, MissingNodeIsError) {
  NodeName plugin;
  CycleState state;
  EXPECT_TRUE(plugin.Filter(state, MakePod().Obj(), NodeInfo()).IsError());
}

TEST(NodeNameTest, NewAndEvents) {
  auto handle = testing::NewHandleForTest();
  absl::StatusOr<std::unique_ptr<Plugin>> p = NodeName::New(PluginArgs{}, *handle);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->Name(), "NodeName");
  auto* ext = dynamic_cast<EnqueueExtensions*>(p->get());
  ASSERT_NE(ext, nullptr);
  const std::vector<ClusterEvent> events = ext->EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].Match(kNodeAddEvent));
}

}  // namespace
}  // namespace trimaran::sched::plugins
