#include "scheduler/plugins/low_risk_over_commitment/low_risk_over_commitment.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"
#include "scheduler/plugins/load_aware/testing/plugin_env.h"
#include "scheduler/plugins/low_risk_over_commitment/beta.h"
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
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

TEST(BetaTest, RegIncBetaClosedForms) {
  struct Case {
    double a, b, x, want;
  };
  const std::vector<Case> cases = {
      {1, 1, 0.3, 0.3},                   // I_x(1,1) = x
      {3, 1, 0.5, 0.125},                 // I_x(a,1) = x^a
      {1, 4, 0.2, 1 - std::pow(0.8, 4)},  // I_x(1,b) = 1-(1-x)^b
      {2, 2, 0.5, 0.5},                   // symmetric
      {2, 3, 0.4, 0.5248},                // 6x²-8x³+3x⁴ at 0.4
      {50, 50, 0.5, 0.5},                 // large symmetric
      {0.5, 0.5, 0.25, 1.0 / 3.0},        // arcsine: 2/π·asin(√x)
      {2, 2, 0, 0},
      {2, 2, 1, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.a, ",", c.b, ",", c.x));
    EXPECT_NEAR(lro::RegIncBeta(c.a, c.b, c.x), c.want, 1e-9);
  }
  EXPECT_TRUE(std::isnan(lro::RegIncBeta(0, 1, 0.5)));
  EXPECT_TRUE(std::isnan(lro::RegIncBeta(1, 1, 1.5)));
  EXPECT_EQ(lro::BetaDistribution(0, 1).Cdf(0.5), 0);  // NaN -> 0
}

TEST(BetaTest, MomentsMatchingAndText) {
  lro::BetaDistribution d(1, 1);
  EXPECT_EQ(d.ToString(),
            "BetaDistribution: alpha = 1.000000; beta = 1.000000; mean = 0.500000; "
            "var = 0.083333; m1 = 0.500000; m2 = 0.333333; m3 = 0.250000; ");
  // m1 = 0.5, v = 0.05: t = 0.25/0.05 - 1 = 4 -> alpha = beta = 2.
  ASSERT_TRUE(d.MatchMoments(0.5, 0.05 + 0.25));
  EXPECT_NEAR(d.alpha(), 2, 1e-12);
  EXPECT_NEAR(d.beta(), 2, 1e-12);
  EXPECT_FALSE(d.MatchMoments(0.5, 0.5));  // v = 0.25 >= m1(1-m1)
  EXPECT_FALSE(d.MatchMoments(1.5, 3));    // m1 > 1
  lro::BetaDistribution zero;
  EXPECT_FALSE(zero.MatchMoments(0.5, 0.3));  // the flag is not recomputed (upstream)
}

TEST(BetaTest, ComputeProbabilityBranches) {
  struct Case {
    std::string name;
    double mu, sigma, x, want;
    bool dist;
  };
  const std::vector<Case> cases = {
      {"mu 0", 0, 0.1, 0.5, 1, false},
      {"sigma 0, mu <= x", 0.3, 0, 0.5, 1, false},
      {"sigma 0, mu > x", 0.7, 0, 0.5, 0, false},
      {"fit fails (v >= m1(1-m1))", 0.5, 0.5, 0.5, 0, false},
      {"Beta(2,2) at 0.5", 0.5, std::sqrt(0.05), 0.5, 0.5, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    bool has = false;
    EXPECT_NEAR(lro::ComputeProbability(c.mu, c.sigma, c.x, nullptr, &has), c.want, 1e-9);
    EXPECT_EQ(has, c.dist);
  }
}

using Env = load_aware::testing::PluginEnv<LowRiskOverCommitment>;

// One 4-core / 8Gi node "n" with `pods` on it.
std::unique_ptr<Env> MakeEnv(const std::vector<kube::Pod>& pods, const std::string& yaml) {
  return load_aware::testing::MakePluginEnv<LowRiskOverCommitment>(
      {MakeNode().Name("n").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Obj()}, pods, yaml);
}

int64_t ScoreN(Env& env, const kube::Pod& pod) {
  CycleState state;
  auto nodes = env.handle->snapshot_lister().NodeInfos().List();
  EXPECT_TRUE(env.plugin->PreScore(state, pod, nodes).IsSuccess());
  return env.plugin->Score(state, pod, *nodes[0]).score;
}

TEST(LowRiskOverCommitmentTest, Score) {
  struct Case {
    std::string name;
    std::vector<kube::Pod> existing;
    kube::Pod pod;
    lw::WatcherMetrics metrics;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {"best effort",
       {},
       MakePod().Name("p").Container("i").Obj(),
       MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 50).Obj(),
       0},
      // req 2000, lim 5000 > cap 4000: riskLimit = 1000/3000; load μ = 0 -> p = 1.
      // risk = 0.5/3 = 0.1667 -> 100*(1-0.1667) = 83.3 -> 83.
      {"limit risk",
       {MakePod().Name("o").UID("o").NodeName("n").Req({{"cpu", "1"}}).Lim({{"cpu", "3"}}).Obj()},
       MakePod().Name("p").Req({{"cpu", "1"}}).Lim({{"cpu", "2"}}).Obj(),
       MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 0).Obj(),
       83},
      // μ = 0.5, σ = 0 > thrAlloc = 1000/4000: p = 0 -> riskLoad 1, risk = 0.5 -> 50.
      {"load above allocation, no variance",
       {MakePod().Name("o").UID("o").NodeName("n").Req({{"cpu", "1"}}).Lim({{"cpu", "4"}}).Obj()},
       MakePod().Name("p").Req({{"cpu", "1m"}}).Obj(),
       MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 50).Obj(),
       50},
      // μ = 0.5, σ = 0.1·√5 (v = 0.05): Beta(2,2); thrAlloc = 2000/4000: p = 0.5;
      // limMinus = 4000 (not < cap): no conditioning; riskLoad = 0.5.
      // riskLimit = (4001-4000)/(4001-2001) = 0.0005; risk = 0.25025 -> 74.975 -> 75.
      {"beta load risk",
       {MakePod().Name("o").UID("o").NodeName("n").Req({{"cpu", "2"}}).Lim({{"cpu", "4"}}).Obj()},
       MakePod().Name("p").Req({{"cpu", "1m"}}).Obj(),
       MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 50).Cpu(lw::kOpStd, 10).Obj(),
       75},
      // Same, but limMinus = 2000 < cap: conditioned on thrLim = 0.5: p = 0.5/0.5 = 1,
      // riskLoad 0; lim 2001 <= cap: risk 0 -> 100.
      {"conditioned on limits",
       {MakePod().Name("o").UID("o").NodeName("n").Req({{"cpu", "2"}}).Lim({{"cpu", "2"}}).Obj()},
       MakePod().Name("p").Req({{"cpu", "1m"}}).Obj(),
       MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 50).Cpu(lw::kOpStd, 10).Obj(),
       100},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto env = MakeEnv(c.existing, "{}");
    ASSERT_NE(env, nullptr);
    env->client.Set(c.metrics);
    EXPECT_EQ(ScoreN(*env, c.pod), c.want);
  }
}

// The "limit risk" case of the Score table: a pod on the node requests 1 core with a
// 3-core limit, the pod requests 1 core limited to 2 (83 without load risk).
std::vector<kube::Pod> LimitRiskExisting() {
  return {MakePod().Name("o").UID("o").NodeName("n").Req({{"cpu", "1"}}).Lim({{"cpu", "3"}}).Obj()};
}
kube::Pod LimitRiskPod() {
  return MakePod().Name("p").Req({{"cpu", "1"}}).Lim({{"cpu", "2"}}).Obj();
}

TEST(LowRiskOverCommitmentTest, Fallback) {
  const kube::Pod pod = LimitRiskPod();
  for (const bool min_score : {false, true}) {
    SCOPED_TRACE(min_score);
    auto env = MakeEnv(LimitRiskExisting(), min_score ? "fallback: MinScore" : "{}");
    ASSERT_NE(env, nullptr);
    env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 90).Obj());
    env->handle->fake_clock().Advance(absl::Minutes(10));  // stale
    // Requests: the limit risk alone (83, as in "limit risk"); MinScore: 0.
    EXPECT_EQ(ScoreN(*env, pod), min_score ? 0 : 83);
    EXPECT_EQ(env->plugin->metrics().reporter().count(MetricsState::kStale), 1);
  }
}

TEST(LowRiskOverCommitmentTest, NodeListedWithoutCpuOrMemoryMetricsScoresItsLimitRisk) {
  // Upstream scores 0 only when the node has no metrics at all; a node whose metrics are
  // all of other kinds gets riskLoad 0 and is scored by its limit risk (83, as in "limit
  // risk"), under both fallbacks. It is still counted as a fallback (no usable metric).
  const kube::Pod pod = LimitRiskPod();
  for (const bool min_score : {false, true}) {
    SCOPED_TRACE(min_score);
    auto env = MakeEnv(LimitRiskExisting(), min_score ? "fallback: MinScore" : "{}");
    ASSERT_NE(env, nullptr);
    env->client.Set(
        MakeWatcherMetrics().Node("n").Metric("disk", "Storage", lw::kOpAvg, "", 70).Obj());
    EXPECT_EQ(ScoreN(*env, pod), 83);
    EXPECT_EQ(env->plugin->metrics().reporter().count(MetricsState::kNoUsableMetric), 1);
    // A node the metrics do not list at all: MinScore gives 0 (upstream), Requests 83.
    env->handle->fake_clock().Advance(absl::Seconds(5));
    env->client.Set(MakeWatcherMetrics().Node("other").Cpu(lw::kOpAvg, 10).Obj());
    EXPECT_EQ(ScoreN(*env, pod), min_score ? 0 : 83);
  }
}

TEST(LowRiskOverCommitmentTest, NodeTableAndBatchMatchNodeByNode) {
  // Five 4-core / 8Gi nodes, each with the "limit risk" pod on it: a with a Beta load
  // risk (cpu 50 % ± 10), b with no spread (cpu 0 %: 83 as in "limit risk"), c not in
  // the metrics (Requests: the limit risk alone, 83), d listed with another metric kind
  // only (83), e with a replaced Node object (no record: the slow path, the same as a).
  // ScoreNodes in runs of 1..5, Score through the table and Score without PreScore (no
  // table) agree bit for bit.
  std::vector<kube::Node> nodes;
  std::vector<kube::Pod> pods;
  for (const char* n : {"a", "b", "c", "d", "e"}) {
    nodes.push_back(MakeNode().Name(n).Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Obj());
    pods.push_back(MakePod()
                       .Name(absl::StrCat("o-", n))
                       .UID(absl::StrCat("o-", n))
                       .NodeName(n)
                       .Req({{"cpu", "1"}})
                       .Lim({{"cpu", "3"}})
                       .Obj());
  }
  auto env = load_aware::testing::MakePluginEnv<LowRiskOverCommitment>(nodes, pods, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics()
                      .Node("a")
                      .Cpu(lw::kOpAvg, 50)
                      .Cpu(lw::kOpStd, 10)
                      .Node("b")
                      .Cpu(lw::kOpAvg, 0)
                      .Node("d")
                      .Metric("disk", "Storage", lw::kOpAvg, "", 70)
                      .Node("e")
                      .Cpu(lw::kOpAvg, 50)
                      .Cpu(lw::kOpStd, 10)
                      .Obj());
  const kube::Pod pod = LimitRiskPod();
  {
    CycleState warm;  // builds the table over the original objects
    ASSERT_TRUE(env->plugin->PreScore(warm, pod, env->handle->snapshot_lister().NodeInfos().List())
                    .IsSuccess());
  }
  env->handle->snapshot().MutableNodeInfo("e")->SetNode(std::make_shared<const kube::Node>(
      MakeNode().Name("e").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Obj()));
  auto list = env->handle->snapshot_lister().NodeInfos().List();
  CycleState state;
  ASSERT_TRUE(env->plugin->PreScore(state, pod, list).IsSuccess());
  std::vector<ScoreResult> want;
  for (const NodeInfo* n : list) want.push_back(env->plugin->Score(state, pod, *n));
  std::map<std::string, int64_t> by_name;
  for (size_t i = 0; i < list.size(); ++i) {
    by_name[list[i]->name()] = want[i].score;
    CycleState bare;  // no PreScore: no table
    const ScoreResult slow = env->plugin->Score(bare, pod, *list[i]);
    load_aware::testing::ExpectSameScore(slow.score, slow.exact, want[i].score, want[i].exact,
                                         list[i]->name());
  }
  EXPECT_EQ(by_name["b"], 83);
  EXPECT_EQ(by_name["c"], 83);
  EXPECT_EQ(by_name["d"], 83);
  EXPECT_LT(by_name["a"], 83);  // the load risk counts
  EXPECT_EQ(by_name["e"], by_name["a"]);
  load_aware::testing::ExpectBatchMatches(*env->plugin, state, pod, list, want);
}

TEST(LowRiskOverCommitmentArgsTest, DefaultsAndValidation) {
  auto args = DecodeLowRiskOverCommitmentArgs(PluginArgs{});
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(args->smoothing_window_size, 5);
  EXPECT_EQ(args->cpu_risk_limit_weight, 0.5);
  EXPECT_EQ(args->memory_risk_limit_weight, 0.5);
  args = DecodeLowRiskOverCommitmentArgs(
      PluginArgs{YAML::Load("smoothingWindowSize: 0\nriskLimitWeights: {cpu: 0.2}"), ""});
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(args->smoothing_window_size, 5);  // <= 0 -> 5
  EXPECT_EQ(args->cpu_risk_limit_weight, 0.2);
  EXPECT_EQ(args->memory_risk_limit_weight, 0.5);
  EXPECT_THAT(
      DecodeLowRiskOverCommitmentArgs(
          PluginArgs{YAML::Load("riskLimitWeights: {memory: -0.1, gpu: 1}"), "a"}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               ::testing::AllOf(HasSubstr("a.riskLimitWeights.memory: must be in [0, 1], got -0.1"),
                                HasSubstr("a.riskLimitWeights.gpu: Unsupported value"))));
}

}  // namespace
}  // namespace trimaran::sched::plugins
