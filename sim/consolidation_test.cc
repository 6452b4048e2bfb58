#include "sim/consolidation.h"

#include "gtest/gtest.h"

namespace trimaran::sim {
namespace {

NodeGroup Group(const std::string& name, int64_t cpu, int64_t mem, double price, int min = 0) {
  NodeGroup g;
  g.name = name;
  g.cpu_milli = cpu;
  g.memory_mib = mem;
  g.price_per_hour = price;
  g.min = min;
  g.max = 100;
  return g;
}

NodeLoad Load(const std::string& name, const std::string& group, int64_t cpu,
              std::vector<Request> pods) {
  return NodeLoad{name, group, cpu, 16384, 110, std::move(pods)};
}

AutoscalerConfig Config(Consolidation c, double after = 0) {
  AutoscalerConfig config;
  config.consolidation = c;
  config.consolidate_after = after;
  return config;
}

TEST(PlanConsolidation, NoneDoesNothing) {
  const std::vector<NodeGroup> groups = {Group("g", 4000, 16384, 0.2)};
  EXPECT_TRUE(PlanConsolidation(0, {Load("n1", "g", 4000, {})}, {}, {{"g", 1}}, groups,
                                Config(Consolidation::kNone))
                  .empty());
}

TEST(PlanConsolidation, EmptyNodesGoAtOnceWithinTheBudgetAndAboveMin) {
  const std::vector<NodeGroup> groups = {Group("g", 4000, 16384, 0.2, /*min=*/1)};
  std::vector<NodeLoad> nodes;
  for (int i = 0; i < 30; ++i) nodes.push_back(Load("n" + std::to_string(i), "g", 4000, {}));
  // 30 nodes: budget 3.
  std::vector<ConsolidationAction> a =
      PlanConsolidation(0, nodes, {}, {{"g", 30}}, groups, Config(Consolidation::kWhenEmpty));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].kind, ConsolidationAction::Kind::kDelete);
  EXPECT_EQ(a[0].nodes, (std::vector<std::string>{"n0", "n1", "n2"}));
  // min 1 keeps the last node.
  a = PlanConsolidation(0, {Load("n0", "g", 4000, {})}, {}, {{"g", 1}}, groups,
                        Config(Consolidation::kWhenEmpty));
  EXPECT_TRUE(a.empty());
}

TEST(PlanConsolidation, ConsolidateAfterCountsFromTheLastPodChange) {
  const std::vector<NodeGroup> groups = {Group("g", 4000, 16384, 0.2)};
  const std::vector<NodeLoad> nodes = {Load("n1", "g", 4000, {})};
  const AutoscalerConfig config = Config(Consolidation::kWhenEmpty, 300);
  EXPECT_TRUE(PlanConsolidation(399, nodes, {{"n1", 100}}, {{"g", 1}}, groups, config).empty());
  EXPECT_EQ(PlanConsolidation(400, nodes, {{"n1", 100}}, {{"g", 1}}, groups, config).size(), 1u);
}

TEST(PlanConsolidation, WhenEmptyLeavesUnderutilizedNodes) {
  const std::vector<NodeGroup> groups = {Group("g", 4000, 16384, 0.2)};
  const std::vector<NodeLoad> nodes = {Load("n1", "g", 4000, {{500, 100}}),
                                       Load("n2", "g", 4000, {{500, 100}})};
  EXPECT_TRUE(PlanConsolidation(0, nodes, {}, {{"g", 2}}, groups, Config(Consolidation::kWhenEmpty))
                  .empty());
  // WhenEmptyOrUnderutilized deletes one: its pod fits on the other.
  std::vector<ConsolidationAction> a = PlanConsolidation(
      0, nodes, {}, {{"g", 2}}, groups, Config(Consolidation::kWhenEmptyOrUnderutilized));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].kind, ConsolidationAction::Kind::kDelete);
  EXPECT_EQ(a[0].nodes, std::vector<std::string>{"n1"});
}

TEST(PlanConsolidation, SingleNodeDeletePrefersFewestPods) {
  const std::vector<NodeGroup> groups = {Group("g", 4000, 16384, 0.2)};
  const std::vector<NodeLoad> nodes = {Load("a", "g", 4000, {{500, 1}, {500, 1}}),
                                       Load("b", "g", 4000, {{500, 1}}),
                                       Load("c", "g", 4000, {{1000, 1}, {1000, 1}})};
  std::vector<ConsolidationAction> a = PlanConsolidation(
      0, nodes, {}, {{"g", 3}}, groups, Config(Consolidation::kWhenEmptyOrUnderutilized));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].nodes, std::vector<std::string>{"b"});
}

TEST(PlanConsolidation, ReplacesWithTheCheapestGroupThatHoldsThePods) {
  // One big node ($0.768) with 1.5 CPU of pods, nothing else to move them to: a cheaper
  // 2-CPU node ($0.096) holds them; the 4-CPU one ($0.192) is dearer than that.
  const std::vector<NodeGroup> groups = {
      Group("big", 16000, 65536, 0.768), Group("xl", 4000, 16384, 0.192),
      Group("large", 2000, 8192, 0.096), Group("tiny", 1000, 4096, 0.048)};
  const std::vector<NodeLoad> nodes = {
      NodeLoad{"big-0", "big", 16000, 65536, 110, {{1000, 1024}, {500, 1024}}}};
  std::vector<ConsolidationAction> a = PlanConsolidation(
      0, nodes, {}, {{"big", 1}}, groups, Config(Consolidation::kWhenEmptyOrUnderutilized));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].kind, ConsolidationAction::Kind::kReplace);
  EXPECT_EQ(a[0].nodes, std::vector<std::string>{"big-0"});
  EXPECT_EQ(a[0].replacement_group, "large");
  // Nothing cheaper holds them: no action.
  const std::vector<NodeLoad> full = {
      NodeLoad{"large-0", "large", 2000, 8192, 110, {{1000, 1024}, {500, 1024}}}};
  EXPECT_TRUE(PlanConsolidation(0, full, {}, {{"large", 1}}, groups,
                                Config(Consolidation::kWhenEmptyOrUnderutilized))
                  .empty());
}

}  // namespace
}  // namespace trimaran::sim

namespace trimaran::sim {
namespace {

// 18 full 4-CPU nodes ($0.2/h) and two at 2.5 CPU: neither's pod fits on the other, and
// no group is cheaper than one node; a 6-CPU node ($0.3/h) holds both pods.
struct MultiNodeCase {
  std::vector<NodeGroup> groups = {Group("m", 4000, 16384, 0.2), Group("l", 6000, 16384, 0.3)};
  std::vector<NodeLoad> nodes;
  explicit MultiNodeCase(int fillers = 18) {
    nodes.push_back(Load("a", "m", 4000, {{2500, 1}}));
    nodes.push_back(Load("b", "m", 4000, {{2500, 1}}));
    for (int i = 0; i < fillers; ++i) {
      nodes.push_back(Load("f" + std::to_string(100 + i), "m", 4000, {{4000, 1}}));
    }
  }
  std::map<std::string, int> Sizes() const {
    return {{"m", static_cast<int>(nodes.size())}, {"l", 0}};
  }
};

TEST(PlanConsolidation, MultiNodeReplacesTwoHalfEmptyNodesByOneCheaperNode) {
  const MultiNodeCase c;
  std::vector<ConsolidationAction> a = PlanConsolidation(
      0, c.nodes, {}, c.Sizes(), c.groups, Config(Consolidation::kWhenEmptyOrUnderutilized));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(a[0].multi_node);
  EXPECT_EQ(a[0].kind, ConsolidationAction::Kind::kReplace);
  EXPECT_EQ(a[0].nodes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(a[0].replacement_group, "l");  // $0.3 < $0.2 + $0.2
  // The single-node pass alone could not act: each node's pod fits nowhere else, and the
  // 6-CPU node is dearer than one 4-CPU node. (Ten nodes: a budget of one, so no
  // multi-node action, and no single-node one either.)
  const MultiNodeCase small(8);
  EXPECT_TRUE(PlanConsolidation(0, small.nodes, {}, small.Sizes(), small.groups,
                                Config(Consolidation::kWhenEmptyOrUnderutilized))
                  .empty());
}

TEST(PlanConsolidation, MultiNodeStaysWithinTheBudget) {
  // Four 2.5-CPU nodes among 20: the budget (2) caps the prefix at two nodes.
  MultiNodeCase c(16);
  c.nodes.push_back(Load("c", "m", 4000, {{2500, 1}}));
  c.nodes.push_back(Load("d", "m", 4000, {{2500, 1}}));
  c.groups.push_back(Group("xl", 12000, 16384, 0.5));  // would hold all four for < $0.8
  std::vector<ConsolidationAction> a = PlanConsolidation(
      0, c.nodes, {}, c.Sizes(), c.groups, Config(Consolidation::kWhenEmptyOrUnderutilized));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(a[0].multi_node);
  EXPECT_EQ(a[0].nodes.size(), 2u);
  EXPECT_EQ(a[0].replacement_group, "l");
  // With 40 nodes (budget 4) the longest prefix, all four, goes to one 12-CPU node.
  MultiNodeCase big(36);
  big.nodes.push_back(Load("c", "m", 4000, {{2500, 1}}));
  big.nodes.push_back(Load("d", "m", 4000, {{2500, 1}}));
  big.groups.push_back(Group("xl", 12000, 16384, 0.5));
  a = PlanConsolidation(0, big.nodes, {}, big.Sizes(), big.groups,
                        Config(Consolidation::kWhenEmptyOrUnderutilized));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].nodes, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(a[0].replacement_group, "xl");
}

TEST(PlanConsolidation, MultiNodeWaitsForConsolidateAfter) {
  const MultiNodeCase c;
  const AutoscalerConfig config = Config(Consolidation::kWhenEmptyOrUnderutilized, 300);
  // "b" changed 100 s ago: only "a" and full nodes are candidates, and no prefix fits.
  EXPECT_TRUE(PlanConsolidation(1000, c.nodes, {{"b", 900}}, c.Sizes(), c.groups, config).empty());
  std::vector<ConsolidationAction> a =
      PlanConsolidation(1200, c.nodes, {{"b", 900}}, c.Sizes(), c.groups, config);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].nodes, (std::vector<std::string>{"a", "b"}));
}

TEST(PlanConsolidation, TheFitCheckDecides) {
  // A check that refuses everything (a profile whose filters reject the moves): no
  // consolidation of non-empty nodes at all.
  const MultiNodeCase c;
  const FitCheck never = [](const std::vector<const NodeLoad*>&,
                            const std::vector<const NodeLoad*>&,
                            const NodeGroup*) { return false; };
  EXPECT_TRUE(PlanConsolidation(0, c.nodes, {}, c.Sizes(), c.groups,
                                Config(Consolidation::kWhenEmptyOrUnderutilized), never)
                  .empty());
}

}  // namespace
}  // namespace trimaran::sim
