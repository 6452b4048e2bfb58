#include "scheduler/plugins/node_resources_balanced_allocation/node_resources_balanced_allocation.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakeNode;
using kube::testing::MakePod;
using kube::testing::ResourceMap;

NodeInfo MakeNodeInfo(const ResourceMap& allocatable, const std::vector<kube::Pod>& pods = {}) {
  NodeInfo info(
      std::make_shared<const kube::Node>(MakeNode().Name("n1").Capacity(allocatable).Obj()));
  int i = 0;
  for (const kube::Pod& p : pods) {
    kube::Pod copy = p;
    copy.metadata.name = "existing-" + std::to_string(i++);
    copy.metadata.uid = copy.metadata.name;
    info.AddPod(std::make_shared<const kube::Pod>(std::move(copy)));
  }
  return info;
}

TEST(NodeResourcesBalancedAllocationTest, Score) {
  const ResourceMap kNode = {{"cpu", "4"}, {"memory", "10000"}, {"pods", "110"}};
  const ResourceMap kGpuNode = {
      {"cpu", "4"}, {"memory", "10000"}, {"example.com/gpu", "4"}, {"pods", "110"}};
  NodeResourcesBalancedAllocationArgs with_gpu{{{"cpu", 1}, {"memory", 1}, {"example.com/gpu", 1}}};
  const NodeResourcesBalancedAllocationArgs defaults = DefaultNodeResourcesBalancedAllocationArgs();
  // Three fractions 0.25, 0.5, 0.75: mean 0.5, variance (0.0625 + 0 + 0.0625)/3.
  const double three_std = std::sqrt(0.125 / 3);
  struct Case {
    std::string name;
    NodeResourcesBalancedAllocationArgs args;
    kube::Pod pod;
    ResourceMap node;
    std::vector<kube::Pod> existing;
    int64_t want;
    double want_exact;
  };
  const Case cases[] = {
      // F = 3000/4000 = 0.75, 5000/10000 = 0.5; std = |0.75 − 0.5|/2 = 0.125;
      // (1 − 0.125)·100 = 87.5 -> 87.
      {"two resources",
       defaults,
       MakePod().Req({{"cpu", "3"}, {"memory", "5000"}}).Obj(),
       kNode,
       {},
       87,
       87.5},
      // 0.5 and 0.5: std 0 -> 100.
      {"balanced",
       defaults,
       MakePod().Req({{"cpu", "2"}, {"memory", "5000"}}).Obj(),
       kNode,
       {},
       100,
       100},
      // cpu 6000/4000 capped at 1, memory 0.5: std 0.25 -> 75.
      {"over-committed",
       defaults,
       MakePod().Req({{"cpu", "6"}, {"memory", "5000"}}).Obj(),
       kNode,
       {},
       75,
       75},
      // Actual requests, no non-zero defaults: the request-less existing pod counts 0,
      // so 1000/4000 = 0.25 and 2500/10000 = 0.25 -> 100.
      {"no non-zero defaults",
       defaults,
       MakePod().Req({{"cpu", "1"}, {"memory", "2500"}}).Obj(),
       kNode,
       {MakePod().Container("img").Obj()},
       100,
       100},
      // Existing 1000m/1000 + pod 1000m/1000: 0.5 and 0.2; std 0.15 -> 85.
      {"existing pods",
       defaults,
       MakePod().Req({{"cpu", "1"}, {"memory", "1000"}}).Obj(),
       kNode,
       {MakePod().Req({{"cpu", "1"}, {"memory", "1000"}}).Obj()},
       85,
       85},
      // cpu 0.25, memory 0.5, gpu (1 + 2)/4 = 0.75: std = sqrt(0.125/3) = 0.2041;
      // (1 − 0.2041)·100 = 79.59 -> 79.
      {"three resources",
       with_gpu,
       MakePod().Req({{"cpu", "1"}, {"memory", "5000"}, {"example.com/gpu", "2"}}).Obj(),
       kGpuNode,
       {MakePod().Req({{"example.com/gpu", "1"}}).Obj()},
       79,
       (1 - three_std) * 100},
      // The gpu is not requested: skipped; 0.25 and 0.5 -> std 0.125 -> 87.
      {"scalar not requested",
       with_gpu,
       MakePod().Req({{"cpu", "1"}, {"memory", "5000"}}).Obj(),
       kGpuNode,
       {},
       87,
       87.5},
      // Only cpu counts (the node has no memory): n = 1 -> std 0 -> 100.
      {"one resource",
       defaults,
       MakePod().Req({{"cpu", "1"}, {"memory", "5000"}}).Obj(),
       {{"cpu", "4"}, {"pods", "110"}},
       {},
       100,
       100},
      // cpu 1m: 0.00025, memory 0.3333: std = 0.16654 -> 83.35 -> 83.
      {"truncation",
       defaults,
       MakePod().Req({{"cpu", "1m"}, {"memory", "3333"}}).Obj(),
       kNode,
       {},
       83,
       (1 - (0.3333 - 0.00025) / 2) * 100},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeResourcesBalancedAllocation plugin(c.args);
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
    EXPECT_EQ(plugin.Score(empty, c.pod, node_info).score, c.want);
  }
}

TEST(NodeResourcesBalancedAllocationTest, PreScoreSkipsBestEffortPods) {
  NodeResourcesBalancedAllocation plugin;
  CycleState state;
  // No requests at all, or only for resources the plugin does not look at.
  EXPECT_TRUE(plugin.PreScore(state, MakePod().Container("img").Obj(), {}).IsSkip());
  EXPECT_TRUE(
      plugin.PreScore(state, MakePod().Req({{"ephemeral-storage", "1Gi"}}).Obj(), {}).IsSkip());
  EXPECT_TRUE(plugin.PreScore(state, MakePod().Req({{"memory", "1"}}).Obj(), {}).IsSuccess());
}

TEST(NodeResourcesBalancedAllocationTest, Factory) {
  auto handle = testing::NewHandleForTest();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<Plugin> plugin,
      NodeResourcesBalancedAllocation::New(PluginArgs{YAML::Node(), ""}, *handle));
  EXPECT_EQ(plugin->Name(), "NodeResourcesBalancedAllocation");
  EXPECT_NE(dynamic_cast<ScorePlugin*>(plugin.get()), nullptr);
  EXPECT_THAT(NodeResourcesBalancedAllocation::New(
                  PluginArgs{YAML::Load("resources: [{name: cpu, weight: 2}]"), "a"}, *handle)
                  .status(),
              ::trimaran::testing::StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace trimaran::sched::plugins
