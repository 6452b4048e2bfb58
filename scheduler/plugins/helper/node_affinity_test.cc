#include "scheduler/plugins/helper/node_affinity.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched::plugins::helper {
namespace {

using kube::NodeSelectorOperator;
using kube::NodeSelectorRequirement;
using kube::NodeSelectorTerm;
using kube::testing::MakeNode;
using kube::testing::MakePod;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

NodeSelectorTerm Expr(std::string key, NodeSelectorOperator op, std::vector<std::string> values) {
  NodeSelectorTerm t;
  t.match_expressions.push_back({std::move(key), op, std::move(values)});
  return t;
}
NodeSelectorTerm Field(NodeSelectorOperator op, std::vector<std::string> values,
                       std::string key = "metadata.name") {
  NodeSelectorTerm t;
  t.match_fields.push_back({std::move(key), op, std::move(values)});
  return t;
}

TEST(NodeSelectorTermMatcherTest, Operators) {
  using Op = NodeSelectorOperator;
  const kube::Node node = MakeNode().Name("n1").Label("zone", "a").Label("gen", "5").Obj();
  struct Case {
    std::string name;
    NodeSelectorTerm term;
    bool want;
  };
  const std::vector<Case> cases = {
      {"In match", Expr("zone", Op::kIn, {"b", "a"}), true},
      {"In other value", Expr("zone", Op::kIn, {"b"}), false},
      {"In absent label", Expr("rack", Op::kIn, {"a"}), false},
      {"NotIn other value", Expr("zone", Op::kNotIn, {"b"}), true},
      {"NotIn same value", Expr("zone", Op::kNotIn, {"a"}), false},
      {"NotIn absent label", Expr("rack", Op::kNotIn, {"a"}), true},
      {"Exists", Expr("zone", Op::kExists, {}), true},
      {"Exists absent", Expr("rack", Op::kExists, {}), false},
      {"DoesNotExist", Expr("rack", Op::kDoesNotExist, {}), true},
      {"DoesNotExist present", Expr("zone", Op::kDoesNotExist, {}), false},
      {"Gt 5 > 4", Expr("gen", Op::kGt, {"4"}), true},
      {"Gt 5 > 5 false", Expr("gen", Op::kGt, {"5"}), false},
      {"Lt 5 < 6", Expr("gen", Op::kLt, {"6"}), true},
      {"Lt 5 < 5 false", Expr("gen", Op::kLt, {"5"}), false},
      {"Gt non-integer label", Expr("zone", Op::kGt, {"1"}), false},
      {"Gt absent label", Expr("rack", Op::kGt, {"1"}), false},
      // Invalid terms are dropped: they match nothing.
      {"Gt non-integer value", Expr("gen", Op::kGt, {"x"}), false},
      {"Gt two values", Expr("gen", Op::kGt, {"1", "2"}), false},
      // An operator the codec did not recognise: upstream's selector conversion fails,
      // so the term matches no node (not even with NotIn/DoesNotExist semantics).
      {"unknown operator", Expr("zone", Op::kUnrecognized, {"a"}), false},
      {"unknown operator, absent label", Expr("rack", Op::kUnrecognized, {}), false},
      {"unknown field operator", Field(Op::kUnrecognized, {"n1"}), false},
      {"In without values", Expr("zone", Op::kIn, {}), false},
      {"Exists with values", Expr("zone", Op::kExists, {"a"}), false},
      {"field In", Field(Op::kIn, {"n1"}), true},
      {"field In other", Field(Op::kIn, {"n2"}), false},
      {"field NotIn other", Field(Op::kNotIn, {"n2"}), true},
      {"field NotIn self", Field(Op::kNotIn, {"n1"}), false},
      {"field two values", Field(Op::kIn, {"n1", "n2"}), false},
      {"field Exists", Field(Op::kExists, {"n1"}), false},
      {"field other key", Field(Op::kIn, {"n1"}, "metadata.uid"), false},
      {"empty term", NodeSelectorTerm{}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto m = NodeSelectorTermMatcher::Parse(c.term);
    EXPECT_EQ(m.has_value() && m->Matches(node), c.want);
  }
}

TEST(NodeSelectorTermMatcherTest, ExpressionsAndFieldsAreAnded) {
  NodeSelectorTerm term = Expr("zone", NodeSelectorOperator::kIn, {"a"});
  term.match_fields.push_back({"metadata.name", NodeSelectorOperator::kIn, {"n1"}});
  const auto m = NodeSelectorTermMatcher::Parse(term);
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->Matches(MakeNode().Name("n1").Label("zone", "a").Obj()));
  EXPECT_FALSE(m->Matches(MakeNode().Name("n2").Label("zone", "a").Obj()));
  EXPECT_FALSE(m->Matches(MakeNode().Name("n1").Label("zone", "b").Obj()));
}

TEST(NodeSelectorMatcherTest, TermsAreOredInvalidDropped) {
  kube::NodeSelector selector;
  selector.node_selector_terms = {Expr("zone", NodeSelectorOperator::kGt, {"x"}),  // invalid
                                  Expr("zone", NodeSelectorOperator::kIn, {"b"})};
  const NodeSelectorMatcher m(selector);
  EXPECT_TRUE(m.Matches(MakeNode().Label("zone", "b").Obj()));
  EXPECT_FALSE(m.Matches(MakeNode().Label("zone", "a").Obj()));
  EXPECT_FALSE(NodeSelectorMatcher(kube::NodeSelector{}).Matches(MakeNode().Obj()));
}

TEST(NodeSelectorTermMatcherTest, PinnedNodeNames) {
  NodeSelectorTerm term = Field(NodeSelectorOperator::kIn, {"a", "b", "c"});
  term.match_fields.push_back({"metadata.name", NodeSelectorOperator::kIn, {"c", "b", "x"}});
  term.match_fields.push_back({"metadata.name", NodeSelectorOperator::kNotIn, {"b"}});
  const auto names = NodeSelectorTermMatcher::PinnedNodeNames(term);
  ASSERT_TRUE(names.has_value());
  EXPECT_THAT(*names, ElementsAre("b", "c"));  // {a,b,c} ∩ {b,c,x}; NotIn ignored
  EXPECT_FALSE(
      NodeSelectorTermMatcher::PinnedNodeNames(Expr("zone", NodeSelectorOperator::kIn, {"a"}))
          .has_value());
}

TEST(PreferredSchedulingTermsTest, SumsMatchingWeights) {
  const std::vector<kube::PreferredSchedulingTerm> terms = {
      {5, Expr("zone", NodeSelectorOperator::kIn, {"a"})},
      {7, Expr("disk", NodeSelectorOperator::kExists, {})},
      {0, Expr("zone", NodeSelectorOperator::kIn, {"a"})},  // weight 0: ignored
      {11, NodeSelectorTerm{}},                             // empty: ignored
      {13, Expr("gen", NodeSelectorOperator::kLt, {"x"})},  // invalid: ignored
  };
  const PreferredSchedulingTerms p(terms);
  EXPECT_EQ(p.Score(MakeNode().Label("zone", "a").Label("disk", "ssd").Obj()), 12);  // 5 + 7
  EXPECT_EQ(p.Score(MakeNode().Label("zone", "b").Label("disk", "ssd").Obj()), 7);
  EXPECT_EQ(p.Score(MakeNode().Obj()), 0);
  EXPECT_TRUE(PreferredSchedulingTerms().empty());
}

TEST(RequiredNodeAffinityTest, NodeSelectorAndAffinityAnded) {
  const kube::Pod pod =
      MakePod().NodeSelector({{"disk", "ssd"}}).NodeAffinityIn("zone", {"a", "b"}).Obj();
  const RequiredNodeAffinity r(pod);
  EXPECT_TRUE(r.Matches(MakeNode().Label("disk", "ssd").Label("zone", "b").Obj()));
  EXPECT_FALSE(r.Matches(MakeNode().Label("disk", "hdd").Label("zone", "b").Obj()));
  EXPECT_FALSE(r.Matches(MakeNode().Label("disk", "ssd").Label("zone", "c").Obj()));
  EXPECT_FALSE(r.Matches(MakeNode().Label("zone", "a").Obj()));
  EXPECT_TRUE(RequiredNodeAffinity(MakePod().Obj()).Matches(MakeNode().Obj()));
}

TEST(ValidateNodeSelectorTermTest, ReportsEveryErrorWithPath) {
  NodeSelectorTerm term;
  term.match_expressions = {{"", NodeSelectorOperator::kIn, {}},
                            {"g", NodeSelectorOperator::kGt, {"x"}}};
  term.match_fields = {{"metadata.uid", NodeSelectorOperator::kExists, {}}};
  std::vector<std::string> errors;
  ValidateNodeSelectorTerm(term, "t", errors);
  ASSERT_EQ(errors.size(), 6u) << ::testing::PrintToString(errors);
  EXPECT_THAT(errors[0], HasSubstr("t.matchExpressions[0].key: Required value"));
  EXPECT_THAT(errors[1], HasSubstr("t.matchExpressions[0].values: Required value"));
  EXPECT_THAT(errors[2], HasSubstr("t.matchExpressions[1].values[0]: Invalid value: \"x\""));
  EXPECT_THAT(errors[3], HasSubstr("t.matchFields[0].key: Invalid value: \"metadata.uid\""));
  EXPECT_THAT(errors[4], HasSubstr("t.matchFields[0].operator: Invalid value: \"Exists\""));
  EXPECT_THAT(errors[5], HasSubstr("t.matchFields[0].values: Required value"));
}

}  // namespace
}  // namespace trimaran::sched::plugins::helper
