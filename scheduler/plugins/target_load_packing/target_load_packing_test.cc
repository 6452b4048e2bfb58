#include "scheduler/plugins/target_load_packing/target_load_packing.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
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
#include "scheduler/plugins/load_aware/testing/fake_source_pool.h"
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
using ::trimaran::sched::plugins::load_aware::testing::FakeSourcePool;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

// The FakeClock's and the builders' default time.
constexpr int64_t kNow = 1'700'000'000;

kube::Node Node4(const std::string& name) {
  return MakeNode().Name(name).Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Obj();
}

using Env = load_aware::testing::PluginEnv<TargetLoadPacking>;

std::unique_ptr<Env> MakeEnv(const std::vector<kube::Node>& nodes,
                             const std::vector<kube::Pod>& pods, const std::string& yaml) {
  return load_aware::testing::MakePluginEnv<TargetLoadPacking>(nodes, pods, yaml);
}

// Runs PreScore once, then scores every node with ScoreNodes in runs of two (the batch
// path the runtime takes; ScoreNodesMatchesScoreBitForBit checks it against Score):
// node -> score.
std::map<std::string, int64_t> ScoreAll(Env& env, const kube::Pod& pod, CycleState& state) {
  auto nodes = env.handle->snapshot_lister().NodeInfos().List();
  EXPECT_TRUE(env.plugin->PreScore(state, pod, nodes).IsSuccess());
  const std::vector<NodeScore> batch =
      load_aware::testing::ScoreInRuns(*env.plugin, state, pod, nodes, 2);
  std::map<std::string, int64_t> scores;
  for (size_t i = 0; i < nodes.size(); ++i) scores[nodes[i]->name()] = batch[i].score;
  return scores;
}
std::map<std::string, int64_t> ScoreAll(Env& env, const kube::Pod& pod) {
  CycleState state;
  return ScoreAll(env, pod, state);
}

// A pod predicting exactly `milli` millicores (a cpu limit).
kube::Pod PodWithLimit(const std::string& name, const std::string& cpu) {
  return MakePod().Name(name).UID(name).Req({{"cpu", "1m"}}).Lim({{"cpu", cpu}}).Obj();
}

TEST(TargetLoadPackingTest, KepExample) {
  // T = 50, 4-core nodes using 1, 2 and 3 cores, a pod predicting 0:
  //   U = 25 -> (100-50)*25/50 + 50 = 75; U = 50 -> 100; U = 75 -> 50*(100-75)/50 = 25.
  auto env = MakeEnv({Node4("a"), Node4("b"), Node4("c")}, {}, "targetUtilization: 50");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics()
                      .Node("a")
                      .Cpu(lw::kOpAvg, 25)
                      .Node("b")
                      .Cpu(lw::kOpAvg, 50)
                      .Node("c")
                      .Cpu(lw::kOpAvg, 75)
                      .Obj());
  EXPECT_THAT(ScoreAll(*env, PodWithLimit("p", "0")),
              ::testing::ElementsAre(::testing::Pair("a", 75), ::testing::Pair("b", 100),
                                     ::testing::Pair("c", 25)));
}

// Sidecars run for the pod's whole life and a pod-level limit bounds the containers: both
// enter the prediction (upstream Trimaran predicts the app containers only). T = 50, a
// 4-core node using 1 core: P = 2 cores -> U = 75 -> 25; P = 1 core -> U = 50 -> 100.
TEST(TargetLoadPackingTest, SidecarsAndPodLevelLimitsArePredicted) {
  auto env = MakeEnv({Node4("a")}, {}, "targetUtilization: 50");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 25).Obj());
  const kube::Pod app_only = PodWithLimit("app", "1");
  kube::Pod with_sidecar = PodWithLimit("sidecar", "1");
  kube::Container sidecar = with_sidecar.spec.containers[0];
  sidecar.name = "proxy";
  sidecar.restart_policy = kube::ContainerRestartPolicy::kAlways;
  with_sidecar.spec.init_containers.push_back(sidecar);
  kube::Container init = sidecar;
  init.name = "migrate";
  init.restart_policy = kube::ContainerRestartPolicy::kUnset;
  with_sidecar.spec.init_containers.push_back(init);  // a regular init container: ignored
  kube::Pod pod_level = PodWithLimit("pod-level", "100m");
  pod_level.spec.resources.emplace();
  pod_level.spec.resources->limits = kube::testing::MakeResourceList({{"cpu", "2"}});
  EXPECT_THAT(ScoreAll(*env, app_only), ::testing::ElementsAre(::testing::Pair("a", 100)));
  EXPECT_THAT(ScoreAll(*env, with_sidecar), ::testing::ElementsAre(::testing::Pair("a", 25)));
  EXPECT_THAT(ScoreAll(*env, pod_level), ::testing::ElementsAre(::testing::Pair("a", 25)));
}

TEST(TargetLoadPackingTest, FormulaBranches) {
  struct Case {
    std::string name;
    std::string args;
    kube::Pod pod;
    double cpu_percent;
    std::string capacity;
    int64_t want;
  };
  const std::vector<Case> cases = {
      // U = 100*(0.1*4000 + 1000)/4000 = 35 <= 40: (60*35/40 + 40) = 92.5 -> 93 (half away).
      {"below target", "{}", PodWithLimit("p", "1"), 10, "4", 93},
      // U = 100*(1600 + 0)/4000 = 40 == T: 100.
      {"at target", "{}", PodWithLimit("p", "0"), 40, "4", 100},
      // U = 60: 40*(100-60)/60 = 26.67 -> 27.
      {"above target", "{}", PodWithLimit("p", "0"), 60, "4", 27},
      // U = 100: 40*0/60 = 0.
      {"at 100", "{}", PodWithLimit("p", "0"), 100, "4", 0},
      // U = 100*(3600 + 1000)/4000 = 115 > 100: 0.
      {"over 100", "{}", PodWithLimit("p", "1"), 90, "4", 0},
      // Capacity 0: U = 0 -> score T.
      {"zero capacity", "{}", PodWithLimit("p", "1"), 50, "0", 40},
      // T = 100: U = 50 -> (0*50/100 + 100) = 100; never divides by zero.
      {"target 100", "targetUtilization: 100", PodWithLimit("p", "0"), 50, "4", 100},
      // Requests only: round(500*1.5) = 750; U = 100*(0 + 750)/4000 = 18.75:
      //   60*18.75/40 + 40 = 68.125 -> 68.
      {"requests times multiplier", "{}", MakePod().Name("p").Req({{"cpu", "500m"}}).Obj(), 0, "4",
       68},
      // Multiplier "1": 500; U = 12.5: 60*12.5/40+40 = 58.75 -> 59.
      {"multiplier 1", "defaultRequestsMultiplier: \"1\"",
       MakePod().Name("p").Req({{"cpu", "500m"}}).Obj(), 0, "4", 59},
      // Best effort: D = 1000; U = 25: 60*25/40+40 = 77.5 -> 78.
      {"best effort default", "{}", MakePod().Name("p").Container("img").Obj(), 0, "4", 78},
      // D = 2000: U = 50 > 40: 40*50/60 = 33.33 -> 33.
      {"best effort custom default", "defaultRequests: {cpu: 2000m}",
       MakePod().Name("p").Container("img").Obj(), 0, "4", 33},
      // defaultRequests without cpu: D = 0 -> U = 0 -> 40.
      {"defaultRequests without cpu", "defaultRequests: {memory: 1Gi}",
       MakePod().Name("p").Container("img").Obj(), 0, "4", 40},
      // Init containers ignored; overhead added: P = 1000 + 200; U = 30: 60*30/40+40 = 85.
      {"overhead, no init", "{}",
       MakePod()
           .Name("p")
           .InitReq({{"cpu", "3"}})
           .Req({{"cpu", "1m"}})
           .Lim({{"cpu", "1"}})
           .Overhead({{"cpu", "200m"}})
           .Obj(),
       0, "4", 85},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto env = MakeEnv({MakeNode().Name("n").Capacity({{"cpu", c.capacity}}).Obj()}, {}, c.args);
    ASSERT_NE(env, nullptr);
    env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, c.cpu_percent).Obj());
    EXPECT_EQ(ScoreAll(*env, c.pod)["n"], c.want);
  }
}

TEST(TargetLoadPackingTest, MetricSelection) {
  struct Case {
    std::string name;
    lw::WatcherMetrics metrics;
    int64_t want;
  };
  // Pod predicts 0 on a 4-core node, T = 40.
  const std::vector<Case> cases = {
      // The last AVG/Latest wins: 20 -> 60*20/40+40 = 70.
      {"last of AVG and Latest wins",
       MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 80).Cpu(lw::kOpLatest, 20).Obj(), 70},
      {"latest only", MakeWatcherMetrics().Node("n").Cpu(lw::kOpLatest, 20).Obj(), 70},
      // STD ignored: AVG 20 -> 70.
      {"std ignored", MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 20).Cpu(lw::kOpStd, 90).Obj(),
       70},
      // Memory metrics do not count for cpu; with MinScore there is no usable metric: 0.
      {"memory only", MakeWatcherMetrics().Node("n").Memory(lw::kOpAvg, 20).Obj(), 0},
      // An empty operator is not accepted by TLP (unlike LVRB/LRO): 0.
      {"empty operator", MakeWatcherMetrics().Node("n").Cpu("", 20).Obj(), 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto env = MakeEnv({Node4("n")}, {}, "fallback: MinScore");
    ASSERT_NE(env, nullptr);
    env->client.Set(c.metrics);
    EXPECT_EQ(ScoreAll(*env, PodWithLimit("p", "0"))["n"], c.want);
  }
}

TEST(TargetLoadPackingTest, GoRoundingHalfAwayFromZero) {
  // T = 50, U = 100*(0.01*4000 + 50)/4000 = 2.25 -> 50*2.25/50 + 50 = 52.25 -> 52;
  // U = 100*(1000 + 20)/4000 = 25.5 -> 75.5 -> 76 (half away from zero).
  auto env = MakeEnv({Node4("n")}, {}, "targetUtilization: 50");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 25).Obj());
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("p", "20m"))["n"], 76);
  EXPECT_DOUBLE_EQ(TargetLoadPacking::Curve(25.5, 50), 75.5);
  EXPECT_DOUBLE_EQ(TargetLoadPacking::Curve(101, 50), 0);
}

TEST(TargetLoadPackingTest, ReadsTheSnapshotOncePerCycle) {
  auto env = MakeEnv({Node4("a"), Node4("b"), Node4("c")}, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 10).Obj());
  ScoreAll(*env, PodWithLimit("p", "1"));
  EXPECT_EQ(env->client.requests().size(), 1u);
  // A second cycle within the refresh interval reuses the view.
  ScoreAll(*env, PodWithLimit("p2", "1"));
  EXPECT_EQ(env->client.requests().size(), 1u);
  env->handle->fake_clock().Advance(absl::Seconds(5));
  ScoreAll(*env, PodWithLimit("p3", "1"));
  EXPECT_EQ(env->client.requests().size(), 2u);
}

TEST(TargetLoadPackingTest, BurstOfReservedPodsSpreadsInsteadOfPilingUp) {
  // 10 nodes of 16 cores at 10 % (1.6 cores), T = 40, pods predicting 1 core. No new
  // metrics arrive. Each node takes 4 pods below target: U = 100*(1600+4000+1000)/16000 =
  // 41.25 for the 5th, scored 40*58.75/60 = 39 vs 64 on an untouched node.
  std::vector<kube::Node> nodes;
  auto metrics = MakeWatcherMetrics();
  for (int i = 0; i < 10; ++i) {
    const std::string name = absl::StrCat("n", i);
    nodes.push_back(MakeNode().Name(name).Capacity({{"cpu", "16"}}).Obj());
    metrics.Node(name).Cpu(lw::kOpAvg, 10);
  }
  auto env = MakeEnv(nodes, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(metrics.Obj());
  std::map<std::string, int> placed;
  for (int i = 0; i < 50; ++i) {
    const kube::Pod pod = PodWithLimit(absl::StrCat("p", i), "1");
    CycleState state;
    auto scores = ScoreAll(*env, pod, state);
    std::string best;
    for (const auto& [name, score] : scores) {
      if (best.empty() || score > scores[best]) best = name;
    }
    ASSERT_TRUE(env->plugin->Reserve(state, pod, best).IsSuccess());
    ++placed[best];
    env->handle->fake_clock().Advance(absl::Milliseconds(100));
  }
  EXPECT_EQ(placed.size(), 10u);
  for (const auto& [name, count] : placed) {
    SCOPED_TRACE(name);
    EXPECT_LE(count, 6);
    EXPECT_GE(count, 4);
  }
  EXPECT_EQ(env->plugin->tracker().size(), 50u);
}

TEST(TargetLoadPackingTest, AssumedPodsCountUntilUnreservedOrCoveredByTheWindow) {
  auto env = MakeEnv({Node4("n")}, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 0).Obj());
  const kube::Pod big = PodWithLimit("big", "1");
  // Nothing assumed: U = 0 -> 40.
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("probe", "0"))["n"], 40);
  // Reserve without PreScore in the cycle: not tracked (nothing would prune it).
  CycleState bare;
  ASSERT_TRUE(env->plugin->Reserve(bare, big, "n").IsSuccess());
  EXPECT_EQ(env->plugin->tracker().size(), 0u);
  CycleState state;
  ScoreAll(*env, big, state);  // the pod's own cycle: PreScore + Score
  ASSERT_TRUE(env->plugin->Reserve(state, big, "n").IsSuccess());
  // Assumed 1 core: U = 25 -> 60*25/40+40 = 77.5 -> 78.
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("probe", "0"))["n"], 78);
  env->plugin->Unreserve(state, big, "n");
  env->plugin->Unreserve(state, big, "n");  // idempotent
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("probe", "0"))["n"], 40);

  // Reserved at kNow; counted while E - ts < 60.
  ASSERT_TRUE(env->plugin->Reserve(state, big, "n").IsSuccess());
  env->handle->fake_clock().Advance(absl::Seconds(59));
  env->client.Set(MakeWatcherMetrics().Timestamp(kNow + 59).Node("n").Cpu(lw::kOpAvg, 0).Obj());
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("probe", "0"))["n"], 78);  // E - ts = 59
  env->handle->fake_clock().Advance(absl::Seconds(5));
  env->client.Set(MakeWatcherMetrics().Timestamp(kNow + 64).Node("n").Cpu(lw::kOpAvg, 25).Obj());
  // E - ts = 64 >= 60: the metrics (now 25 %) cover the pod; not counted twice: U = 25 -> 78.
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("probe", "0"))["n"], 78);
  EXPECT_EQ(env->plugin->tracker().size(), 0u);  // pruned
}

// A placed pod that is deleted (a preemption victim) stops counting at once, not when the
// metrics window covers it.
TEST(TargetLoadPackingTest, DeletedPodsStopCountingAtOnce) {
  auto env = MakeEnv({Node4("n")}, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 0).Obj());
  const kube::Pod big = PodWithLimit("big", "1");
  CycleState state;
  ScoreAll(*env, big, state);
  ASSERT_TRUE(env->plugin->Reserve(state, big, "n").IsSuccess());
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("probe", "0"))["n"], 78);
  env->plugin->OnAssignedPodDeleted(big);
  EXPECT_EQ(env->plugin->tracker().size(), 0u);
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("probe", "0"))["n"], 40);
  env->plugin->OnAssignedPodDeleted(big);  // idempotent
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("probe", "0"))["n"], 40);
}

TEST(TargetLoadPackingTest, PodsRunningAtStartupAreNotCountedTwice) {
  // Two pods of 1 core already run on the node; the metrics (50 %) include them.
  auto env = MakeEnv({Node4("n")},
                     {MakePod().Name("old1").UID("o1").NodeName("n").Req({{"cpu", "1"}}).Obj(),
                      MakePod().Name("old2").UID("o2").NodeName("n").Req({{"cpu", "1"}}).Obj()},
                     "targetUtilization: 50");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 50).Obj());
  // U = 100*(2000 + 0)/4000 = 50 -> 100 (upstream would add 2 more cores: U = 100 -> 0).
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("p", "0"))["n"], 100);
  EXPECT_EQ(env->plugin->tracker().size(), 0u);
}

TEST(TargetLoadPackingTest, StalenessFallbackRequestsAndMinScore) {
  // Node "a" has 1 core requested; "b" is not in the metrics.
  const std::vector<kube::Pod> pods = {
      MakePod().Name("old").UID("o").NodeName("a").Req({{"cpu", "1"}}).Obj()};
  for (const bool min_score : {false, true}) {
    SCOPED_TRACE(min_score ? "MinScore" : "Requests");
    auto env = MakeEnv({Node4("a"), Node4("b")}, pods,
                       min_score ? "fallback: MinScore" : "metricsMaxAge: 2m");
    ASSERT_NE(env, nullptr);
    env->client.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 10).Obj());
    const kube::Pod pod = PodWithLimit("p", "1");
    auto fresh = ScoreAll(*env, pod);
    // a: U = 100*(400 + 1000)/4000 = 35 -> 92.5 -> 93.
    EXPECT_EQ(fresh["a"], 93);
    // b, node missing: Requests -> U = 100*(0 + 1000)/4000 = 25 -> 77.5 -> 78; MinScore 0.
    EXPECT_EQ(fresh["b"], min_score ? 0 : 78);
    const auto& reporter = env->plugin->metrics().reporter();
    EXPECT_EQ(reporter.count(MetricsState::kNodeMissing), 1);

    // Older than metricsMaxAge (2m / default 5m): every node falls back.
    env->handle->fake_clock().Advance(absl::Minutes(6));
    auto stale = ScoreAll(*env, pod);
    // a: Requests -> U = 100*(1000 + 1000)/4000 = 50 > 40 -> 40*50/60 = 33.3 -> 33.
    EXPECT_EQ(stale["a"], min_score ? 0 : 33);
    EXPECT_EQ(stale["b"], min_score ? 0 : 78);
    EXPECT_EQ(reporter.count(MetricsState::kStale), 2);
    ScoreAll(*env, pod);
    EXPECT_EQ(reporter.count(MetricsState::kStale), 4);  // every fallback counts

    // Fresh metrics again (read after the refresh interval): back to the metrics.
    env->handle->fake_clock().Advance(absl::Seconds(5));
    env->client.Set(MakeWatcherMetrics().Timestamp(kNow + 360).Node("a").Cpu(lw::kOpAvg, 10).Obj());
    EXPECT_EQ(ScoreAll(*env, pod)["a"], 93);
    EXPECT_EQ(reporter.count(MetricsState::kStale), 4);
  }
}

TEST(TargetLoadPackingTest, BadValuesAreAPerNodeFallbackNeverACycleFailure) {
  // A negative, NaN, infinite or > 100 % value: that node falls back (counted); the
  // others are scored from their metrics, and every score stays in [0, 100].
  auto env =
      MakeEnv({Node4("good"), Node4("neg"), Node4("nan"), Node4("inf"), Node4("big")}, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics()
                      .Node("good")
                      .Cpu(lw::kOpAvg, 10)
                      .Node("neg")
                      .Cpu(lw::kOpAvg, -50)
                      .Node("nan")
                      .Cpu(lw::kOpAvg, std::nan(""))
                      .Node("inf")
                      .Cpu(lw::kOpAvg, std::numeric_limits<double>::infinity())
                      .Node("big")
                      .Cpu(lw::kOpAvg, 1e308)
                      .Obj());
  const kube::Pod pod = PodWithLimit("p", "1");
  auto scores = ScoreAll(*env, pod);
  // good: U = 100*(400 + 1000)/4000 = 35 -> 92.5 -> 93.
  EXPECT_EQ(scores["good"], 93);
  // The rest: Requests -> U = 100*(0 + 1000)/4000 = 25 -> 77.5 -> 78.
  for (const char* node : {"neg", "nan", "inf", "big"}) EXPECT_EQ(scores[node], 78) << node;
  EXPECT_EQ(env->plugin->metrics().reporter().count(MetricsState::kBadValue), 4);

  // A snapshot stamped an hour ahead cannot be aged: every node falls back.
  env->client.Set(
      MakeWatcherMetrics().Timestamp(kNow + 3600).Node("good").Cpu(lw::kOpAvg, 10).Obj());
  env->handle->fake_clock().Advance(absl::Seconds(5));
  scores = ScoreAll(*env, pod);
  EXPECT_EQ(scores["good"], 78);
  EXPECT_EQ(env->plugin->metrics().reporter().count(MetricsState::kBadValue), 9);
}

TEST(TargetLoadPackingTest, FallbackCounterIsExported) {
  auto env = MakeEnv({Node4("a")}, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(absl::UnavailableError("down"));
  ScoreAll(*env, PodWithLimit("p", "0"));
  const std::string text = env->handle->stats_registry().PrometheusText();
  EXPECT_THAT(text, HasSubstr("metrics_fallback_total{plugin=\"TargetLoadPacking\","
                              "reason=\"no_metrics\"} 1"));
}

TEST(TargetLoadPackingTest, NoMetricsSourceAtAllScoresByRequests) {
  auto handle = testing::NewHandleForTest({Node4("a")}, {});
  auto plugin = TargetLoadPacking::New(PluginArgs{}, *handle);
  ASSERT_THAT(plugin, IsOk());
  auto* tlp = dynamic_cast<TargetLoadPacking*>(plugin->get());
  CycleState state;
  const kube::Pod pod = PodWithLimit("p", "1");
  ASSERT_TRUE(tlp->PreScore(state, pod, handle->snapshot_lister().NodeInfos().List()).IsSuccess());
  // U = 25 -> 78.
  EXPECT_EQ(tlp->Score(state, pod, *handle->snapshot_lister().NodeInfos().List()[0]).score, 78);
}

TEST(TargetLoadPackingTest, ScoreWithoutPreScoreStillWorks) {
  auto env = MakeEnv({Node4("a")}, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 10).Obj());
  CycleState state;
  const NodeInfo& a = *env->handle->snapshot_lister().NodeInfos().List()[0];
  EXPECT_EQ(env->plugin->Score(state, PodWithLimit("p", "1"), a).score, 93);
}

TEST(TargetLoadPackingTest, MemoryAndCpu) {
  // cpu: 10 % of 4 cores + 1 core = 35 % -> 92.5; memory (T 60): 25 % of 8Gi + 2Gi (limit)
  // = 50 % -> (40*50/60 + 60) = 93.33. Weighted (1, 3): (92.5 + 3*93.333)/4 = 93.125 -> 93.
  auto env = MakeEnv({Node4("n")}, {},
                     "resources: [{name: cpu, weight: 1}, "
                     "{name: memory, weight: 3, targetUtilization: 60}]");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 10).Memory(lw::kOpAvg, 25).Obj());
  const kube::Pod pod =
      MakePod().Name("p").Req({{"cpu", "1m"}}).Lim({{"cpu", "1"}, {"memory", "2Gi"}}).Obj();
  EXPECT_EQ(ScoreAll(*env, pod)["n"], 93);
  // Missing memory metric: the whole node falls back (Requests: cpu 25 % -> 77.5,
  // memory 2Gi/8Gi = 25 % -> 40*25/60+60 = 76.67; (77.5 + 3*76.67)/4 = 76.875 -> 77).
  env->handle->fake_clock().Advance(absl::Seconds(5));
  env->client.Set(MakeWatcherMetrics().Node("n").Cpu(lw::kOpAvg, 10).Obj());
  EXPECT_EQ(ScoreAll(*env, pod)["n"], 77);
}

TEST(TargetLoadPackingTest, ArgsArePerInstance) {
  auto handle = testing::NewHandleForTest({Node4("n")}, {});
  auto a = TargetLoadPacking::New(PluginArgs{YAML::Load("targetUtilization: 50"), ""}, *handle);
  auto b = TargetLoadPacking::New(PluginArgs{YAML::Load("targetUtilization: 70"), ""}, *handle);
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(dynamic_cast<TargetLoadPacking*>(a->get())->args().target_utilization, 50);
  EXPECT_EQ(dynamic_cast<TargetLoadPacking*>(b->get())->args().target_utilization, 70);
}

TEST(TargetLoadPackingTest, MetricsSourceFromThePool) {
  FakeLoadWatcherClient client;
  FakeSourcePool pool(&client);
  auto handle = testing::NewHandleForTest({Node4("n")}, {});
  handle->SetLoadWatcherSources(&pool);
  ASSERT_THAT(TargetLoadPacking::New(
                  PluginArgs{YAML::Load("watcherAddress: grpc://127.0.0.1:2021"), ""}, *handle),
              IsOk());
  EXPECT_THAT(pool.remote(), ::testing::ElementsAre("grpc://127.0.0.1:2021"));
  ASSERT_THAT(
      TargetLoadPacking::New(
          PluginArgs{YAML::Load("metricProvider: {type: Prometheus, address: http://p:9090}"), ""},
          *handle),
      IsOk());
  ASSERT_EQ(pool.in_process().size(), 1u);
  EXPECT_EQ(pool.in_process()[0].type, "Prometheus");
  EXPECT_EQ(pool.in_process()[0].address, "http://p:9090");
  // Verified by default (upstream's v1 default for Prometheus is to skip verification).
  EXPECT_FALSE(pool.in_process()[0].insecure_skip_verify);
  pool.SetError(absl::InvalidArgumentError("bad spec"));
  EXPECT_THAT(TargetLoadPacking::New(PluginArgs{}, *handle),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("TargetLoadPacking")));
}

TEST(TargetLoadPackingTest, RoundMatchesStdRound) {
  // Half away from zero, including the doubles next to .5 (where floor(x + 0.5) errs).
  const double cases[] = {0.0,
                          -0.0,
                          0.5,
                          -0.5,
                          1.5,
                          2.5,
                          52.25,
                          75.5,
                          99.5,
                          100,
                          -2.5,
                          0.49999999999999994,
                          -0.49999999999999994,
                          4503599627370495.5,
                          4503599627370496.0,
                          1e300,
                          -1e300};
  for (const double x : cases) {
    SCOPED_TRACE(x);
    // llround, not a cast of round: converting ±1e300 to int64_t is undefined behaviour.
    EXPECT_EQ(TargetLoadPacking::Round(x), std::llround(x));
  }
  for (int i = -100000; i <= 100000; ++i) {
    const double x = i / 1000.0;
    ASSERT_EQ(TargetLoadPacking::Round(x), static_cast<int64_t>(std::round(x))) << x;
  }
}

TEST(TargetLoadPackingTest, UpdatedAndAddedNodesAreScoredFromTheirNewObject) {
  // The per-node records are keyed by the Node object: a replaced object (capacity 4 ->
  // 8 cores) or a node new to the snapshot is scored the slow way in the cycle that
  // finds it, and from the rebuilt table in the next; both give the same score.
  auto env = MakeEnv({Node4("a")}, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(
      MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 10).Node("b").Cpu(lw::kOpAvg, 50).Obj());
  const kube::Pod pod = PodWithLimit("p", "1");
  // a: U = 100*(400 + 1000)/4000 = 35 -> 60*35/40 + 40 = 92.5 -> 93.
  EXPECT_EQ(ScoreAll(*env, pod)["a"], 93);
  env->handle->snapshot().MutableNodeInfo("a")->SetNode(std::make_shared<const kube::Node>(
      MakeNode().Name("a").Capacity({{"cpu", "8"}, {"memory", "8Gi"}}).Obj()));
  for (int cycle = 0; cycle < 2; ++cycle) {
    SCOPED_TRACE(cycle);
    // a: U = 100*(800 + 1000)/8000 = 22.5 -> 60*22.5/40 + 40 = 73.75 -> 74.
    EXPECT_EQ(ScoreAll(*env, pod)["a"], 74);
  }
  env->handle->snapshot().Set(
      {MakeNode().Name("a").Capacity({{"cpu", "8"}, {"memory", "8Gi"}}).Obj(), Node4("b")}, {});
  for (int cycle = 0; cycle < 2; ++cycle) {
    SCOPED_TRACE(cycle);
    auto scores = ScoreAll(*env, pod);
    EXPECT_EQ(scores["a"], 74);
    // b: U = 100*(2000 + 1000)/4000 = 75 > 40 -> 40*(100-75)/60 = 16.67 -> 17.
    EXPECT_EQ(scores["b"], 17);
  }
  EXPECT_EQ(env->plugin->metrics().reporter().count(MetricsState::kNodeMissing), 0);
}

TEST(TargetLoadPackingTest, ReservedPodsCountOnlyOnTheirNode) {
  // The pending sums are read only for nodes with recently placed pods; the others
  // score from the metrics alone. 4-core nodes at 10 %, pods predicting 1 core, T = 40.
  auto env = MakeEnv({Node4("a"), Node4("b")}, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(
      MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 10).Node("b").Cpu(lw::kOpAvg, 10).Obj());
  CycleState first;
  const kube::Pod p1 = PodWithLimit("p1", "1");
  ScoreAll(*env, p1, first);
  ASSERT_TRUE(env->plugin->Reserve(first, p1, "a").IsSuccess());
  auto scores = ScoreAll(*env, PodWithLimit("p2", "1"));
  // a: U = 100*(400 + 1000 + 1000)/4000 = 60 > 40 -> 40*40/60 = 26.67 -> 27.
  EXPECT_EQ(scores["a"], 27);
  // b: U = 35 -> 92.5 -> 93.
  EXPECT_EQ(scores["b"], 93);
  env->plugin->Unreserve(first, p1, "a");
  EXPECT_EQ(ScoreAll(*env, PodWithLimit("p3", "1"))["a"], 93);
}

TEST(TargetLoadPackingTest, ConsecutivePodsWithOtherPredictionsAreRescored) {
  // Per-node records are reused across cycles; only the pod's prediction differs: each
  // cycle gets its own score. 4 cores at 10 %, T = 40.
  auto env = MakeEnv({Node4("a")}, {}, "{}");
  ASSERT_NE(env, nullptr);
  env->client.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 10).Obj());
  struct Case {
    std::string limit;
    int64_t want;
  };
  const Case cases[] = {
      {"1", 93},     // U = 100*(400 + 1000)/4000 = 35 -> 60*35/40 + 40 = 92.5 -> 93
      {"1", 93},     // the same pod shape again
      {"2", 27},     // U = 60 > 40 -> 40*40/60 = 26.67 -> 27
      {"1", 93},     // back to the first shape
      {"200m", 63},  // U = 100*(400 + 200)/4000 = 15 -> 60*15/40 + 40 = 62.5 -> 63
  };
  int i = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.limit);
    EXPECT_EQ(ScoreAll(*env, PodWithLimit(absl::StrCat("p", i++), c.limit))["a"], c.want);
  }
}

TEST(TargetLoadPackingTest, ScoreNodesMatchesScoreBitForBit) {
  // The batch path (two passes per group of nodes, the curve two nodes per SSE2
  // instruction, the table searched with a run-local cursor) against Score node by
  // node: the same integer and the same exact bits for every branch of the curve, a
  // node with a reserved pod, a node the metrics lack, a replaced Node object (no
  // record: the slow path), under both fallbacks, stale metrics and cpu + memory.
  struct Case {
    std::string name;
    std::string args;
    bool stale;
    size_t min_distinct;  // distinct integer scores at least (the branches are reached)
  };
  const std::vector<Case> cases = {
      {"cpu", "{}", false, 5},
      {"cpu target 50", "targetUtilization: 50", false, 5},
      {"MinScore", "fallback: MinScore", false, 4},
      {"stale, Requests", "{}", true, 3},
      {"stale, MinScore", "fallback: MinScore", true, 1},
      {"cpu and memory",
       "resources: [{name: cpu, weight: 1}, {name: memory, weight: 3, targetUtilization: 60}]",
       false, 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<kube::Node> nodes;
    auto metrics = MakeWatcherMetrics();
    // Loads below, at, above the target, overloaded, and one node without metrics.
    const double loads[] = {0, 10, 25.5, 40, 50, 60, 95, 130};
    for (int i = 0; i < 9; ++i) {
      const std::string name = absl::StrCat("n", i);
      nodes.push_back(Node4(name));
      if (i < 8) metrics.Node(name).Cpu(lw::kOpAvg, loads[i]).Memory(lw::kOpAvg, loads[i] / 2);
    }
    auto env = MakeEnv(
        nodes, {MakePod().Name("old").UID("o").NodeName("n8").Req({{"cpu", "1"}}).Obj()}, c.args);
    ASSERT_NE(env, nullptr);
    env->client.Set(metrics.Obj());
    // A pod reserved on n2 in an earlier cycle (pending load), then n5's Node object
    // replaced (its record no longer matches: scored the slow way).
    const kube::Pod first = PodWithLimit("first", "700m");
    CycleState first_state;
    ScoreAll(*env, first, first_state);
    ASSERT_TRUE(env->plugin->Reserve(first_state, first, "n2").IsSuccess());
    env->handle->snapshot().MutableNodeInfo("n5")->SetNode(std::make_shared<const kube::Node>(
        MakeNode().Name("n5").Capacity({{"cpu", "6"}, {"memory", "8Gi"}}).Obj()));
    if (c.stale) env->handle->fake_clock().Advance(absl::Minutes(6));

    const kube::Pod pod =
        MakePod().Name("p").Req({{"cpu", "1m"}}).Lim({{"cpu", "333m"}, {"memory", "1Gi"}}).Obj();
    CycleState state;
    auto list = env->handle->snapshot_lister().NodeInfos().List();
    ASSERT_TRUE(env->plugin->PreScore(state, pod, list).IsSuccess());
    std::vector<ScoreResult> want;
    for (const NodeInfo* n : list) want.push_back(env->plugin->Score(state, pod, *n));
    for (size_t run : {1, 2, 3, 9}) {
      SCOPED_TRACE(::testing::Message() << "runs of " << run);
      const std::vector<NodeScore> got =
          load_aware::testing::ScoreInRuns(*env->plugin, state, pod, list, run);
      for (size_t i = 0; i < list.size(); ++i) {
        load_aware::testing::ExpectSameScore(got[i].score, got[i].exact, want[i].score,
                                             want[i].exact, list[i]->name());
      }
    }
    // The cases do reach the branches they name: a spread of scores, not one value.
    std::set<int64_t> distinct;
    for (const ScoreResult& r : want) distinct.insert(r.score);
    EXPECT_GE(distinct.size(), c.min_distinct);
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins
