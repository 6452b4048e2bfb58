#include "scheduler/plugins/taint_toleration/taint_toleration.h"

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

NodeInfo Info(const kube::Node& node) { return NodeInfo(std::make_shared<kube::Node>(node)); }

TEST(TaintTolerationTest, Filter) {
  auto untolerated = [](std::string text) {
    return Status::UnschedulableAndUnresolvable(text).WithPlugin("TaintToleration");
  };
  struct Case {
    std::string name;
    kube::Node node;
    kube::Pod pod;
    Status want;
  };
  const std::vector<Case> cases = {
      {"no taints", MakeNode().Obj(), MakePod().Obj(), Status::Success()},
      {"untolerated NoSchedule",
       MakeNode().Taint("dedicated", "gpu", TaintEffect::kNoSchedule).Obj(), MakePod().Obj(),
       untolerated("node(s) had untolerated taint(s)")},
      {"an empty value",
       MakeNode()
           .Taint("node-role.kubernetes.io/control-plane", "", TaintEffect::kNoSchedule)
           .Obj(),
       MakePod().Obj(), untolerated("node(s) had untolerated taint(s)")},
      {"untolerated NoExecute", MakeNode().Taint("k", "v", TaintEffect::kNoExecute).Obj(),
       MakePod().Obj(), untolerated("node(s) had untolerated taint(s)")},
      {"PreferNoSchedule never filters",
       MakeNode().Taint("k", "v", TaintEffect::kPreferNoSchedule).Obj(), MakePod().Obj(),
       Status::Success()},
      {"tolerated Equal", MakeNode().Taint("k", "v", TaintEffect::kNoSchedule).Obj(),
       MakePod().Toleration("k", "v", TaintEffect::kNoSchedule).Obj(), Status::Success()},
      {"Equal with another value", MakeNode().Taint("k", "v", TaintEffect::kNoSchedule).Obj(),
       MakePod().Toleration("k", "w", TaintEffect::kNoSchedule).Obj(),
       untolerated("node(s) had untolerated taint(s)")},
      {"Exists, empty effect", MakeNode().Taint("k", "v", TaintEffect::kNoExecute).Obj(),
       MakePod().TolerationExists("k").Obj(), Status::Success()},
      {"toleration effect differs", MakeNode().Taint("k", "v", TaintEffect::kNoExecute).Obj(),
       MakePod().TolerationExists("k", TaintEffect::kNoSchedule).Obj(),
       untolerated("node(s) had untolerated taint(s)")},
      {"empty key Exists tolerates all",
       MakeNode()
           .Taint("a", "1", TaintEffect::kNoSchedule)
           .Taint("b", "2", TaintEffect::kNoExecute)
           .Obj(),
       MakePod().TolerationExists("").Obj(), Status::Success()},
      {"one untolerated among tolerated ones",
       MakeNode()
           .Taint("a", "1", TaintEffect::kNoSchedule)
           .Taint("b", "2", TaintEffect::kNoSchedule)
           .Obj(),
       MakePod().Toleration("a", "1", TaintEffect::kNoSchedule).Obj(),
       untolerated("node(s) had untolerated taint(s)")},
  };
  TaintToleration plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CycleState state;
    EXPECT_EQ(plugin.Filter(state, c.pod, Info(c.node)), c.want);
  }
}

TEST(TaintTolerationTest, ScoreAndNormalize) {
  // n0: no taints -> count 0; n1: one intolerable soft taint -> 1; n2: two -> 2;
  // n3: one soft taint tolerated + one NoSchedule (ignored by Score) -> 0.
  const std::vector<kube::Node> nodes = {
      MakeNode().Name("n0").Obj(),
      MakeNode().Name("n1").Taint("a", "1", TaintEffect::kPreferNoSchedule).Obj(),
      MakeNode()
          .Name("n2")
          .Taint("a", "1", TaintEffect::kPreferNoSchedule)
          .Taint("b", "2", TaintEffect::kPreferNoSchedule)
          .Obj(),
      MakeNode()
          .Name("n3")
          .Taint("tol", "x", TaintEffect::kPreferNoSchedule)
          .Taint("hard", "", TaintEffect::kNoSchedule)
          .Obj(),
  };
  // The NoSchedule-only toleration of "a" does not count for PreferNoSchedule taints.
  const kube::Pod pod = MakePod()
                            .Toleration("tol", "x", TaintEffect::kPreferNoSchedule)
                            .TolerationExists("a", TaintEffect::kNoSchedule)
                            .Obj();
  auto handle = testing::NewHandleForTest(nodes);
  TaintToleration plugin;
  CycleState state;
  ASSERT_TRUE(plugin.PreScore(state, pod, handle->snapshot().List()).IsSuccess());
  NodeScoreList scores;
  for (const NodeInfo* ni : handle->snapshot().List()) {
    const ScoreResult r = plugin.Score(state, pod, *ni);
    ASSERT_TRUE(r.status.IsSuccess());
    scores.push_back({ni->name(), r.score, r.exact});
  }
  ASSERT_EQ(scores.size(), 4u);
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].score, 1);
  EXPECT_EQ(scores[2].score, 2);
  EXPECT_EQ(scores[3].score, 0);
  ASSERT_TRUE(plugin.NormalizeScore(state, pod, scores).IsSuccess());
  // maxCount = 2: 100 - 100*0/2 = 100, 100 - 100*1/2 = 50, 100 - 100*2/2 = 0.
  EXPECT_EQ(scores[0].score, 100);
  EXPECT_EQ(scores[1].score, 50);
  EXPECT_EQ(scores[2].score, 0);
  EXPECT_EQ(scores[3].score, 100);
  EXPECT_DOUBLE_EQ(scores[1].exact.value_or(-1), 50.0);

  // Without PreScore's state the count is the same.
  CycleState empty;
  EXPECT_EQ(plugin.Score(empty, pod, *handle->snapshot().List()[2]).score, 2);
}

TEST(TaintTolerationTest, NormalizeNoTaintsAnywhereGives100) {
  TaintToleration plugin;
  CycleState state;
  NodeScoreList scores = {{"a", 0, std::nullopt}, {"b", 0, std::nullopt}};
  ASSERT_TRUE(plugin.NormalizeScore(state, MakePod().Obj(), scores).IsSuccess());
  EXPECT_EQ(scores[0].score, 100);
  EXPECT_EQ(scores[1].score, 100);
}

TEST(TaintTolerationTest, NewEventsMissingNode) {
  auto handle = testing::NewHandleForTest();
  absl::StatusOr<std::unique_ptr<Plugin>> p = TaintToleration::New(PluginArgs{}, *handle);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->Name(), "TaintToleration");
  EXPECT_NE(dynamic_cast<ScorePlugin&>(**p).GetScoreExtensions(), nullptr);
  const auto events = dynamic_cast<EnqueueExtensions&>(**p).EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].Match({EventResource::kNode, ActionType::kUpdateNodeTaint, "x"}));
  TaintToleration plugin;
  CycleState state;
  EXPECT_TRUE(plugin.Filter(state, MakePod().Obj(), NodeInfo()).IsError());
  EXPECT_TRUE(plugin.Score(state, MakePod().Obj(), NodeInfo()).status.IsError());
}

// Upstream's TestIsSchedulableAfterNodeChange (tainttoleration, 1.37): queue only when
// the node had an untolerated NoSchedule/NoExecute taint (or is new) and has none now.
TEST(TaintTolerationTest, QueueingHints) {
  TaintToleration plugin;
  const kube::Pod pod =
      MakePod().Name("p").Toleration("tolerated", "v", TaintEffect::kNoSchedule).Obj();
  const kube::Node clean = MakeNode().Name("n").Obj();
  const kube::Node clean_relabelled = MakeNode().Name("n").Label("k", "v").Obj();
  const kube::Node untolerated =
      MakeNode().Name("n").Taint("foo", "bar", TaintEffect::kNoSchedule).Obj();
  const kube::Node other_untolerated =
      MakeNode().Name("n").Taint("baz", "qux", TaintEffect::kNoExecute).Obj();
  const kube::Node tolerated =
      MakeNode().Name("n").Taint("tolerated", "v", TaintEffect::kNoSchedule).Obj();
  const kube::Node prefer =
      MakeNode().Name("n").Taint("foo", "bar", TaintEffect::kPreferNoSchedule).Obj();
  struct Case {
    std::string name;
    const kube::Node* old_node;
    const kube::Node* new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"node added without taints", nullptr, &clean, QueueingHint::kQueue},
      {"node added with an untolerated taint", nullptr, &untolerated, QueueingHint::kQueueSkip},
      {"node added with a tolerated taint", nullptr, &tolerated, QueueingHint::kQueue},
      {"untolerated taint removed", &untolerated, &clean, QueueingHint::kQueue},
      {"untolerated taint replaced by a tolerated one", &untolerated, &tolerated,
       QueueingHint::kQueue},
      {"untolerated taint replaced by another untolerated one", &untolerated, &other_untolerated,
       QueueingHint::kQueueSkip},
      {"was already tolerated", &clean, &clean_relabelled, QueueingHint::kQueueSkip},
      {"a PreferNoSchedule taint never blocked it", &prefer, &clean, QueueingHint::kQueueSkip},
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
