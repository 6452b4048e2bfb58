#include "scheduler/plugins/node_affinity/node_affinity.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using kube::NodeSelectorOperator;
using kube::NodeSelectorTerm;
using kube::testing::MakeNode;
using kube::testing::MakePod;
using ::testing::UnorderedElementsAre;

NodeSelectorTerm Expr(std::string key, NodeSelectorOperator op, std::vector<std::string> values) {
  NodeSelectorTerm t;
  t.match_expressions.push_back({std::move(key), op, std::move(values)});
  return t;
}
NodeSelectorTerm Names(std::vector<std::string> names) {
  NodeSelectorTerm t;
  t.match_fields.push_back({"metadata.name", NodeSelectorOperator::kIn, std::move(names)});
  return t;
}
kube::Pod WithRequired(std::vector<NodeSelectorTerm> terms) {
  kube::Pod pod = MakePod().Name("p").Obj();
  pod.spec.affinity.emplace().node_affinity.emplace().required.emplace().node_selector_terms =
      std::move(terms);
  return pod;
}
NodeInfo Info(const kube::Node& node) { return NodeInfo(std::make_shared<kube::Node>(node)); }

const Status& PodRejected() {
  static const Status* s = new Status(
      Status::UnschedulableAndUnresolvable("node(s) didn't match Pod's node affinity/selector")
          .WithPlugin("NodeAffinity"));
  return *s;
}

TEST(NodeAffinityTest, Filter) {
  using Op = NodeSelectorOperator;
  const kube::Node node =
      MakeNode().Name("n1").Label("zone", "a").Label("disk", "ssd").Label("gen", "3").Obj();
  struct Case {
    std::string name;
    kube::Pod pod;
    Status want;
  };
  const std::vector<Case> cases = {
      {"nodeSelector subset", MakePod().NodeSelector({{"zone", "a"}, {"disk", "ssd"}}).Obj(),
       Status::Success()},
      {"nodeSelector other value", MakePod().NodeSelector({{"zone", "b"}}).Obj(), PodRejected()},
      {"nodeSelector missing label", MakePod().NodeSelector({{"rack", "r1"}}).Obj(), PodRejected()},
      {"required In", MakePod().NodeAffinityIn("zone", {"a", "b"}).Obj(), Status::Success()},
      {"required NotIn", MakePod().NodeAffinityNotIn("zone", {"a"}).Obj(), PodRejected()},
      {"expressions ANDed", WithRequired({[] {
         NodeSelectorTerm t = Expr("zone", Op::kIn, {"a"});
         t.match_expressions.push_back({"gen", Op::kGt, {"5"}});  // 3 > 5 false
         return t;
       }()}),
       PodRejected()},
      {"terms ORed", WithRequired({Expr("zone", Op::kIn, {"b"}), Expr("gen", Op::kLt, {"5"})}),
       Status::Success()},
      {"empty term matches nothing", WithRequired({NodeSelectorTerm{}}), PodRejected()},
      {"empty term list matches nothing", WithRequired({}), PodRejected()},
      {"matchFields name", WithRequired({Names({"n1"})}), Status::Success()},
      {"matchFields other name", WithRequired({Names({"n2"})}), PodRejected()},
      {"nodeSelector and affinity ANDed",
       MakePod().NodeSelector({{"disk", "hdd"}}).NodeAffinityIn("zone", {"a"}).Obj(),
       PodRejected()},
  };
  NodeAffinity plugin{NodeAffinityArgs{}};
  const NodeInfo info = Info(node);
  const std::vector<const NodeInfo*> nodes = {&info};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CycleState state;
    PreFilterResult result;
    const Status pre = plugin.PreFilter(state, c.pod, nodes, result);
    ASSERT_TRUE(pre.IsSuccess()) << pre;
    EXPECT_EQ(plugin.Filter(state, c.pod, info), c.want);
    // Without PreFilter state (PreFilter disabled) the verdict is the same.
    CycleState empty;
    EXPECT_EQ(plugin.Filter(empty, c.pod, info), c.want);
  }
}

TEST(NodeAffinityTest, PreFilterSkipsPodsWithoutRequirements) {
  NodeAffinity plugin{NodeAffinityArgs{}};
  CycleState state;
  PreFilterResult result;
  kube::Pod pod =
      MakePod().PreferredNodeAffinity(5, Expr("zone", NodeSelectorOperator::kIn, {"a"})).Obj();
  EXPECT_TRUE(plugin.PreFilter(state, pod, {}, result).IsSkip());
  EXPECT_TRUE(result.AllNodes());
}

TEST(NodeAffinityTest, PreFilterPinnedNodeNames) {
  struct Case {
    std::string name;
    std::vector<NodeSelectorTerm> terms;
    Code want_code;
    std::optional<std::vector<std::string>> want_names;  // nullopt: all nodes
  };
  NodeSelectorTerm both = Names({"a", "b", "c"});
  both.match_fields.push_back({"metadata.name", NodeSelectorOperator::kIn, {"b", "c", "d"}});
  NodeSelectorTerm disjoint = Names({"a"});
  disjoint.match_fields.push_back({"metadata.name", NodeSelectorOperator::kIn, {"b"}});
  const std::vector<Case> cases = {
      {"one term", {Names({"n1"})}, Code::kSuccess, std::vector<std::string>{"n1"}},
      // Union over terms: {a} ∪ {b, c}.
      {"union of terms",
       {Names({"a"}), Names({"b", "c"})},
       Code::kSuccess,
       std::vector<std::string>{"a", "b", "c"}},
      // Intersection within a term: {a,b,c} ∩ {b,c,d} = {b,c}.
      {"intersection within a term", {both}, Code::kSuccess, std::vector<std::string>{"b", "c"}},
      {"a term without names: all nodes",
       {Names({"a"}), Expr("zone", NodeSelectorOperator::kExists, {})},
       Code::kSuccess,
       std::nullopt},
      {"conflict", {disjoint}, Code::kUnschedulableAndUnresolvable, std::nullopt},
  };
  NodeAffinity plugin{NodeAffinityArgs{}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CycleState state;
    PreFilterResult result;
    const Status s = plugin.PreFilter(state, WithRequired(c.terms), {}, result);
    EXPECT_EQ(s.code(), c.want_code) << s;
    if (c.want_code != Code::kSuccess) {
      EXPECT_EQ(s.Message(), "pod affinity terms conflict");
      continue;
    }
    if (!c.want_names.has_value()) {
      EXPECT_TRUE(result.AllNodes());
      continue;
    }
    ASSERT_FALSE(result.AllNodes());
    std::vector<std::string> got(result.node_names->begin(), result.node_names->end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, *c.want_names);
  }
}

TEST(NodeAffinityTest, AddedAffinityIsEnforced) {
  NodeAffinityArgs args;
  args.added_affinity.emplace().required.emplace().node_selector_terms = {
      Expr("pool", NodeSelectorOperator::kIn, {"trimaran"})};
  NodeAffinity plugin(args);
  const kube::Pod pod = MakePod().Obj();  // no own requirements
  CycleState state;
  PreFilterResult result;
  ASSERT_TRUE(plugin.PreFilter(state, pod, {}, result).IsSuccess());  // not Skip
  EXPECT_TRUE(
      plugin.Filter(state, pod, Info(MakeNode().Label("pool", "trimaran").Obj())).IsSuccess());
  EXPECT_EQ(
      plugin.Filter(state, pod, Info(MakeNode().Label("pool", "other").Obj())),
      Status::UnschedulableAndUnresolvable("node(s) didn't match scheduler-enforced node affinity")
          .WithPlugin("NodeAffinity"));
  // Both must hold: added affinity matches, the pod's own selector does not.
  const kube::Pod picky = MakePod().NodeSelector({{"zone", "z"}}).Obj();
  ASSERT_TRUE(plugin.PreFilter(state, picky, {}, result).IsSuccess());
  EXPECT_EQ(plugin.Filter(state, picky, Info(MakeNode().Label("pool", "trimaran").Obj())),
            PodRejected());
}

TEST(NodeAffinityTest, ScoreAndNormalize) {
  using Op = NodeSelectorOperator;
  NodeAffinityArgs args;
  args.added_affinity.emplace().preferred = {{3, Expr("ssd", Op::kExists, {})}};
  NodeAffinity plugin(args);
  const kube::Pod pod = MakePod()
                            .PreferredNodeAffinity(10, Expr("zone", Op::kIn, {"a"}))
                            .PreferredNodeAffinity(5, Expr("gen", Op::kGt, {"2"}))
                            .Obj();
  const std::vector<kube::Node> nodes = {
      MakeNode().Name("n0").Obj(),                                                        // 0
      MakeNode().Name("n1").Label("zone", "a").Obj(),                                     // 10
      MakeNode().Name("n2").Label("zone", "a").Label("gen", "3").Obj(),                   // 10 + 5
      MakeNode().Name("n3").Label("zone", "a").Label("gen", "3").Label("ssd", "").Obj(),  // 15+3
  };
  auto handle = testing::NewHandleForTest(nodes);
  CycleState state;
  ASSERT_TRUE(plugin.PreScore(state, pod, handle->snapshot().List()).IsSuccess());
  NodeScoreList scores;
  for (const NodeInfo* ni : handle->snapshot().List()) {
    const ScoreResult r = plugin.Score(state, pod, *ni);
    ASSERT_TRUE(r.status.IsSuccess());
    scores.push_back({ni->name(), r.score, r.exact});
  }
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].score, 10);
  EXPECT_EQ(scores[2].score, 15);
  EXPECT_EQ(scores[3].score, 18);
  // Without PreScore state the raw score is the same.
  CycleState empty;
  EXPECT_EQ(plugin.Score(empty, pod, *handle->snapshot().List()[3]).score, 18);

  ASSERT_TRUE(plugin.NormalizeScore(state, pod, scores).IsSuccess());
  // max = 18: 100*0/18 = 0, 100*10/18 = 55 (55.5...), 100*15/18 = 83 (83.3...), 100.
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].score, 55);
  EXPECT_EQ(scores[2].score, 83);
  EXPECT_EQ(scores[3].score, 100);
  EXPECT_DOUBLE_EQ(scores[1].exact.value_or(-1), 1000.0 / 18);
  EXPECT_DOUBLE_EQ(scores[2].exact.value_or(-1), 1500.0 / 18);
}

TEST(NodeAffinityTest, PreScoreSkipsWithoutPreferredTerms) {
  NodeAffinity plugin{NodeAffinityArgs{}};
  auto handle = testing::NewHandleForTest({MakeNode().Name("n").Obj()});
  CycleState state;
  EXPECT_TRUE(
      plugin
          .PreScore(state, MakePod().NodeAffinityIn("zone", {"a"}).Obj(), handle->snapshot().List())
          .IsSkip());
}

TEST(NodeAffinityTest, NewDecodesArgsAndRegistersEvents) {
  auto handle = testing::NewHandleForTest();
  PluginArgs args;
  args.args = YAML::Load(R"(
addedAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions: [{key: pool, operator: In, values: [trimaran]}]
)");
  absl::StatusOr<std::unique_ptr<Plugin>> p = NodeAffinity::New(args, *handle);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->Name(), "NodeAffinity");
  auto& filter = dynamic_cast<FilterPlugin&>(**p);
  CycleState state;
  EXPECT_EQ(filter.Filter(state, MakePod().Obj(), Info(MakeNode().Obj())).code(),
            Code::kUnschedulableAndUnresolvable);
  const auto events = dynamic_cast<EnqueueExtensions&>(**p).EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(events[0].Match({EventResource::kNode, ActionType::kUpdateNodeLabel, "x"}));
  EXPECT_FALSE(events[0].Match({EventResource::kNode, ActionType::kUpdateNodeTaint, "x"}));

  args.args = YAML::Load("addedAffinity: {bogus: 1}");
  EXPECT_FALSE(NodeAffinity::New(args, *handle).ok());
}

// Upstream's Test_isSchedulableAfterNodeChange (nodeaffinity, 1.37).
TEST(NodeAffinityTest, QueueingHints) {
  const kube::Pod pod = MakePod().Name("p").NodeAffinityIn("foo", {"bar"}).Obj();
  const kube::Node matching = MakeNode().Name("n").Label("foo", "bar").Obj();
  const kube::Node matching_relabelled =
      MakeNode().Name("n").Label("foo", "bar").Label("k", "v").Obj();
  const kube::Node other = MakeNode().Name("n").Label("foo", "baz").Obj();
  NodeAffinityArgs args;
  args.added_affinity.emplace().required.emplace().node_selector_terms = {
      Expr("pool", NodeSelectorOperator::kIn, {"trimaran"})};
  NodeAffinity plain{NodeAffinityArgs{}};
  NodeAffinity enforced(args);
  struct Case {
    std::string name;
    const NodeAffinity* plugin;
    const kube::Node* old_node;
    const kube::Node* new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"skip-queue-on-add-unmatched", &plain, nullptr, &other, QueueingHint::kQueueSkip},
      {"queue-on-add", &plain, nullptr, &matching, QueueingHint::kQueue},
      {"skip-unrelated-changes", &plain, &matching, &matching_relabelled, QueueingHint::kQueueSkip},
      {"queue-on-label-change-to-match", &plain, &other, &matching, QueueingHint::kQueue},
      {"skip-on-label-change-to-unmatch", &plain, &matching, &other, QueueingHint::kQueueSkip},
      {"skip-queue-on-add-scheduler-enforced-node-affinity", &enforced, nullptr, &matching,
       QueueingHint::kQueueSkip},
  };
  const ClusterEvent event{EventResource::kNode, ActionType::kUpdateNodeLabel, "test"};
  for (const Case& c : cases) {
    const absl::StatusOr<QueueingHint> got =
        c.plugin->Hint(pod, event, EventObjects{.old_node = c.old_node, .new_node = c.new_node});
    ASSERT_TRUE(got.ok()) << c.name;
    EXPECT_EQ(*got, c.want) << c.name;
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins
