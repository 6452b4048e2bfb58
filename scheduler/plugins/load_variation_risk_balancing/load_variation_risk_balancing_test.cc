#include "scheduler/plugins/load_variation_risk_balancing/load_variation_risk_balancing.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"
#include "scheduler/plugins/load_aware/testing/plugin_env.h"
#include "scheduler/testing/fake_handle.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using ::testing::HasSubstr;
using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;
using ::trimaran::lw::testing::FakeLoadWatcherClient;
using ::trimaran::lw::testing::MakeWatcherMetrics;
using ::trimaran::sched::plugins::load_aware::MetricsState;
using ::trimaran::sched::plugins::load_aware::ResourceStats;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

TEST(LoadVariationRiskBalancingTest, RiskScoreBranches) {
  struct Case {
    std::string name;
    ResourceStats stats;  // capacity, req, used_avg, used_stdev
    double margin, sensitivity, want;
  };
  const std::vector<Case> cases = {
      {"capacity 0", {0, 1, 1, 1}, 1, 1, 0},
      // μ = (1000+1000)/4000 = 0.5, σ = 0.1: (1 - 0.3)*100 = 70.
      {"basic", {4000, 1000, 1000, 400}, 1, 1, 70},
      // σ^(1/2) = 0.3162: (1 - (0.5+0.3162)/2)*100 = 59.19.
      {"sensitivity 2", {4000, 1000, 1000, 400}, 1, 2, 59.188611699158105},
      // k = 0: σ < 1 -> 0: risk = 0.25 -> 75.
      {"sensitivity 0, sigma < 1", {4000, 1000, 1000, 2000}, 1, 0, 75},
      // k = 0: σ = 1 stays 1: μ = 0: risk = 0.5 -> 50.
      {"sensitivity 0, sigma = 1", {100, 0, 0, 100}, 1, 0, 50},
      // k < 0: σ unchanged (0.2); μ = 0.2: risk 0.2 -> 80.
      {"negative sensitivity", {100, 0, 20, 20}, 1, -1, 80},
      // margin < 0: σ -> 0; μ = 0.2: 90.
      {"negative margin", {100, 0, 20, 20}, -1, 1, 90},
      // margin 3: σ = 0.6; μ = 0.2: risk 0.4 -> 60.
      {"margin 3", {100, 0, 20, 20}, 3, 1, 60},
      // A > C clamps: μ = 1, σ = 0 -> 50.
      {"used above capacity", {100, 0, 250, 0}, 1, 1, 50},
      // R < 0 clamps to 0.
      {"negative request", {100, -50, 20, 0}, 1, 1, 90},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_NEAR(LoadVariationRiskBalancing::RiskScore(c.stats, c.margin, c.sensitivity), c.want,
                1e-9);
  }
  // Spec §7.5: (1 - 0.425) * 100 evaluates to 57.49999999999999 and rounds to 57.
  const double s = LoadVariationRiskBalancing::RiskScore({100, 0, 50, 35}, 1, 1);
  EXPECT_LT(s, 57.5);
  EXPECT_EQ(std::round(s), 57);
}

using Env = load_aware::testing::PluginEnv<LoadVariationRiskBalancing>;

// One 4-core / 8Gi node "n" with `pods` on it.
std::unique_ptr<Env> MakeEnv(const std::vector<kube::Pod>& pods, const std::string& yaml) {
  return load_aware::testing::MakePluginEnv<LoadVariationRiskBalancing>(
      {MakeNode().Name("n").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Obj()}, pods, yaml);
}

int64_t ScoreN(Env& env, const kube::Pod& pod, CycleState& state) {
  auto nodes = env.handle->snapshot_lister().NodeInfos().List();
  EXPECT_TRUE(env.plugin->PreScore(state, pod, nodes).IsSuccess());
  return env.plugin->Score(state, pod, *nodes[0]).score;
}
int64_t ScoreN(Env& env, const kube::Pod& pod) {
  CycleState state;
  return ScoreN(env, pod, state);
}

const kube::Pod kPod = MakePod().Name("p").UID("p").Req({{"cpu", "1"}, {"memory", "1Gi"}}).Obj();

TEST(LoadVariationRiskBalancingTest, Score) {
  struct Case {
    std::string name;
    std::string args;
    lw::WatcherMetrics metrics;
    int64_t want;
  };
  const std::vector<Case> cases = {
      // cpu: μ = (1000+1000)/4000 = 0.5, σ = 0.1 -> 70; memory: μ = (4096+1024)/8192 =
      // 0.625, σ = 0 -> 68.75. Both valid: min = 68.75 -> 69.
      {"both", "{}",
       MakeWatcherMetrics()
           .Node("n")
           .Cpu(lw::kOpAvg, 25)
           .Cpu(lw::kOpStd, 10)
           .Memory(lw::kOpAvg, 50)
           .Obj(),
       69},
      // sensitivity 2: cpu 59.19 < 68.75 -> 59.
      {"sensitivity 2", "safeVarianceSensitivity: 2",
       MakeWatcherMetrics()
           .Node("n")
           .Cpu(lw::kOpAvg, 25)
           .Cpu(lw::kOpStd, 10)
           .Memory(lw::kOpAvg, 50)
           .Obj(),
       59},
      // Only cpu valid: max(70, 0) = 70.
      {"cpu only", "{}",
       MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 25).Cpu(lw::kOpStd, 10).Obj(), 70},
      // AVG beats Latest anywhere in the list; "" accepted: AVG 25 -> 70 (with STD 10).
      {"avg beats latest", "{}",
       MakeWatcherMetrics()
           .Node("n")
           .Cpu(lw::kOpAvg, 25)
           .Cpu(lw::kOpLatest, 90)
           .Cpu(lw::kOpStd, 10)
           .Obj(),
       70},
      // "" operator: avg 25, σ 0: μ = 0.5 -> 75.
      {"empty operator", "{}", MakeWatcherMetrics().Node("n").Cpu("", 25).Obj(), 75},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto env = MakeEnv({}, c.args);
    ASSERT_NE(env, nullptr);
    env->client.Set(c.metrics);
    EXPECT_EQ(ScoreN(*env, kPod), c.want);
  }
}

TEST(LoadVariationRiskBalancingTest, ReservedPodsRaiseTheMean) {
  auto env = MakeEnv({}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 25).Obj());
  // μ = (1000 + 1000)/4000 = 0.5 -> 75.
  EXPECT_EQ(ScoreN(*env, kPod), 75);
  CycleState state;
  const kube::Pod other = MakePod().Name("o").UID("o").Req({{"cpu", "1"}}).Obj();
  ScoreN(*env, other, state);  // the pod's own cycle
  ASSERT_TRUE(env->plugin->Reserve(state, other, "n").IsSuccess());
  // + 1000 assumed: μ = 0.75 -> 62.5 -> 63.
  EXPECT_EQ(ScoreN(*env, kPod), 63);
  env->plugin->Unreserve(state, other, "n");
  EXPECT_EQ(ScoreN(*env, kPod), 75);
  // Placed again, then deleted (a preemption victim): no longer counted.
  ASSERT_TRUE(env->plugin->Reserve(state, other, "n").IsSuccess());
  EXPECT_EQ(ScoreN(*env, kPod), 63);
  env->plugin->OnAssignedPodDeleted(other);
  EXPECT_EQ(ScoreN(*env, kPod), 75);
}

TEST(LoadVariationRiskBalancingTest, Fallback) {
  const std::vector<kube::Pod> pods = {
      MakePod().Name("old").UID("o").NodeName("n").Req({{"cpu", "1"}, {"memory", "3Gi"}}).Obj()};
  {
    auto env = MakeEnv(pods, "{}");
    ASSERT_NE(env, nullptr);
    env->client.Set(absl::UnavailableError("down"));
    // Requests: cpu μ = (1000+1000)/4000 = 0.5 -> 75; memory μ = (3072+1024)/8192 = 0.5
    // -> 75. min 75.
    EXPECT_EQ(ScoreN(*env, kPod), 75);
    EXPECT_EQ(env->plugin->metrics().reporter().count(MetricsState::kNoMetrics), 1);
  }
  {
    auto env = MakeEnv(pods, "fallback: MinScore");
    ASSERT_NE(env, nullptr);
    env->client.Set(MakeWatcherMetrics().Node("other").Cpu(lw::kOpAvg, 25).Obj());
    EXPECT_EQ(ScoreN(*env, kPod), 0);
    EXPECT_EQ(env->plugin->metrics().reporter().count(MetricsState::kNodeMissing), 1);
  }
}

TEST(LoadVariationRiskBalancingTest, BadValuesFallBackPerNode) {
  const std::vector<kube::Pod> pods = {
      MakePod().Name("old").UID("o").NodeName("n").Req({{"cpu", "1"}, {"memory", "3Gi"}}).Obj()};
  for (double bad : {-1.0, std::nan(""), 1e308}) {
    SCOPED_TRACE(bad);
    auto env = MakeEnv(pods, "{}");
    ASSERT_NE(env, nullptr);
    env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, bad).Obj());
    // Requests, as without metrics: min(75, 75).
    EXPECT_EQ(ScoreN(*env, kPod), 75);
    EXPECT_EQ(env->plugin->metrics().reporter().count(MetricsState::kBadValue), 1);
  }
}

TEST(LoadVariationRiskBalancingArgsTest, DefaultsAndValidation) {
  auto args = DecodeLoadVariationRiskBalancingArgs(PluginArgs{});
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(args->safe_variance_margin, 1);
  EXPECT_EQ(args->safe_variance_sensitivity, 1);
  args = DecodeLoadVariationRiskBalancingArgs(
      PluginArgs{YAML::Load("safeVarianceMargin: -2\nsafeVarianceSensitivity: 2"), ""});
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(args->safe_variance_margin, 1);  // < 0 -> 1 (upstream defaulting)
  EXPECT_EQ(args->safe_variance_sensitivity, 2);
  EXPECT_THAT(
      DecodeLoadVariationRiskBalancingArgs(PluginArgs{YAML::Load("safeVarianceMargin: x"), "a"}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("a.safeVarianceMargin: must be a finite number")));
  EXPECT_THAT(DecodeLoadVariationRiskBalancingArgs(
                  PluginArgs{YAML::Load("kind: TargetLoadPackingArgs"), "a"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a.kind")));
}

TEST(LoadVariationRiskBalancingTest, NodeTableAndBatchMatchNodeByNode) {
  // Four 4-core / 8Gi nodes: a at cpu 25 % ± 10 and memory 50 % (68.75 -> 69, as in
  // "both"), b at cpu 25 % only (μ = 0.5 -> 75), c not in the metrics (Requests: μ =
  // 1000/4000 = 0.25 -> 87.5 for cpu, memory 1024/8192 = 0.125 -> 93.75; min 87.5 -> 88),
  // d with a replaced Node object (no record in the table: scored the slow way, the same
  // as a). ScoreNodes in runs of 1..4, Score through the table, and Score without
  // PreScore (no table at all) all agree, bit for bit.
  std::vector<kube::Node> nodes;
  for (const char* n : {"a", "b", "c", "d"}) {
    nodes.push_back(MakeNode().Name(n).Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Obj());
  }
  auto env = load_aware::testing::MakePluginEnv<LoadVariationRiskBalancing>(nodes, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics()
                      .Node("a")
                      .Cpu(lw::kOpAvg, 25)
                      .Cpu(lw::kOpStd, 10)
                      .Memory(lw::kOpAvg, 50)
                      .Node("b")
                      .Cpu(lw::kOpAvg, 25)
                      .Node("d")
                      .Cpu(lw::kOpAvg, 25)
                      .Cpu(lw::kOpStd, 10)
                      .Memory(lw::kOpAvg, 50)
                      .Obj());
  {
    CycleState warm;  // builds the table over the original objects
    ASSERT_TRUE(env->plugin->PreScore(warm, kPod, env->handle->snapshot_lister().NodeInfos().List())
                    .IsSuccess());
  }
  env->handle->snapshot().MutableNodeInfo("d")->SetNode(std::make_shared<const kube::Node>(
      MakeNode().Name("d").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Obj()));
  auto list = env->handle->snapshot_lister().NodeInfos().List();
  CycleState state;
  ASSERT_TRUE(env->plugin->PreScore(state, kPod, list).IsSuccess());
  std::vector<ScoreResult> want;
  for (const NodeInfo* n : list) want.push_back(env->plugin->Score(state, kPod, *n));
  const std::map<std::string, int64_t> expected = {{"a", 69}, {"b", 75}, {"c", 88}, {"d", 69}};
  for (size_t i = 0; i < list.size(); ++i) {
    EXPECT_EQ(want[i].score, expected.at(list[i]->name())) << list[i]->name();
    CycleState bare;  // no PreScore: no table
    const ScoreResult slow = env->plugin->Score(bare, kPod, *list[i]);
    load_aware::testing::ExpectSameScore(slow.score, slow.exact, want[i].score, want[i].exact,
                                         list[i]->name());
  }
  load_aware::testing::ExpectBatchMatches(*env->plugin, state, kPod, list, want);
  EXPECT_GE(env->plugin->metrics().reporter().count(MetricsState::kNodeMissing), 1);
}

}  // namespace
}  // namespace trimaran::sched::plugins
