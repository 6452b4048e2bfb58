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

// Upstream's TestIsSchedulableAfterNodeChange (nodeunschedulable, 1.37).
TEST(NodeUnschedulableTest, QueueingHints) {
  NodeUnschedulable plugin;
  const kube::Pod pod = MakePod().Name("p").Obj();
  const kube::Node cordoned = MakeNode().Name("n").Unschedulable(true).Obj();
  const kube::Node open = MakeNode().Name("n").Unschedulable(false).Obj();
  const kube::Node open_relabelled = MakeNode().Name("n").Label("k", "v").Obj();
  const kube::Node cordoned_relabelled =
      MakeNode().Name("n").Unschedulable(true).Label("k", "v").Obj();
  struct Case {
    std::string name;
    const kube::Node* old_node;
    const kube::Node* new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"skip-queue-on-unschedulable-node-added", nullptr, &cordoned, QueueingHint::kQueueSkip},
      {"queue-on-schedulable-node-added", nullptr, &open, QueueingHint::kQueue},
      {"skip-unrelated-change-unschedulable-true", &cordoned, &cordoned_relabelled,
       QueueingHint::kQueueSkip},
      {"skip-unrelated-change-unschedulable-false", &open, &open_relabelled,
       QueueingHint::kQueueSkip},
      {"queue-on-unschedulable-field-change", &cordoned, &open, QueueingHint::kQueue},
      {"skip-on-becoming-unschedulable", &open, &cordoned, QueueingHint::kQueueSkip},
  };
  const ClusterEvent event{EventResource::kNode, ActionType::kUpdateNodeTaint, "test"};
  for (const Case& c : cases) {
    const absl::StatusOr<QueueingHint> got =
        plugin.Hint(pod, event, EventObjects{.old_node = c.old_node, .new_node = c.new_node});
    ASSERT_TRUE(got.ok()) << c.name;
    EXPECT_EQ(*got, c.want) << c.name;
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins
