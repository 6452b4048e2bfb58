#include "scheduler/plugins/node_unschedulable/node_unschedulable.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using kube::TaintEffect;
using kube::testing::MakeNode;
using kube::testing::MakePod;

TEST(NodeUnschedulableTest, Filter) {
  const Status rejected = Status::UnschedulableAndUnresolvable("node(s) were unschedulable")
                              .WithPlugin("NodeUnschedulable");
  struct Case {
    std::string name;
    bool unschedulable;
    kube::Pod pod;
    Status want;
  };
  const std::vector<Case> cases = {
      {"schedulable node", false, MakePod().Obj(), Status::Success()},
      {"cordoned node", true, MakePod().Obj(), rejected},
      {"tolerates with Exists", true,
       MakePod()
           .TolerationExists("node.kubernetes.io/unschedulable", TaintEffect::kNoSchedule)
           .Obj(),
       Status::Success()},
      {"tolerates everything", true, MakePod().TolerationExists("").Obj(), Status::Success()},
      {"toleration for another effect", true,
       MakePod()
           .TolerationExists("node.kubernetes.io/unschedulable", TaintEffect::kNoExecute)
           .Obj(),
       rejected},
      {"toleration with a value that does not match (Equal)", true,
       MakePod()
           .Toleration("node.kubernetes.io/unschedulable", "x", TaintEffect::kNoSchedule)
           .Obj(),
       rejected},
  };
  NodeUnschedulable plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const NodeInfo node_info(
        std::make_shared<kube::Node>(MakeNode().Name("n").Unschedulable(c.unschedulable).Obj()));
    CycleState state;
    EXPECT_EQ(plugin.Filter(state, c.pod, node_info), c.want);
  }
}

TEST(NodeUnschedulableTest, NewAndEvents) {
  auto handle = testing::NewHandleForTest();
  absl::StatusOr<std::unique_ptr<Plugin>> p = NodeUnschedulable::New(PluginArgs{}, *handle);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->Name(), "NodeUnschedulable");
  const auto events = dynamic_cast<EnqueueExtensions&>(**p).EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].Match(kNodeAddEvent));
  EXPECT_TRUE(events[0].Match({EventResource::kNode, ActionType::kUpdateNodeTaint, "x"}));
  EXPECT_FALSE(events[0].Match({EventResource::kNode, ActionType::kUpdateNodeLabel, "x"}));
  NodeUnschedulable plugin;
  CycleState state;
  EXPECT_TRUE(plugin.Filter(state, MakePod().Obj(), NodeInfo()).IsError());
}

}  // namespace
}  // namespace trimaran::sched::plugins
