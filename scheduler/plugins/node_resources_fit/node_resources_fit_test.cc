#include "scheduler/plugins/node_resources_fit/node_resources_fit.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakeNode;
using kube::testing::MakePod;
using kube::testing::ResourceMap;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

NodeInfo MakeNodeInfo(const ResourceMap& allocatable, const std::vector<kube::Pod>& pods = {}) {
  NodeInfo info(
      std::make_shared<const kube::Node>(MakeNode().Name("n1").Capacity(allocatable).Obj()));
  int i = 0;
  for (const kube::Pod& p : pods) {
    kube::Pod copy = p;
    copy.metadata.name = "existing-" + std::to_string(i);
    copy.metadata.uid = copy.metadata.name;
    ++i;
    info.AddPod(std::make_shared<const kube::Pod>(std::move(copy)));
  }
  return info;
}

// ---- Filter ----

TEST(NodeResourcesFitTest, Filter) {
  // 10 cpu, 20 bytes memory (small numbers keep the arithmetic readable), 20 bytes
  // ephemeral storage, 32 pods, 5 example.com/aaa, 4Mi of 2Mi hugepages.
  const ResourceMap kNode = {{"cpu", "10"},  {"memory", "20"},         {"ephemeral-storage", "20"},
                             {"pods", "32"}, {"example.com/aaa", "5"}, {"hugepages-2Mi", "4Mi"}};
  // Uses 5 cpu, 19 memory, 5 ephemeral-storage, 3 example.com/aaa.
  const kube::Pod kUsed = MakePod()
                              .Req({{"cpu", "5"},
                                    {"memory", "19"},
                                    {"ephemeral-storage", "5"},
                                    {"example.com/aaa", "3"}})
                              .Obj();
  struct Case {
    std::string name;
    kube::Pod pod;
    ResourceMap node;
    std::vector<kube::Pod> existing;
    NodeResourcesFitArgs args;
    Code want;
    std::vector<std::string> reasons;
  };
  NodeResourcesFitArgs ignore_aaa = DefaultNodeResourcesFitArgs();
  ignore_aaa.ignored_resources = {"example.com/aaa"};
  NodeResourcesFitArgs ignore_group = DefaultNodeResourcesFitArgs();
  ignore_group.ignored_resource_groups = {"example.com"};
  NodeResourcesFitArgs ignore_native = DefaultNodeResourcesFitArgs();
  ignore_native.ignored_resources = {"kubernetes.io/foo"};
  const NodeResourcesFitArgs defaults = DefaultNodeResourcesFitArgs();

  const std::vector<Case> cases = {
      {"no request fits a busy node",
       MakePod().Container("img").Obj(),
       kNode,
       {kUsed},
       defaults,
       Code::kSuccess,
       {}},
      // 5 + 5 = 10 cpu <= 10; memory 1 <= 20 − 19.
      {"exactly fits",
       MakePod().Req({{"cpu", "5"}, {"memory", "1"}}).Obj(),
       kNode,
       {kUsed},
       defaults,
       Code::kSuccess,
       {}},
      // 6 > 10 − 5, but 6 <= 10 in total: preemption could help.
      {"insufficient cpu",
       MakePod().Req({{"cpu", "6"}}).Obj(),
       kNode,
       {kUsed},
       defaults,
       Code::kUnschedulable,
       {"Insufficient cpu"}},
      // 2 > 20 − 19 memory, 6 > 5 cpu: both, in upstream's order.
      {"insufficient cpu and memory",
       MakePod().Req({{"memory", "2"}, {"cpu", "6"}}).Obj(),
       kNode,
       {kUsed},
       defaults,
       Code::kUnschedulable,
       {"Insufficient cpu", "Insufficient memory"}},
      // 11 > 10 allocatable in total: unresolvable.
      {"more cpu than the node has",
       MakePod().Req({{"cpu", "11"}}).Obj(),
       kNode,
       {},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient cpu"}},
      // The apiserver admits memory: 10E (10^19 bytes > 2^63-1); the codec saturates it
      // (Quantity::ParseSaturating), so such a pod fits no node instead of wrapping.
      {"10E memory fits no node",
       [] {
         kube::Pod p = MakePod().Req({{"cpu", "1"}}).Obj();
         p.spec.containers[0].resources.requests["memory"] =
             *kube::Quantity::ParseSaturating("10E");
         return p;
       }(),
       kNode,
       {kUsed},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient memory"}},
      // Request = max(containers 1, init 6) = 6 cpu > 5 free.
      {"init container dominates",
       MakePod().Req({{"cpu", "1"}}).InitReq({{"cpu", "6"}}).Obj(),
       kNode,
       {kUsed},
       defaults,
       Code::kUnschedulable,
       {"Insufficient cpu"}},
      // Request = containers 1 + sidecar 4.5 = 5.5 cpu > 5 free.
      {"sidecar adds",
       MakePod().Req({{"cpu", "1"}}).SidecarReq({{"cpu", "4500m"}}).Obj(),
       kNode,
       {kUsed},
       defaults,
       Code::kUnschedulable,
       {"Insufficient cpu"}},
      // 16 > 20 − 5.
      {"insufficient ephemeral-storage",
       MakePod().Req({{"ephemeral-storage", "16"}}).Obj(),
       kNode,
       {kUsed},
       defaults,
       Code::kUnschedulable,
       {"Insufficient ephemeral-storage"}},
      // 3 > 5 − 3.
      {"insufficient extended",
       MakePod().Req({{"example.com/aaa", "3"}}).Obj(),
       kNode,
       {kUsed},
       defaults,
       Code::kUnschedulable,
       {"Insufficient example.com/aaa"}},
      {"extended ignored by name",
       MakePod().Req({{"example.com/aaa", "3"}}).Obj(),
       kNode,
       {kUsed},
       ignore_aaa,
       Code::kSuccess,
       {}},
      {"extended ignored by group",
       MakePod().Req({{"example.com/aaa", "3"}}).Obj(),
       kNode,
       {kUsed},
       ignore_group,
       Code::kSuccess,
       {}},
      // kubernetes.io/ resources are not extended: never ignored. The node has none:
      // 1 > 0 allocatable in total -> unresolvable.
      {"native scalar never ignored",
       MakePod().Req({{"kubernetes.io/foo", "1"}}).Obj(),
       kNode,
       {},
       ignore_native,
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient kubernetes.io/foo"}},
      // 6Mi > 4Mi of hugepages (scalar, not extended).
      {"insufficient hugepages",
       MakePod().Req({{"hugepages-2Mi", "6Mi"}}).Obj(),
       kNode,
       {},
       ignore_group,
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient hugepages-2Mi"}},
      // Fixed reasons first, then scalar ones sorted by name.
      {"several scalars",
       MakePod().Req({{"example.org/zzz", "1"}, {"example.com/aaa", "3"}, {"cpu", "6"}}).Obj(),
       kNode,
       {kUsed},
       defaults,
       Code::kUnschedulableAndUnresolvable,
       {"Insufficient cpu", "Insufficient example.com/aaa", "Insufficient example.org/zzz"}},
      // 1 pod + 1 > 1 allowed; the empty pod stops after the pod-count check.
      {"too many pods",
       MakePod().Container("img").Obj(),
       {{"cpu", "10"}, {"pods", "1"}},
       {MakePod().Container("img").Obj()},
       defaults,
       Code::kUnschedulable,
       {"Too many pods"}},
      {"too many pods and insufficient cpu",
       MakePod().Req({{"cpu", "6"}}).Obj(),
       {{"cpu", "10"}, {"pods", "1"}},
       {kUsed},
       defaults,
       Code::kUnschedulable,
       {"Too many pods", "Insufficient cpu"}},
      // A node without "pods" allows none.
      {"no pod capacity",
       MakePod().Container("img").Obj(),
       {{"cpu", "10"}},
       {},
       defaults,
       Code::kUnschedulable,
       {"Too many pods"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeResourcesFit plugin(c.args);
    const NodeInfo node_info = MakeNodeInfo(c.node, c.existing);
    CycleState state;
    PreFilterResult result;
    ASSERT_TRUE(plugin.PreFilter(state, c.pod, {}, result).IsSuccess());
    EXPECT_TRUE(result.AllNodes());
    const Status got = plugin.Filter(state, c.pod, node_info);
    EXPECT_EQ(got.code(), c.want) << got;
    EXPECT_THAT(got.reasons(), ElementsAreArray(c.reasons));
    if (!got.IsSuccess()) {
      EXPECT_EQ(got.plugin(), "NodeResourcesFit");
    }
  }
}

TEST(NodeResourcesFitTest, FilterWithoutPreFilterIsError) {
  NodeResourcesFit plugin;
  CycleState state;
  const Status got = plugin.Filter(state, MakePod().Req({{"cpu", "1"}}).Obj(),
                                   MakeNodeInfo({{"cpu", "4"}, {"pods", "10"}}));
  EXPECT_EQ(got.code(), Code::kError) << got;
}

TEST(NodeResourcesFitTest, PreFilterStateClones) {
  NodeResourcesFit plugin;
  CycleState state;
  PreFilterResult result;
  const kube::Pod pod = MakePod().Req({{"cpu", "6"}}).Obj();
  ASSERT_TRUE(plugin.PreFilter(state, pod, {}, result).IsSuccess());
  const std::unique_ptr<CycleState> copy = state.Clone();
  const NodeInfo node_info = MakeNodeInfo({{"cpu", "4"}, {"pods", "10"}});
  EXPECT_EQ(plugin.Filter(*copy, pod, node_info).code(), Code::kUnschedulableAndUnresolvable);
}

// ---- Score ----

NodeResourcesFitArgs Strategy(ScoringStrategyType type, std::vector<ResourceSpec> resources = {},
                              std::vector<UtilizationShapePoint> shape = {}) {
  NodeResourcesFitArgs args = DefaultNodeResourcesFitArgs();
  args.scoring_strategy.type = type;
  if (!resources.empty()) args.scoring_strategy.resources = std::move(resources);
  if (type == ScoringStrategyType::kRequestedToCapacityRatio) {
    args.scoring_strategy.requested_to_capacity_ratio = RequestedToCapacityRatioParam{shape};
  }
  return args;
}

struct ScoreCase {
  std::string name;
  NodeResourcesFitArgs args;
  kube::Pod pod;
  ResourceMap node;
  std::vector<kube::Pod> existing;
  int64_t want;
  double want_exact;
};

void RunScoreCases(const std::vector<ScoreCase>& cases) {
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    NodeResourcesFit plugin(c.args);
    const NodeInfo node_info = MakeNodeInfo(c.node, c.existing);
    const NodeInfo* nodes[] = {&node_info};
    CycleState state;
    ASSERT_TRUE(plugin.PreScore(state, c.pod, nodes).IsSuccess());
    const ScoreResult got = plugin.Score(state, c.pod, node_info);
    ASSERT_TRUE(got.status.IsSuccess()) << got.status;
    EXPECT_EQ(got.score, c.want);
    ASSERT_TRUE(got.exact.has_value());
    EXPECT_NEAR(*got.exact, c.want_exact, 1e-9);
    // Without PreScore the plugin recomputes the same answer.
    CycleState empty;
    const ScoreResult again = plugin.Score(empty, c.pod, node_info);
    EXPECT_EQ(again.score, c.want);
  }
}

const ResourceMap kSmallNode = {{"cpu", "4"}, {"memory", "10000"}, {"pods", "110"}};

TEST(NodeResourcesFitTest, ScoreLeastAllocated) {
  const auto least = Strategy(ScoringStrategyType::kLeastAllocated);
  RunScoreCases({
      // cpu (4000 − 3000)·100/4000 = 25; memory (10000 − 5000)·100/10000 = 50;
      // (25 + 50)/2 = 37 (exact 37.5).
      {"pod on empty node",
       least,
       MakePod().Req({{"cpu", "3"}, {"memory", "5000"}}).Obj(),
       kSmallNode,
       {},
       37,
       37.5},
      // Existing 1000m/2000 + pod 1000m/2000: cpu 2000/4000 free -> 50; memory
      // 6000/10000 free -> 60; 55.
      {"with existing pod",
       least,
       MakePod().Req({{"cpu", "1"}, {"memory", "2000"}}).Obj(),
       kSmallNode,
       {MakePod().Req({{"cpu", "1"}, {"memory", "2000"}}).Obj()},
       55,
       55},
      // cpu:2 memory:1: (25·2 + 50·1)/3 = 100/3 = 33 (exact 33.33).
      {"weights",
       Strategy(ScoringStrategyType::kLeastAllocated, {{"cpu", 2}, {"memory", 1}}),
       MakePod().Req({{"cpu", "3"}, {"memory", "5000"}}).Obj(),
       kSmallNode,
       {},
       33,
       100.0 / 3},
      // Non-zero defaults: 100m and 200Mi for a pod without requests on 1000m/1000Mi.
      // cpu (1000 − 100)·100/1000 = 90; memory (1000 − 200)·100/1000 = 80; 85.
      {"non-zero defaults",
       least,
       MakePod().Container("img").Obj(),
       {{"cpu", "1"}, {"memory", "1000Mi"}, {"pods", "110"}},
       {},
       85,
       85},
      // Over-committed cpu (5000m > 4000m) scores 0; memory, explicitly 0 (so no
      // non-zero default): (10000 − 0)·100/10000 = 100; (0 + 100)/2 = 50.
      {"over-committed",
       least,
       MakePod().Req({{"cpu", "5"}, {"memory", "0"}}).Obj(),
       kSmallNode,
       {},
       50,
       50},
      // cpu (4000 − 1)·100/4000 = 99 (99.975); memory 100; (99 + 100)/2 = 99 (99.9875).
      {"truncation",
       least,
       MakePod().Req({{"cpu", "1m"}, {"memory", "0"}}).Obj(),
       kSmallNode,
       {},
       99,
       99.9875},
  });
}

TEST(NodeResourcesFitTest, ScoreMostAllocated) {
  const auto most = Strategy(ScoringStrategyType::kMostAllocated);
  const auto most_gpu = Strategy(ScoringStrategyType::kMostAllocated,
                                 {{"cpu", 1}, {"memory", 1}, {"example.com/gpu", 2}});
  const ResourceMap gpu_node = {
      {"cpu", "4"}, {"memory", "10000"}, {"example.com/gpu", "4"}, {"pods", "110"}};
  RunScoreCases({
      // The spec's worked example: cpu (1000 + 500)·100/4000 = 37 (37.5); memory
      // (8Gi + 2Gi)·100/32Gi = 31 (31.25); (37 + 31)/2 = 34 (exact 34.375).
      {"spec example",
       most,
       MakePod().Req({{"cpu", "500m"}, {"memory", "2Gi"}}).Obj(),
       {{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}},
       {MakePod().Req({{"cpu", "1"}, {"memory", "8Gi"}}).Obj()},
       34,
       34.375},
      // cpu 3000·100/4000 = 75; memory 5000·100/10000 = 50; 62 (62.5).
      {"pod on empty node",
       most,
       MakePod().Req({{"cpu", "3"}, {"memory", "5000"}}).Obj(),
       kSmallNode,
       {},
       62,
       62.5},
      // Over-committed: min(6000, 4000) -> 100; memory 0 -> 0; 50.
      {"over-committed",
       most,
       MakePod().Req({{"cpu", "6"}, {"memory", "0"}}).Obj(),
       kSmallNode,
       {},
       50,
       50},
      // gpu (1 + 1)·100/4 = 50 with weight 2; cpu 1000·100/4000 = 25; memory
      // 5000·100/10000 = 50: (25 + 50 + 50·2)/4 = 175/4 = 43 (43.75).
      {"extended resource",
       most_gpu,
       MakePod().Req({{"cpu", "1"}, {"memory", "5000"}, {"example.com/gpu", "1"}}).Obj(),
       gpu_node,
       {MakePod().Req({{"cpu", "0"}, {"memory", "0"}, {"example.com/gpu", "1"}}).Obj()},
       43,
       43.75},
      // The pod does not request the gpu: skipped, (25 + 50)/2 = 37 (37.5).
      {"extended resource not requested",
       most_gpu,
       MakePod().Req({{"cpu", "1"}, {"memory", "5000"}}).Obj(),
       gpu_node,
       {},
       37,
       37.5},
      // The node has no gpu: skipped as well.
      {"extended resource not on node",
       most_gpu,
       MakePod().Req({{"cpu", "1"}, {"memory", "5000"}, {"example.com/gpu", "1"}}).Obj(),
       kSmallNode,
       {},
       37,
       37.5},
      // Non-zero defaults on the existing pod too: (100 + 100)m of 1000m -> 20;
      // (200 + 200)Mi of 1000Mi -> 40; 30.
      {"non-zero defaults",
       most,
       MakePod().Container("img").Obj(),
       {{"cpu", "1"}, {"memory", "1000Mi"}, {"pods", "110"}},
       {MakePod().Container("img").Obj()},
       30,
       30},
      // ephemeral-storage uses actual requests: (5 + 10)·100/100 = 15.
      {"ephemeral storage",
       Strategy(ScoringStrategyType::kMostAllocated, {{"ephemeral-storage", 1}}),
       MakePod().Req({{"ephemeral-storage", "10"}}).Obj(),
       {{"ephemeral-storage", "100"}, {"pods", "110"}},
       {MakePod().Req({{"ephemeral-storage", "5"}}).Obj()},
       15,
       15},
      // No resource counts (the node has no ephemeral storage): 0.
      {"nothing to score",
       Strategy(ScoringStrategyType::kMostAllocated, {{"ephemeral-storage", 1}}),
       MakePod().Req({{"ephemeral-storage", "10"}}).Obj(),
       kSmallNode,
       {},
       0,
       0},
  });
}

TEST(NodeResourcesFitTest, ScoreRequestedToCapacityRatio) {
  // Bin packing: V = [0, 100] at U = [0, 100], so f(U) = U.
  const auto packing =
      Strategy(ScoringStrategyType::kRequestedToCapacityRatio, {}, {{0, 0}, {100, 10}});
  // Spreading: f(U) = 100 − U.
  const auto spreading =
      Strategy(ScoringStrategyType::kRequestedToCapacityRatio, {}, {{0, 10}, {100, 0}});
  // Steep decreasing: V = [100, 0] at U = [0, 30].
  const auto steep =
      Strategy(ScoringStrategyType::kRequestedToCapacityRatio, {}, {{0, 10}, {30, 0}});
  // Flat ends: V = 20 up to U 10, 80 beyond U 50.
  const auto ends =
      Strategy(ScoringStrategyType::kRequestedToCapacityRatio, {}, {{10, 2}, {50, 8}});
  RunScoreCases({
      // cpu U = 3000·100/4000 = 75 -> 75; memory U = 5000·100/10000 = 50 -> 50;
      // round(125/2 = 62.5) = 63 (half away from zero; MostAllocated would say 62).
      {"packing rounds half up",
       packing,
       MakePod().Req({{"cpu", "3"}, {"memory", "5000"}}).Obj(),
       kSmallNode,
       {},
       63,
       62.5},
      // The quirk: memory U = 0 -> f = 0 does not count, so the score is cpu's 75 alone.
      {"zero shape score excluded",
       packing,
       MakePod().Req({{"cpu", "3"}, {"memory", "0"}}).Obj(),
       kSmallNode,
       {},
       75,
       75},
      // cpu U = 25 -> 75; memory U = 50 -> 50; round(62.5) = 63.
      {"spreading",
       spreading,
       MakePod().Req({{"cpu", "1"}, {"memory", "5000"}}).Obj(),
       kSmallNode,
       {},
       63,
       62.5},
      // cpu U = 20: 100 + (0 − 100)·(20 − 0)/30 = 100 + (−2000/30 → −66) = 34
      // (truncation toward zero; exact 100 − 66.67 = 33.33). memory U = 100 -> 0: excluded.
      {"decreasing truncates toward zero",
       steep,
       MakePod().Req({{"cpu", "800m"}, {"memory", "10000"}}).Obj(),
       kSmallNode,
       {},
       34,
       100.0 - 200.0 / 3},
      // cpu U = 2.5 -> 2 (floor) <= 10 -> V0 = 20 (exact 20); memory U = 80 > 50 -> 80;
      // round(100/2) = 50.
      {"flat ends",
       ends,
       MakePod().Req({{"cpu", "100m"}, {"memory", "8000"}}).Obj(),
       kSmallNode,
       {},
       50,
       50},
      // Over-committed cpu: U = 100 -> f = 100 (packing); memory 0 excluded -> 100.
      {"over-committed",
       packing,
       MakePod().Req({{"cpu", "5"}, {"memory", "0"}}).Obj(),
       kSmallNode,
       {},
       100,
       100},
      // cpu 1m: U = 100/4000 = 0 (0.025) -> f = 0: excluded; memory U = 33
      // (33.33) -> 33; score 33, exact 33.33.
      {"exact over the same resources",
       packing,
       MakePod().Req({{"cpu", "1m"}, {"memory", "3333"}}).Obj(),
       kSmallNode,
       {},
       33,
       33.33},
      // Weights: cpu:3 memory:1; cpu U = 50 -> 50, memory U = 10 -> 10;
      // round((150 + 10)/4 = 40) = 40.
      {"weights",
       Strategy(ScoringStrategyType::kRequestedToCapacityRatio, {{"cpu", 3}, {"memory", 1}},
                {{0, 0}, {100, 10}}),
       MakePod().Req({{"cpu", "2"}, {"memory", "1000"}}).Obj(),
       kSmallNode,
       {},
       40,
       40},
  });
}

// The packing tie-break of issue 4: a small pod moves a big node's integer
// MostAllocated score by less than a point, but the exact score still orders nodes by
// utilisation.
TEST(NodeResourcesFitTest, ExactScoreBreaksIntegerTies) {
  NodeResourcesFit plugin(Strategy(ScoringStrategyType::kMostAllocated));
  const ResourceMap big = {{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}};
  const kube::Pod small = MakePod().Req({{"cpu", "100m"}, {"memory", "500Mi"}}).Obj();
  // 1 vs 2 small pods already placed: cpu 200m vs 300m of 32000m -> 0 (0.625 / 0.9375);
  // memory 1000Mi vs 1500Mi of 128Gi -> 0 (0.76 / 1.14); both integer scores are 0.
  const NodeInfo less_used = MakeNodeInfo(big, {small});
  const NodeInfo more_used = MakeNodeInfo(big, {small, small});
  CycleState state;
  const NodeInfo* nodes[] = {&less_used, &more_used};
  ASSERT_TRUE(plugin.PreScore(state, small, nodes).IsSuccess());
  const ScoreResult a = plugin.Score(state, small, less_used);
  const ScoreResult b = plugin.Score(state, small, more_used);
  EXPECT_EQ(a.score, 0);
  EXPECT_EQ(b.score, 0);
  ASSERT_TRUE(a.exact.has_value() && b.exact.has_value());
  EXPECT_GT(*b.exact, *a.exact);
  // (200/32000 + 1000Mi/128Gi)·100/2 = (0.625 + 0.762939...)/2.
  EXPECT_NEAR(*a.exact, (0.625 + 1000.0 / 1310.72) / 2, 1e-9);
}

TEST(NodeResourcesFitTest, EventsToRegister) {
  NodeResourcesFit plugin;
  const std::vector<ClusterEvent> events = plugin.EventsToRegister();
  auto matches = [&](const ClusterEvent& incoming) {
    for (const ClusterEvent& e : events) {
      if (e.Match(incoming)) return true;
    }
    return false;
  };
  EXPECT_TRUE(matches(kNodeAddEvent));
  EXPECT_TRUE(matches({EventResource::kNode, ActionType::kUpdateNodeAllocatable, "x"}));
  EXPECT_TRUE(matches(kAssignedPodDeleteEvent));
  EXPECT_FALSE(matches(kAssignedPodAddEvent));
  EXPECT_FALSE(matches({EventResource::kNode, ActionType::kUpdateNodeLabel, "x"}));
}

TEST(NodeResourcesFitTest, Factory) {
  auto handle = testing::NewHandleForTest();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<Plugin> plugin,
      NodeResourcesFit::New(PluginArgs{YAML::Load("scoringStrategy: {type: MostAllocated}"),
                                       "profiles[0].pluginConfig[0].args"},
                            *handle));
  auto* fit = dynamic_cast<NodeResourcesFit*>(plugin.get());
  ASSERT_NE(fit, nullptr);
  EXPECT_EQ(fit->args().scoring_strategy.type, ScoringStrategyType::kMostAllocated);
  EXPECT_NE(dynamic_cast<ScorePlugin*>(plugin.get()), nullptr);
  EXPECT_NE(dynamic_cast<FilterPlugin*>(plugin.get()), nullptr);

  EXPECT_THAT(NodeResourcesFit::New(PluginArgs{YAML::Load("scoringStrategy: {type: Foo}"),
                                               "profiles[0].pluginConfig[0].args"},
                                    *handle)
                  .status(),
              ::trimaran::testing::StatusIs(
                  absl::StatusCode::kInvalidArgument,
                  HasSubstr("profiles[0].pluginConfig[0].args.scoringStrategy.type")));
}

// Upstream's TestEventsToRegister hint tables for Fit (isSchedulableAfterNodeChange,
// isSchedulableAfterAssignedPodDelete, isSchedulableAfterAssignedPodScaleDown; 1.37).
TEST(NodeResourcesFitTest, QueueingHintsForNodes) {
  NodeResourcesFit plugin;
  const kube::Pod pod = MakePod().Name("p").Req({{"cpu", "1"}}).Obj();
  auto node = [](const std::string& cpu, const std::string& pods = "110") {
    return MakeNode().Name("n").Capacity({{"cpu", cpu}, {"memory", "8Gi"}, {"pods", pods}}).Obj();
  };
  const kube::Node small = node("500m"), big = node("2"), bigger = node("4"),
                   big_more_pods = node("2", "200");
  const kube::Node big_relabelled =
      MakeNode()
          .Name("n")
          .Capacity({{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "110"}})
          .Label("k", "v")
          .Obj();
  struct Case {
    std::string name;
    const kube::Node* old_node;
    const kube::Node* new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"queue-node-add-fits", nullptr, &big, QueueingHint::kQueue},
      {"skip-node-add-too-small", nullptr, &small, QueueingHint::kQueueSkip},
      {"queue-node-grew-and-fits", &small, &big, QueueingHint::kQueue},
      {"queue-node-cpu-increased", &big, &bigger, QueueingHint::kQueue},
      {"queue-node-pod-count-increased", &big, &big_more_pods, QueueingHint::kQueue},
      {"skip-node-shrank-below-the-request", &big, &small, QueueingHint::kQueueSkip},
      {"skip-node-unchanged-resources", &big, &big_relabelled, QueueingHint::kQueueSkip},
      {"skip-node-decreased-but-still-fits", &bigger, &big, QueueingHint::kQueueSkip},
  };
  const ClusterEvent event{EventResource::kNode, ActionType::kUpdateNodeAllocatable, "test"};
  for (const Case& c : cases) {
    const absl::StatusOr<QueueingHint> got =
        plugin.Hint(pod, event, EventObjects{.old_node = c.old_node, .new_node = c.new_node});
    ASSERT_TRUE(got.ok()) << c.name;
    EXPECT_EQ(*got, c.want) << c.name;
  }
}

TEST(NodeResourcesFitTest, QueueingHintsForAssignedPods) {
  NodeResourcesFit plugin;
  const kube::Pod pod = MakePod().Name("p").Req({{"cpu", "1"}}).Obj();
  const kube::Pod bound =
      MakePod().Name("a").NodeName("n").Req({{"cpu", "2"}, {"memory", "1Gi"}}).Obj();
  const kube::Pod unscheduled = MakePod().Name("a").Req({{"cpu", "2"}}).Obj();
  kube::Pod nominated = unscheduled;
  nominated.status.nominated_node_name = "n";
  struct DeleteCase {
    std::string name;
    const kube::Pod* deleted;
    QueueingHint want;
  };
  for (const DeleteCase& c : std::vector<DeleteCase>{
           {"queue-on-deleted-scheduled-pod", &bound, QueueingHint::kQueue},
           {"skip-queue-on-deleted-unscheduled-pod", &unscheduled, QueueingHint::kQueueSkip},
           {"queue-on-deleted-nominated-pod", &nominated, QueueingHint::kQueue},
       }) {
    const absl::StatusOr<QueueingHint> got =
        plugin.Hint(pod, kAssignedPodDeleteEvent, EventObjects{.old_pod = c.deleted});
    ASSERT_TRUE(got.ok()) << c.name;
    EXPECT_EQ(*got, c.want) << c.name;
  }
  // Scale-downs (in-place resize): only a shrink of a resource the pod requests counts.
  const kube::Pod cpu_shrunk =
      MakePod().Name("a").NodeName("n").Req({{"cpu", "1"}, {"memory", "1Gi"}}).Obj();
  const kube::Pod memory_shrunk =
      MakePod().Name("a").NodeName("n").Req({{"cpu", "2"}, {"memory", "512Mi"}}).Obj();
  const kube::Pod unscheduled_shrunk = MakePod().Name("a").Req({{"cpu", "1"}}).Obj();
  // The kubelet has not applied it: allocated and actual still 2 cpu.
  const kube::Pod pending_shrink = MakePod()
                                       .Name("a")
                                       .NodeName("n")
                                       .Req({{"cpu", "1"}, {"memory", "1Gi"}})
                                       .AllocatedResources("c0", {{"cpu", "2"}, {"memory", "1Gi"}})
                                       .ActualResources("c0", {{"cpu", "2"}, {"memory", "1Gi"}})
                                       .Obj();
  struct ScaleCase {
    std::string name;
    const kube::Pod* old_pod;
    const kube::Pod* new_pod;
    QueueingHint want;
  };
  const ClusterEvent scale_down{EventResource::kPod, ActionType::kUpdatePodScaleDown, "test"};
  for (const ScaleCase& c : std::vector<ScaleCase>{
           {"queue-on-scaled-down-cpu", &bound, &cpu_shrunk, QueueingHint::kQueue},
           {"skip-on-scaled-down-memory-the-pod-does-not-request", &bound, &memory_shrunk,
            QueueingHint::kQueueSkip},
           {"skip-on-scaled-down-unscheduled-pod", &unscheduled, &unscheduled_shrunk,
            QueueingHint::kQueueSkip},
           {"skip-while-the-shrink-is-not-applied", &bound, &pending_shrink,
            QueueingHint::kQueueSkip},
       }) {
    const absl::StatusOr<QueueingHint> got =
        plugin.Hint(pod, scale_down, EventObjects{.old_pod = c.old_pod, .new_pod = c.new_pod});
    ASSERT_TRUE(got.ok()) << c.name;
    EXPECT_EQ(*got, c.want) << c.name;
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins
