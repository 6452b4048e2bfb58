#include "sim/autoscaler.h"

#include "gtest/gtest.h"

namespace trimaran::sim {
namespace {

NodeGroup Group(const std::string& name, int64_t cpu, int64_t mem, double price, int min = 0,
                int max = 100) {
  NodeGroup g;
  g.name = name;
  g.cpu_milli = cpu;
  g.memory_mib = mem;
  g.price_per_hour = price;
  g.min = min;
  g.max = max;
  return g;
}

TEST(EstimateGroup, BinPacksFirstFitDecreasing) {
  const NodeGroup g = Group("g", 4000, 16384, 0.2);
  // 3 × 1.5 CPU + 2 × 1 CPU = 6.5 CPU: FFD puts 1.5+1.5+1 and 1.5+1 on two nodes.
  const std::vector<Request> pods = {
      {1000, 1024}, {1500, 1024}, {1500, 1024}, {1000, 1024}, {1500, 1024}};
  ScaleUpOption o = EstimateGroup(g, pods, 100);
  EXPECT_EQ(o.nodes, 2);
  EXPECT_EQ(o.pods, 5);
  EXPECT_DOUBLE_EQ(o.waste, (8000.0 - 6500) / 8000 + (32768.0 - 5120) / 32768);
  // A pod larger than the template is left out; max_nodes caps the estimate.
  EXPECT_EQ(EstimateGroup(g, {{5000, 1}}, 100).pods, 0);
  EXPECT_EQ(EstimateGroup(g, pods, 1).nodes, 1);
  EXPECT_EQ(EstimateGroup(g, pods, 1).pods, 3);
}

TEST(PlanScaleUp, LeastWastePicksTheTightestShape) {
  // Pods of 2 CPU / 2 GiB: a 2-CPU/4-GiB node wastes 0 + 0.5, an 8-CPU/8-GiB one 0.75 + 0.75.
  const NodeGroup small = Group("small", 2000, 4096, 0.1);
  const NodeGroup big = Group("big", 8000, 8192, 0.2);
  std::mt19937_64 rng(1);
  ScaleUpPlan plan =
      PlanScaleUp({{&big, 10}, {&small, 10}}, {{2000, 2048}}, Expander::kLeastWaste, 1000, rng);
  ASSERT_TRUE(plan.chosen.has_value());
  EXPECT_EQ(plan.options[*plan.chosen].group, "small");
}

TEST(PlanScaleUp, PricePicksTheCheapestPerPod) {
  // Four 2-CPU pods: four small nodes cost 4 × 0.1, one big node 0.3.
  const NodeGroup small = Group("small", 2000, 4096, 0.1);
  const NodeGroup big = Group("big", 8000, 16384, 0.3);
  const std::vector<Request> pods(4, Request{2000, 1024});
  std::mt19937_64 rng(1);
  ScaleUpPlan plan = PlanScaleUp({{&small, 10}, {&big, 10}}, pods, Expander::kPrice, 1000, rng);
  ASSERT_TRUE(plan.chosen.has_value());
  EXPECT_EQ(plan.options[*plan.chosen].group, "big");
  EXPECT_EQ(plan.options[*plan.chosen].nodes, 1);
}

TEST(PlanScaleUp, MostPodsAndLeastNodes) {
  // small takes only the 1-CPU pod (the 3-CPU one does not fit); big takes both on one node.
  const NodeGroup small = Group("small", 2000, 4096, 0.1);
  const NodeGroup big = Group("big", 8000, 16384, 0.3);
  const std::vector<Request> pods = {{1000, 512}, {3000, 512}};
  std::mt19937_64 rng(1);
  ScaleUpPlan most = PlanScaleUp({{&small, 10}, {&big, 10}}, pods, Expander::kMostPods, 1000, rng);
  EXPECT_EQ(most.options[*most.chosen].group, "big");
  // Headroom 0 leaves a group out.
  ScaleUpPlan none = PlanScaleUp({{&small, 0}, {&big, 10}}, pods, Expander::kLeastNodes, 1000, rng);
  ASSERT_EQ(none.options.size(), 1u);
  EXPECT_EQ(none.options[0].group, "big");
  EXPECT_FALSE(PlanScaleUp({{&small, 0}}, pods, Expander::kLeastNodes, 1000, rng).chosen);
}

TEST(PlanScaleUp, TiesGoAtRandomFromTheSeed) {
  const NodeGroup a = Group("a", 2000, 4096, 0.1);
  const NodeGroup b = Group("b", 2000, 4096, 0.1);
  std::set<std::string> seen;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    ScaleUpPlan plan =
        PlanScaleUp({{&a, 5}, {&b, 5}}, {{1000, 1024}}, Expander::kLeastWaste, 1000, rng);
    seen.insert(plan.options[*plan.chosen].group);
    std::mt19937_64 again(seed);
    ScaleUpPlan replay =
        PlanScaleUp({{&a, 5}, {&b, 5}}, {{1000, 1024}}, Expander::kLeastWaste, 1000, again);
    EXPECT_EQ(*plan.chosen, *replay.chosen);
  }
  EXPECT_EQ(seen.size(), 2u);
}

NodeLoad Load(const std::string& name, std::vector<Request> pods) {
  return NodeLoad{name, "g", 4000, 16384, 110, std::move(pods)};
}

TEST(ScaleDownState, RemovesAnEmptyNodeAfterTheUnneededTime) {
  const std::vector<NodeGroup> groups = {Group("g", 4000, 16384, 0.2, 0, 10)};
  ScaleDownState state(AutoscalerConfig{});
  const std::vector<NodeLoad> nodes = {Load("n1", {}), Load("n2", {{3000, 1024}})};
  EXPECT_TRUE(state.Scan(0, nodes, {{"g", 2}}, groups).empty());
  EXPECT_EQ(state.UnneededSince("n1"), 0);
  EXPECT_FALSE(state.UnneededSince("n2").has_value());  // 75 % requested: needed
  EXPECT_TRUE(state.Scan(599, nodes, {{"g", 2}}, groups).empty());
  EXPECT_EQ(state.Scan(600, nodes, {{"g", 2}}, groups), std::vector<std::string>{"n1"});
}

TEST(ScaleDownState, UnderThresholdNodeIsDrainedOnlyIfItsPodsFitElsewhere) {
  const std::vector<NodeGroup> groups = {Group("g", 4000, 16384, 0.2, 0, 10)};
  ScaleDownState state(AutoscalerConfig{});
  // n1 at 25 % fits in n2's free 2 CPU; n2 at 50 % is not under the 0.5 threshold.
  std::vector<NodeLoad> nodes = {Load("n1", {{1000, 1024}}), Load("n2", {{2000, 1024}})};
  state.Scan(0, nodes, {{"g", 2}}, groups);
  EXPECT_EQ(state.Scan(600, nodes, {{"g", 2}}, groups), std::vector<std::string>{"n1"});
  // When the pods cannot move, the node is needed.
  ScaleDownState blocked(AutoscalerConfig{});
  nodes = {Load("n1", {{1500, 1024}}), Load("n2", {{3000, 1024}})};
  blocked.Scan(0, nodes, {{"g", 2}}, groups);
  EXPECT_TRUE(blocked.Scan(600, nodes, {{"g", 2}}, groups).empty());
  EXPECT_FALSE(blocked.UnneededSince("n1").has_value());
}

TEST(ScaleDownState, PausesAfterScaleUpAndRespectsMin) {
  const std::vector<NodeGroup> groups = {Group("g", 4000, 16384, 0.2, 1, 10)};
  ScaleDownState state(AutoscalerConfig{});
  const std::vector<NodeLoad> nodes = {Load("n1", {}), Load("n2", {})};
  state.ScaledUp(100);
  state.Scan(0, nodes, {{"g", 2}}, groups);
  EXPECT_TRUE(state.Scan(650, nodes, {{"g", 2}}, groups).empty());  // 550 s after the add
  // At 700 s both are ripe but min 1 keeps one: the one with the smaller name goes.
  EXPECT_EQ(state.Scan(700, nodes, {{"g", 2}}, groups), std::vector<std::string>{"n1"});
}

TEST(ScaleDownState, EmptyInBulkBusyOneAtATime) {
  const std::vector<NodeGroup> groups = {Group("g", 4000, 16384, 0.2, 0, 100)};
  AutoscalerConfig config;
  config.max_empty_bulk_delete = 2;
  ScaleDownState state(config);
  std::vector<NodeLoad> nodes = {Load("e1", {}), Load("e2", {}), Load("e3", {}),
                                 Load("big", {{3500, 1}})};
  state.Scan(0, nodes, {{"g", 4}}, groups);
  EXPECT_EQ(state.Scan(600, nodes, {{"g", 4}}, groups), (std::vector<std::string>{"e1", "e2"}));
  nodes = {Load("b1", {{500, 1}}), Load("b2", {{500, 1}}), Load("b3", {{500, 1}})};
  ScaleDownState busy(AutoscalerConfig{});
  busy.Scan(0, nodes, {{"g", 3}}, groups);
  EXPECT_EQ(busy.Scan(600, nodes, {{"g", 3}}, groups).size(), 1u);
}

}  // namespace
}  // namespace trimaran::sim
