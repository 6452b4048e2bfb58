#include "scheduler/runtime/schedule_algorithm.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/runtime/runtime_test_util.h"
#include "scheduler/testing/fake_handle.h"
#include "scheduler/testing/fake_plugins.h"

namespace trimaran::sched {
namespace {

using runtime_testing::FactoryOf;
using runtime_testing::MakeBigNodes;
using ::testing::HasSubstr;

std::string NodeName(int i) { return absl::StrFormat("node-%04d", i); }

TEST(NumFeasibleNodesToFindTest, Table) {
  struct TestCase {
    const char* name;
    std::optional<int32_t> percentage;
    int nodes;
    int want;
  };
  const std::vector<TestCase> cases = {
      {"below the minimum: all", std::nullopt, 99, 99},
      // 50 − 100/125 = 50% → 50, clamped up to 100.
      {"100 nodes: all", std::nullopt, 100, 100},
      // 50 − 300/125 = 48% → 144.
      {"300 nodes", std::nullopt, 300, 144},
      // 50 − 1000/125 = 42% → 420.
      {"1000 nodes", std::nullopt, 1000, 420},
      // 50 − 5000/125 = 10% → 500.
      {"5000 nodes", std::nullopt, 5000, 500},
      // 50 − 5625/125 = 5% → 281.
      {"5625 nodes: the 5% floor", std::nullopt, 5625, 281},
      // max(5, 50 − 120) = 5% → 750.
      {"15000 nodes", std::nullopt, 15000, 750},
      {"explicit 0 is adaptive", 0, 5000, 500},
      // 30% of 5000.
      {"explicit 30%", 30, 5000, 1500},
      // 1% of 5000 = 50, clamped to 100.
      {"explicit 1% clamps to 100", 1, 5000, 100},
      {"100%", 100, 5000, 5000},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(NumFeasibleNodesToFind(tc.percentage, tc.nodes), tc.want);
  }
}

TEST(SelectHostTest, ExactBreaksTiesBeforeRandom) {
  const NodeInfo* none = nullptr;
  struct TestCase {
    const char* name;
    std::vector<Framework::NodeTotal> totals;
    bool exact_tie_break;
    std::set<int> want_any_of;
  };
  const std::vector<TestCase> cases = {
      {"integer total wins over exact",
       {{none, 150, 150.0}, {none, 151, 151.0}, {none, 150, 150.9}},
       true,
       {1}},
      {"exact breaks an integer tie",
       {{none, 150, 150.2}, {none, 150, 150.7}, {none, 150, 150.1}},
       true,
       {1}},
      {"exact ignored when disabled: random among all three",
       {{none, 150, 150.2}, {none, 150, 150.7}, {none, 150, 150.1}},
       false,
       {0, 1, 2}},
      {"equal exact: random among the tied",
       {{none, 150, 150.5}, {none, 150, 150.5}, {none, 150, 150.1}},
       true,
       {0, 1}},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    RandomSource random(42);
    std::set<int> seen;
    for (int i = 0; i < 200; ++i) seen.insert(SelectHost(tc.totals, tc.exact_tie_break, random));
    // 200 draws: every tied node is picked at least once (P(miss) < 3·(2/3)^200).
    EXPECT_EQ(seen, tc.want_any_of);
  }
}

TEST(SelectHostTest, DeterministicForASeed) {
  std::vector<Framework::NodeTotal> totals(10, Framework::NodeTotal{nullptr, 7, 7.0});
  RandomSource a(7), b(7);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(SelectHost(totals, true, a), SelectHost(totals, true, b));
}

class SchedulePodTest : public ::testing::Test {
 protected:
  void SetNodes(int count) { handle_->snapshot().Set(MakeBigNodes(count), {}); }
  std::unique_ptr<Framework> Make(const ProfileConfig& config) {
    auto fw = Framework::Create(config, registry_, *handle_);
    EXPECT_TRUE(fw.ok()) << fw.status();
    return fw.ok() ? std::move(*fw) : nullptr;
  }
  ScheduleResult Run(Framework& fw, const kube::Pod& pod) {
    CycleState state;
    return SchedulePod(fw, state, pod, handle_->snapshot_lister().NodeInfos(), algo_, random_);
  }

  std::unique_ptr<testing::FakeHandle> handle_ = testing::NewHandleForTest();
  Registry registry_;
  SchedulingAlgorithmState algo_;
  RandomSource random_{1};
  kube::Pod pod_ = kube::testing::MakePod().Name("p").Namespace("default").Obj();
};

TEST_F(SchedulePodTest, NoNodes) {
  auto fw = Make(ProfileConfig{});
  const ScheduleResult r = Run(*fw, pod_);
  EXPECT_EQ(r.status.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(r.status.Message(), "no nodes available to schedule pods");
}

TEST_F(SchedulePodTest, FilterStopsEarlyAndRotates) {
  SetNodes(300);
  auto counter = std::make_shared<testing::FakeFilterPlugin*>(nullptr);
  TRIMARAN_ASSERT_OK(registry_.Register(
      "Count", [counter](const PluginArgs&, Handle&) -> absl::StatusOr<PluginPtr> {
        auto p = std::make_unique<testing::FakeFilterPlugin>(
            absl::flat_hash_map<std::string, Code>{}, "Count");
        *counter = p.get();
        return p;
      }));
  TRIMARAN_ASSERT_OK(registry_.Register("Score", testing::FixedScorePlugin::Factory({}, "Score")));
  auto fw = Make(ProfileConfig{.filter = {"Count"}, .score = {{"Score", 1}}});
  // 300 nodes, adaptive: 48% → 144 feasible nodes wanted (see the table above).
  ScheduleResult r = Run(*fw, pod_);
  ASSERT_TRUE(r.status.IsSuccess()) << r.status;
  EXPECT_EQ(r.feasible_nodes, 144);
  EXPECT_EQ(r.evaluated_nodes, 144);
  EXPECT_EQ((*counter)->num_filter_called(), 144);
  EXPECT_EQ(algo_.next_start_node_index, 144u);
  // All scores are 0: the host is one of the examined window [0, 144).
  EXPECT_LT(r.suggested_host, NodeName(144));
  // Second pod starts at 144: window [144, 288).
  r = Run(*fw, pod_);
  EXPECT_EQ(algo_.next_start_node_index, 288u);
  EXPECT_GE(r.suggested_host, NodeName(144));
  EXPECT_LT(r.suggested_host, NodeName(288));
  // Third wraps: (288 + 144) mod 300 = 132.
  r = Run(*fw, pod_);
  EXPECT_EQ(algo_.next_start_node_index, 132u);
}

TEST_F(SchedulePodTest, RejectedNodesCountInTheRotation) {
  SetNodes(200);
  // Nodes 0..9 reject: 200 nodes want 100 feasible (50% = 100): 10 rejected + 100 fit.
  absl::flat_hash_map<std::string, Code> codes;
  for (int i = 0; i < 10; ++i) codes[NodeName(i)] = Code::kUnschedulable;
  TRIMARAN_ASSERT_OK(registry_.Register("F", testing::FakeFilterPlugin::Factory(codes, "F")));
  TRIMARAN_ASSERT_OK(registry_.Register("S", testing::FixedScorePlugin::Factory({}, "S")));
  auto fw = Make(ProfileConfig{.filter = {"F"}, .score = {{"S", 1}}});
  const ScheduleResult r = Run(*fw, pod_);
  EXPECT_EQ(r.feasible_nodes, 100);
  EXPECT_EQ(r.evaluated_nodes, 110);
  EXPECT_EQ(algo_.next_start_node_index, 110u);
}

TEST_F(SchedulePodTest, PackingProfileScoresEveryFeasibleNode) {
  SetNodes(300);
  TRIMARAN_ASSERT_OK(registry_.Register("T", testing::TrueFilterPlugin::Factory("T")));
  // Only the last node scores: a sampled window [0, 144) would miss it.
  TRIMARAN_ASSERT_OK(
      registry_.Register("S", testing::FixedScorePlugin::Factory({{NodeName(299), 100}}, "S")));
  auto fw = Make(ProfileConfig{.filter = {"T"}, .score = {{"S", 1}}, .packing = true});
  const ScheduleResult r = Run(*fw, pod_);
  EXPECT_EQ(r.feasible_nodes, 300);
  EXPECT_EQ(r.suggested_host, NodeName(299));
  // An explicit percentage is honoured: 50% of 300 = 150.
  auto sampled = Make(ProfileConfig{
      .filter = {"T"}, .score = {{"S", 1}}, .percentage_of_nodes_to_score = 50, .packing = true});
  EXPECT_EQ(Run(*sampled, pod_).feasible_nodes, 150);
}

TEST_F(SchedulePodTest, OneFeasibleNodeSkipsScoring) {
  SetNodes(3);
  TRIMARAN_ASSERT_OK(registry_.Register("Match", testing::MatchFilterPlugin::Factory("Match")));
  // A score above 100 would fail the cycle if scoring ran.
  TRIMARAN_ASSERT_OK(
      registry_.Register("Bad", testing::FixedScorePlugin::Factory({{NodeName(1), 500}}, "Bad")));
  auto fw = Make(ProfileConfig{.filter = {"Match"}, .score = {{"Bad", 1}}});
  const ScheduleResult r = Run(*fw, kube::testing::MakePod().Name(NodeName(1)).Obj());
  ASSERT_TRUE(r.status.IsSuccess()) << r.status;
  EXPECT_EQ(r.suggested_host, NodeName(1));
  EXPECT_EQ(r.feasible_nodes, 1);
  EXPECT_EQ(r.evaluated_nodes, 3);
}

TEST_F(SchedulePodTest, ExactTieBreakThenSeededRandom) {
  SetNodes(4);
  TRIMARAN_ASSERT_OK(registry_.Register("T", testing::TrueFilterPlugin::Factory("T")));
  // Integer scores tie at 50 on nodes 0-2; node 3 scores 49 with the highest exact.
  TRIMARAN_ASSERT_OK(registry_.Register(
      "S",
      testing::FixedScorePlugin::Factory(
          {{NodeName(0), 50}, {NodeName(1), 50}, {NodeName(2), 50}, {NodeName(3), 49}}, "S",
          {{NodeName(0), 50.2}, {NodeName(1), 50.6}, {NodeName(2), 50.6}, {NodeName(3), 49.99}})));
  auto fw = Make(ProfileConfig{.filter = {"T"}, .score = {{"S", 3}}});
  // 3·50 = 150 for nodes 0-2 beats 3·49 = 147; exact 151.8 for nodes 1 and 2 beats 150.6.
  std::set<std::string> hosts;
  for (int i = 0; i < 64; ++i) hosts.insert(Run(*fw, pod_).suggested_host);
  EXPECT_EQ(hosts, (std::set<std::string>{NodeName(1), NodeName(2)}));
  // Without the exact tie-break all three integer-tied nodes are chosen.
  auto plain = Make(ProfileConfig{.filter = {"T"}, .score = {{"S", 3}}, .exact_tie_break = false});
  hosts.clear();
  for (int i = 0; i < 64; ++i) hosts.insert(Run(*plain, pod_).suggested_host);
  EXPECT_EQ(hosts, (std::set<std::string>{NodeName(0), NodeName(1), NodeName(2)}));
}

TEST_F(SchedulePodTest, FitErrorDiagnosis) {
  SetNodes(3);
  TRIMARAN_ASSERT_OK(registry_.Register("False", testing::FalseFilterPlugin::Factory("False")));
  TRIMARAN_ASSERT_OK(registry_.Register(
      "Fake", testing::FakeFilterPlugin::Factory(
                  {{NodeName(0), Code::kUnschedulableAndUnresolvable}}, "Fake")));
  auto fw = Make(ProfileConfig{.filter = {"Fake", "False"}});
  const ScheduleResult r = Run(*fw, pod_);
  EXPECT_EQ(r.status.code(), Code::kUnschedulable);
  // node-0000: Fake; node-0001/2: False. Sorted as strings.
  EXPECT_EQ(r.status.Message(),
            "0/3 nodes are available: 1 injecting failure for pod p, 2 Nodes failed the fake "
            "plugin.");
  EXPECT_EQ(r.diagnosis.node_to_status.size(), 3u);
  EXPECT_EQ(r.diagnosis.node_to_status.Get(NodeName(0)).plugin(), "Fake");
  EXPECT_EQ(r.diagnosis.node_to_status.Get(NodeName(0)).code(),
            Code::kUnschedulableAndUnresolvable);
  EXPECT_THAT(r.diagnosis.unschedulable_plugins, ::testing::UnorderedElementsAre("Fake", "False"));
  EXPECT_EQ(r.evaluated_nodes, 3);
}

// Narrows PreFilter to a fixed node set.
class NarrowingPlugin final : public PreFilterPlugin {
 public:
  explicit NarrowingPlugin(absl::flat_hash_set<std::string> names) : names_(std::move(names)) {}
  absl::string_view Name() const override { return "Narrow"; }
  Status PreFilter(CycleState&, const kube::Pod&, std::span<const NodeInfo* const>,
                   PreFilterResult& r) override {
    r.node_names = names_;
    return Status();
  }

 private:
  absl::flat_hash_set<std::string> names_;
};

TEST_F(SchedulePodTest, PreFilterNarrowsTheCandidates) {
  SetNodes(5);
  TRIMARAN_ASSERT_OK(
      registry_.Register("Narrow", FactoryOf([] {
                           return std::make_unique<NarrowingPlugin>(
                               absl::flat_hash_set<std::string>{NodeName(1), NodeName(3), "gone"});
                         })));
  TRIMARAN_ASSERT_OK(registry_.Register("F", testing::FakeFilterPlugin::Factory({}, "F")));
  TRIMARAN_ASSERT_OK(registry_.Register("False", testing::FalseFilterPlugin::Factory("False")));
  TRIMARAN_ASSERT_OK(registry_.Register("S", testing::FixedScorePlugin::Factory({}, "S")));
  {
    auto fw = Make(ProfileConfig{.pre_filter = {"Narrow"}, .filter = {"F"}, .score = {{"S", 1}}});
    const ScheduleResult r = Run(*fw, pod_);
    ASSERT_TRUE(r.status.IsSuccess());
    EXPECT_EQ(r.evaluated_nodes, 2);
    EXPECT_THAT(r.suggested_host, ::testing::AnyOf(NodeName(1), NodeName(3)));
    auto* f = dynamic_cast<testing::FakeFilterPlugin*>(fw->GetPlugin("F"));
    EXPECT_EQ(f->num_filter_called(), 2);
  }
  {
    auto fw = Make(ProfileConfig{.pre_filter = {"Narrow"}, .filter = {"False"}});
    const ScheduleResult r = Run(*fw, pod_);
    // Two filtered nodes + three excluded by PreFilter.
    EXPECT_EQ(r.status.Message(),
              "0/5 nodes are available: 2 Nodes failed the fake plugin, 3 node(s) didn't satisfy "
              "plugin(s) [Narrow].");
    EXPECT_TRUE(r.diagnosis.unschedulable_plugins.contains("Narrow"));
  }
}

TEST_F(SchedulePodTest, PreFilterRejection) {
  SetNodes(2);
  struct Reject final : PreFilterPlugin {
    absl::string_view Name() const override { return "Reject"; }
    Status PreFilter(CycleState&, const kube::Pod&, std::span<const NodeInfo* const>,
                     PreFilterResult&) override {
      return Status::UnschedulableAndUnresolvable("pod uses an unsupported field");
    }
  };
  TRIMARAN_ASSERT_OK(
      registry_.Register("Reject", FactoryOf([] { return std::make_unique<Reject>(); })));
  auto fw = Make(ProfileConfig{.pre_filter = {"Reject"}});
  const ScheduleResult r = Run(*fw, pod_);
  EXPECT_EQ(r.status.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(r.status.Message(), "0/2 nodes are available: pod uses an unsupported field.");
  EXPECT_THAT(r.diagnosis.unschedulable_plugins, ::testing::ElementsAre("Reject"));
  EXPECT_EQ(r.diagnosis.node_to_status.absent_nodes_status().plugin(), "Reject");
}

TEST_F(SchedulePodTest, FilterErrorAbortsTheCycle) {
  SetNodes(3);
  TRIMARAN_ASSERT_OK(registry_.Register(
      "E", testing::FakeFilterPlugin::Factory({{NodeName(1), Code::kError}}, "E")));
  auto fw = Make(ProfileConfig{.filter = {"E"}, .score = {}});
  const ScheduleResult r = Run(*fw, pod_);
  // No score plugins: one feasible node is enough, so node-0000 fits before node-0001 errs.
  EXPECT_TRUE(r.status.IsSuccess());
  algo_.next_start_node_index = 1;
  const ScheduleResult e = Run(*fw, pod_);
  EXPECT_EQ(e.status.code(), Code::kError);
  EXPECT_EQ(e.status.plugin(), "E");
  EXPECT_THAT(e.status.Message(), HasSubstr("running Filter plugin \"E\""));
}

TEST_F(SchedulePodTest, NominatedNodeIsTriedFirst) {
  SetNodes(300);
  TRIMARAN_ASSERT_OK(registry_.Register("F", testing::FakeFilterPlugin::Factory({}, "F")));
  TRIMARAN_ASSERT_OK(registry_.Register("S", testing::FixedScorePlugin::Factory({}, "S")));
  auto fw = Make(ProfileConfig{.filter = {"F"}, .score = {{"S", 1}}});
  kube::Pod pod = pod_;
  pod.status.nominated_node_name = NodeName(250);
  const ScheduleResult r = Run(*fw, pod);
  EXPECT_EQ(r.suggested_host, NodeName(250));
  EXPECT_EQ(dynamic_cast<testing::FakeFilterPlugin*>(fw->GetPlugin("F"))->num_filter_called(), 1);
}

// ---- ScheduleOptions: the tools' view of the same algorithm ----

class ScheduleOptionsTest : public SchedulePodTest {
 protected:
  ScheduleResult RunWith(Framework& fw, const kube::Pod& pod, CycleDetails& details,
                         bool deterministic = true) {
    CycleState state;
    const ScheduleOptions options{
        .evaluate_all_nodes = true, .deterministic_tie_break = deterministic, .details = &details};
    return SchedulePod(fw, state, pod, handle_->snapshot_lister().NodeInfos(), algo_, random_,
                       options);
  }
};

TEST_F(ScheduleOptionsTest, EveryNodeGetsAVerdictAndNothingRotates) {
  SetNodes(300);
  absl::flat_hash_map<std::string, Code> codes;
  for (int i = 0; i < 10; ++i) codes[NodeName(i * 7)] = Code::kUnschedulable;
  TRIMARAN_ASSERT_OK(registry_.Register("F", testing::FakeFilterPlugin::Factory(codes, "F")));
  TRIMARAN_ASSERT_OK(registry_.Register("S", testing::FixedScorePlugin::Factory({}, "S")));
  auto fw = Make(ProfileConfig{.filter = {"F"}, .score = {{"S", 1}}});
  algo_.next_start_node_index = 17;
  CycleDetails details;
  const ScheduleResult r = RunWith(*fw, pod_, details);
  ASSERT_TRUE(r.status.IsSuccess()) << r.status;
  // The daemon would stop at 144 feasible nodes; the tools evaluate all 300.
  EXPECT_EQ(r.evaluated_nodes, 300);
  EXPECT_EQ(r.feasible_nodes, 290);
  EXPECT_EQ(algo_.next_start_node_index, 17u);
  ASSERT_EQ(details.nodes.size(), 300u);
  int rejected = 0;
  for (size_t i = 0; i < details.nodes.size(); ++i) {
    EXPECT_EQ(details.nodes[i].node->name(), NodeName(static_cast<int>(i)));
    if (!details.nodes[i].status.IsSuccess()) {
      ++rejected;
      EXPECT_EQ(details.nodes[i].status.plugin(), "F");
    }
  }
  EXPECT_EQ(rejected, 10);
  EXPECT_EQ(details.scored.size(), 290u);
  EXPECT_EQ(details.scores.totals.size(), 290u);
  // Every score is 0: the smallest feasible name wins (node-0000 is rejected).
  EXPECT_EQ(r.suggested_host, NodeName(1));
}

TEST_F(ScheduleOptionsTest, DeterministicTieBreakTakesTheSmallestName) {
  handle_->snapshot().Set(
      {kube::testing::MakeNode().Name("c").Obj(), kube::testing::MakeNode().Name("a").Obj(),
       kube::testing::MakeNode().Name("b").Obj()},
      {});
  TRIMARAN_ASSERT_OK(registry_.Register("S", testing::FixedScorePlugin::Factory({}, "S")));
  auto fw = Make(ProfileConfig{.score = {{"S", 1}}});
  for (uint64_t seed = 0; seed < 20; ++seed) {
    random_ = RandomSource(seed);
    CycleDetails details;
    EXPECT_EQ(RunWith(*fw, pod_, details).suggested_host, "a");
  }
  // Without it, the daemon's random pick reaches every tied node.
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    CycleDetails details;
    seen.insert(RunWith(*fw, pod_, details, /*deterministic=*/false).suggested_host);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"a", "b", "c"}));
}

TEST_F(ScheduleOptionsTest, OneFeasibleNodeIsStillScored) {
  SetNodes(3);
  TRIMARAN_ASSERT_OK(registry_.Register("Match", testing::MatchFilterPlugin::Factory("Match")));
  TRIMARAN_ASSERT_OK(registry_.Register(
      "S", testing::FixedScorePlugin::Factory({{NodeName(1), 40}}, "S", {{NodeName(1), 40.5}})));
  auto fw = Make(ProfileConfig{.filter = {"Match"}, .score = {{"S", 3}}});
  CycleDetails details;
  const ScheduleResult r = RunWith(*fw, kube::testing::MakePod().Name(NodeName(1)).Obj(), details);
  ASSERT_TRUE(r.status.IsSuccess()) << r.status;
  EXPECT_EQ(r.suggested_host, NodeName(1));
  ASSERT_EQ(details.scored.size(), 1u);
  EXPECT_EQ(details.scores.totals[0].total, 120);
  EXPECT_DOUBLE_EQ(details.scores.totals[0].exact_total, 121.5);
}

TEST_F(ScheduleOptionsTest, KeepsRawAndNormalizedScores) {
  SetNodes(3);
  // Raw score = 10 x the node's index; NormalizeScore halves it.
  struct Halving final : ScorePlugin, ScoreExtensions {
    absl::string_view Name() const override { return "Halving"; }
    ScoreResult Score(const CycleState&, const kube::Pod&, const NodeInfo& node) const override {
      return ScoreResult::Of(10 * (node.name().back() - '0'));
    }
    const ScoreExtensions* GetScoreExtensions() const override { return this; }
    Status NormalizeScore(const CycleState&, const kube::Pod&,
                          NodeScoreList& scores) const override {
      for (NodeScore& s : scores) s.score /= 2;
      return Status();
    }
  };
  TRIMARAN_ASSERT_OK(
      registry_.Register("Halving", FactoryOf([] { return std::make_unique<Halving>(); })));
  auto fw = Make(ProfileConfig{.score = {{"Halving", 1}}});
  CycleDetails details;
  const ScheduleResult r = RunWith(*fw, pod_, details);
  ASSERT_TRUE(r.status.IsSuccess()) << r.status;
  EXPECT_EQ(r.suggested_host, NodeName(2));
  ASSERT_EQ(details.scores.raw.size(), 1u);
  for (int n = 0; n < 3; ++n) {
    EXPECT_EQ(details.scores.raw[0][n].score, 10 * n);
    EXPECT_EQ(details.scores.per_plugin[0][n].score, 5 * n);
    EXPECT_EQ(details.scores.totals[n].total, 5 * n);
  }
  // The scheduler's own cycles keep no raw copy.
  EXPECT_TRUE(Run(*fw, pod_).status.IsSuccess());
  EXPECT_FALSE(algo_.scores.keep_raw);
}

TEST_F(ScheduleOptionsTest, AFilterErrorNamesItsNode) {
  SetNodes(3);
  TRIMARAN_ASSERT_OK(registry_.Register(
      "E", testing::FakeFilterPlugin::Factory({{NodeName(2), Code::kError}}, "E")));
  auto fw = Make(ProfileConfig{.filter = {"E"}});
  CycleDetails details;
  const ScheduleResult r = RunWith(*fw, pod_, details);
  EXPECT_EQ(r.status.code(), Code::kError);
  EXPECT_EQ(details.failed_point, "Filter");
  EXPECT_EQ(details.failed_node, NodeName(2));
}

TEST_F(ScheduleOptionsTest, AFittingNominatedNodeIsTakenAfterScoringEveryNode) {
  SetNodes(5);
  TRIMARAN_ASSERT_OK(registry_.Register("F", testing::FakeFilterPlugin::Factory({}, "F")));
  TRIMARAN_ASSERT_OK(
      registry_.Register("S", testing::FixedScorePlugin::Factory({{NodeName(0), 100}}, "S")));
  auto fw = Make(ProfileConfig{.filter = {"F"}, .score = {{"S", 1}}});
  kube::Pod pod = pod_;
  pod.status.nominated_node_name = NodeName(3);
  CycleDetails details;
  const ScheduleResult r = RunWith(*fw, pod, details);
  EXPECT_EQ(r.suggested_host, NodeName(3));
  EXPECT_TRUE(details.took_nominated);
  EXPECT_EQ(details.scored.size(), 5u);
  EXPECT_EQ(dynamic_cast<testing::FakeFilterPlugin*>(fw->GetPlugin("F"))->num_filter_called(), 5);
}

TEST(SelectHostTest, DeterministicPicksTheSmallestNameAmongTies) {
  auto handle = testing::NewHandleForTest({kube::testing::MakeNode().Name("n-b").Obj(),
                                           kube::testing::MakeNode().Name("n-a").Obj(),
                                           kube::testing::MakeNode().Name("n-c").Obj()});
  const std::span<const NodeInfo* const> nodes = handle->snapshot().List();
  std::vector<Framework::NodeTotal> totals = {
      {nodes[0], 7, 7.0}, {nodes[1], 7, 7.0}, {nodes[2], 7, 7.0 + 1e-12}};
  RandomSource random(3);
  EXPECT_EQ(SelectHost(totals, true, random, /*deterministic=*/true), 1);
  // A real exact difference still wins over the name.
  totals[2].exact_total = 7.5;
  EXPECT_EQ(SelectHost(totals, true, random, /*deterministic=*/true), 2);
}

TEST(SchedulePodThreadedTest, ParallelFilterFindsExactlyTheWantedCount) {
  runtime_testing::ThreadedHandle handle(4);
  handle.fake().snapshot().Set(MakeBigNodes(1000), {});
  Registry registry;
  TRIMARAN_ASSERT_OK(registry.Register("T", testing::TrueFilterPlugin::Factory("T")));
  TRIMARAN_ASSERT_OK(registry.Register("S", testing::FixedScorePlugin::Factory({}, "S")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto fw,
      Framework::Create(ProfileConfig{.filter = {"T"}, .score = {{"S", 1}}}, registry, handle));
  SchedulingAlgorithmState algo;
  RandomSource random(3);
  for (int i = 0; i < 20; ++i) {
    CycleState state;
    const ScheduleResult r = SchedulePod(*fw, state, kube::testing::MakePod().Name("p").Obj(),
                                         handle.snapshot_lister().NodeInfos(), algo, random);
    ASSERT_TRUE(r.status.IsSuccess());
    // 1000 nodes: 42% → 420.
    EXPECT_EQ(r.feasible_nodes, 420);
  }
}

// Issue 4, "Bin packing that actually packs": 3,000 pods of 100m / 500Mi on 500 nodes of
// 32 CPU / 128Gi / 110 pods with a MostAllocated profile use at most 31 nodes (the lower
// bound is ⌈3000/110⌉ = 28).
TEST(SchedulePodPackingTest, MostAllocatedPacksIssue4Workload) {
  for (bool packing : {true}) {
    testing::FakeHandle handle;
    handle.snapshot().Set(MakeBigNodes(500), {});
    Registry registry;
    TRIMARAN_ASSERT_OK(registry.Register(
        "Fit", FactoryOf([] { return std::make_unique<runtime_testing::SimpleFitPlugin>(); })));
    TRIMARAN_ASSERT_OK(registry.Register(
        "MostAllocated", FactoryOf([] {
          return std::make_unique<runtime_testing::SimpleMostAllocatedPlugin>(true);
        })));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        auto fw,
        Framework::Create(
            ProfileConfig{.filter = {"Fit"}, .score = {{"MostAllocated", 1}}, .packing = packing},
            registry, handle));
    SchedulingAlgorithmState algo;
    RandomSource random(4);
    std::set<std::string> used;
    for (int i = 0; i < 3000; ++i) {
      auto pod = std::make_shared<kube::Pod>(kube::testing::MakePod()
                                                 .Name(absl::StrCat("p", i))
                                                 .Namespace("default")
                                                 .Req({{"cpu", "100m"}, {"memory", "500Mi"}})
                                                 .Obj());
      CycleState state;
      const ScheduleResult r =
          SchedulePod(*fw, state, *pod, handle.snapshot_lister().NodeInfos(), algo, random);
      ASSERT_TRUE(r.status.IsSuccess()) << r.status;
      used.insert(r.suggested_host);
      handle.snapshot().MutableNodeInfo(r.suggested_host)->AddPod(pod);
    }
    EXPECT_LE(used.size(), 31u);
  }
}

}  // namespace
}  // namespace trimaran::sched
