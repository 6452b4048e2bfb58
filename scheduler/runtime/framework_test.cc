#include "scheduler/runtime/framework.h"

#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
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
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

class CallLog {
 public:
  void Add(std::string call) {
    absl::MutexLock lock(&mu_);
    calls_.push_back(std::move(call));
  }
  std::vector<std::string> Take() {
    absl::MutexLock lock(&mu_);
    return std::exchange(calls_, {});
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
};

// Implements every extension point; each returns its configured status and logs
// "<Point>/<name>".
struct Behaviour {
  Status pre_filter, filter, post_filter, pre_score, reserve, permit, pre_bind, bind;
  std::optional<absl::flat_hash_set<std::string>> narrow;
  absl::Duration permit_timeout = absl::Seconds(10);
};

class RecordingPlugin final : public PreFilterPlugin,
                              public FilterPlugin,
                              public PostFilterPlugin,
                              public PreScorePlugin,
                              public ReservePlugin,
                              public PermitPlugin,
                              public PreBindPlugin,
                              public BindPlugin,
                              public PostBindPlugin {
 public:
  RecordingPlugin(std::string name, Behaviour b, CallLog& log)
      : name_(std::move(name)), b_(std::move(b)), log_(log) {}
  absl::string_view Name() const override { return name_; }
  Status PreFilter(CycleState&, const kube::Pod&, std::span<const NodeInfo* const>,
                   PreFilterResult& r) override {
    log_.Add("PreFilter/" + name_);
    r.node_names = b_.narrow;
    return b_.pre_filter;
  }
  Status Filter(const CycleState&, const kube::Pod&, const NodeInfo&) const override {
    log_.Add("Filter/" + name_);
    return b_.filter;
  }
  Status PostFilter(CycleState&, const kube::Pod&, const NodeToStatus&,
                    PostFilterResult& r) override {
    log_.Add("PostFilter/" + name_);
    if (b_.post_filter.IsSuccess()) r.nominated_node_name = "n1";
    return b_.post_filter;
  }
  Status PreScore(CycleState&, const kube::Pod&, std::span<const NodeInfo* const>) override {
    log_.Add("PreScore/" + name_);
    return b_.pre_score;
  }
  Status Reserve(CycleState&, const kube::Pod&, absl::string_view) override {
    log_.Add("Reserve/" + name_);
    return b_.reserve;
  }
  void Unreserve(CycleState&, const kube::Pod&, absl::string_view) override {
    log_.Add("Unreserve/" + name_);
  }
  Status Permit(CycleState&, const kube::Pod&, absl::string_view, absl::Duration& t) override {
    log_.Add("Permit/" + name_);
    t = b_.permit_timeout;
    return b_.permit;
  }
  Status PreBind(CycleState&, const kube::Pod&, absl::string_view) override {
    log_.Add("PreBind/" + name_);
    return b_.pre_bind;
  }
  Status Bind(CycleState&, const kube::Pod&, absl::string_view) override {
    log_.Add("Bind/" + name_);
    return b_.bind;
  }
  void PostBind(CycleState&, const kube::Pod&, absl::string_view) override {
    log_.Add("PostBind/" + name_);
  }

 private:
  std::string name_;
  Behaviour b_;
  CallLog& log_;
};

// Scores from a map; NormalizeScore is upstream's DefaultNormalizeScore (100·s/max),
// applied to `exact` too.
class NormalizedScorePlugin final : public ScorePlugin, public ScoreExtensions {
 public:
  NormalizedScorePlugin(std::string name, absl::flat_hash_map<std::string, int64_t> scores)
      : name_(std::move(name)), scores_(std::move(scores)) {}
  absl::string_view Name() const override { return name_; }
  ScoreResult Score(const CycleState&, const kube::Pod&, const NodeInfo& n) const override {
    const auto it = scores_.find(n.name());
    return ScoreResult::Of(it == scores_.end() ? 0 : it->second);
  }
  const ScoreExtensions* GetScoreExtensions() const override { return this; }
  Status NormalizeScore(const CycleState&, const kube::Pod&, NodeScoreList& list) const override {
    int64_t max = 0;
    for (const NodeScore& s : list) max = std::max(max, s.score);
    for (NodeScore& s : list) {
      s.score = max == 0 ? 0 : kMaxNodeScore * s.score / max;
      s.exact.reset();
    }
    return Status();
  }

 private:
  std::string name_;
  absl::flat_hash_map<std::string, int64_t> scores_;
};

class FrameworkTest : public ::testing::Test {
 protected:
  FrameworkTest()
      : handle_(testing::NewHandleForTest({kube::testing::MakeNode().Name("n1").Obj(),
                                           kube::testing::MakeNode().Name("n2").Obj(),
                                           kube::testing::MakeNode().Name("n3").Obj()})),
        pod_(std::make_shared<kube::Pod>(
            kube::testing::MakePod().Name("p").Namespace("default").UID("uid-p").Obj())) {}

  void AddRecording(const std::string& name, Behaviour b = {}) {
    TRIMARAN_ASSERT_OK(registry_.Register(
        name, [this, name, b](const PluginArgs&, Handle&) -> absl::StatusOr<PluginPtr> {
          ++factory_calls_[name];
          return std::make_unique<RecordingPlugin>(name, b, log_);
        }));
  }

  std::unique_ptr<Framework> MustCreate(const ProfileConfig& config) {
    absl::StatusOr<std::unique_ptr<Framework>> fw = Framework::Create(config, registry_, *handle_);
    EXPECT_TRUE(fw.ok()) << fw.status();
    return fw.ok() ? std::move(*fw) : nullptr;
  }

  std::span<const NodeInfo* const> Nodes() const {
    return handle_->snapshot_lister().NodeInfos().List();
  }

  std::unique_ptr<testing::FakeHandle> handle_;
  std::shared_ptr<kube::Pod> pod_;
  Registry registry_;
  CallLog log_;
  std::map<std::string, int> factory_calls_;
};

TEST_F(FrameworkTest, CreateErrors) {
  AddRecording("A");
  TRIMARAN_ASSERT_OK(registry_.Register("TrueFilter", testing::TrueFilterPlugin::Factory()));
  struct TestCase {
    std::string name;
    ProfileConfig config;
    std::string want;
  };
  std::vector<TestCase> cases;
  cases.push_back({"unregistered", ProfileConfig{.filter = {"Missing"}}, "not registered"});
  cases.push_back(
      {"not a score plugin", ProfileConfig{.score = {{"TrueFilter", 1}}}, "does not extend Score"});
  cases.push_back(
      {"twice at one point", ProfileConfig{.filter = {"A", "A"}}, "already registered"});
  cases.push_back(
      {"negative weight", ProfileConfig{.score = {{"FixedScore", -1}}}, "negative weight"});
  TRIMARAN_ASSERT_OK(registry_.Register("FixedScore", testing::FixedScorePlugin::Factory({})));
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_THAT(Framework::Create(tc.config, registry_, *handle_).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(tc.want)));
  }
}

// A plugin's Handle forwards the load watcher and the per-args metrics sources of the
// profile's Handle (load-aware plugins resolve their metrics through them).
TEST_F(FrameworkTest, PluginHandleForwardsLoadWatcherAndSources) {
  class NoClient final : public lw::Client {
   public:
    absl::StatusOr<lw::WatcherMetricsPtr> GetLatestMetrics(const lw::MetricsRequest&) override {
      return absl::UnavailableError("none");
    }
  };
  class NoPool final : public lw::SourcePool {
   public:
    absl::StatusOr<lw::Client*> InProcess(const lw::ProviderSpec&) override { return nullptr; }
    absl::StatusOr<lw::Client*> Remote(absl::string_view) override { return nullptr; }
  };
  NoClient client;
  NoPool pool;
  Handle* seen = nullptr;
  TRIMARAN_ASSERT_OK(registry_.Register(
      "Capture", [&seen](const PluginArgs& args, Handle& h) -> absl::StatusOr<PluginPtr> {
        seen = &h;
        return testing::TrueFilterPlugin::Factory("Capture")(args, h);
      }));
  for (const bool set : {false, true}) {
    SCOPED_TRACE(set ? "set" : "unset");
    handle_->SetLoadWatcher(set ? &client : nullptr);
    handle_->SetLoadWatcherSources(set ? &pool : nullptr);
    auto fw = MustCreate(ProfileConfig{.filter = {"Capture"}});
    ASSERT_NE(seen, nullptr);
    EXPECT_NE(seen, handle_.get());  // the plugin's own Handle
    EXPECT_EQ(seen->load_watcher(), set ? &client : nullptr);
    EXPECT_EQ(seen->load_watcher_sources(), set ? &pool : nullptr);
  }
}

// The plugin's Handle also hands out the profile's nominator and, for preemption's dry
// run, the Framework itself as the PluginsRunner.
TEST_F(FrameworkTest, PluginHandleForwardsNominatorAndRunner) {
  class NoNominator final : public PodNominator {
   public:
    void AddNominatedPod(std::shared_ptr<const kube::Pod>, absl::string_view) override {}
    void DeleteNominatedPodIfExists(const kube::Pod&) override {}
    std::vector<PodInfo> NominatedPodsForNode(absl::string_view) const override { return {}; }
    bool HasNominatedPods() const override { return false; }
  };
  NoNominator nominator;
  handle_->SetNominator(&nominator);
  Handle* seen = nullptr;
  TRIMARAN_ASSERT_OK(registry_.Register(
      "Capture", [&seen](const PluginArgs& args, Handle& h) -> absl::StatusOr<PluginPtr> {
        seen = &h;
        return testing::TrueFilterPlugin::Factory("Capture")(args, h);
      }));
  auto fw = MustCreate(ProfileConfig{.filter = {"Capture"}});
  ASSERT_NE(seen, nullptr);
  EXPECT_EQ(seen->nominator(), &nominator);
  EXPECT_EQ(seen->plugins_runner(), static_cast<const PluginsRunner*>(fw.get()));
  EXPECT_EQ(handle_->plugins_runner(), nullptr);
}

// Plugins implementing PodDeletionListener hear of deleted pods; others are not asked.
TEST_F(FrameworkTest, PodDeletionListeners) {
  class Listener final : public FilterPlugin, public PodDeletionListener {
   public:
    explicit Listener(std::vector<std::string>& heard) : heard_(heard) {}
    absl::string_view Name() const override { return "Listener"; }
    Status Filter(const CycleState&, const kube::Pod&, const NodeInfo&) const override {
      return Status();
    }
    void OnAssignedPodDeleted(const kube::Pod& pod) override {
      heard_.push_back(pod.metadata.name);
    }

   private:
    std::vector<std::string>& heard_;
  };
  std::vector<std::string> heard;
  TRIMARAN_ASSERT_OK(registry_.Register(
      "Listener", FactoryOf([&heard] { return std::make_unique<Listener>(heard); })));
  TRIMARAN_ASSERT_OK(registry_.Register("TrueFilter", testing::TrueFilterPlugin::Factory()));
  auto fw = MustCreate(ProfileConfig{.filter = {"TrueFilter", "Listener"}});
  ASSERT_NE(fw, nullptr);
  fw->RunPodDeletionListeners(*pod_);
  EXPECT_THAT(heard, ::testing::ElementsAre("p"));
}

TEST_F(FrameworkTest, PluginInstantiatedOnceAcrossPoints) {
  AddRecording("A");
  ProfileConfig config{.pre_filter = {"A"}, .filter = {"A"}, .reserve = {"A"}, .bind = {"A"}};
  auto fw = MustCreate(config);
  ASSERT_NE(fw, nullptr);
  EXPECT_EQ(factory_calls_["A"], 1);
  EXPECT_NE(fw->GetPlugin("A"), nullptr);
}

TEST_F(FrameworkTest, PreFilter) {
  struct TestCase {
    std::string name;
    Behaviour a, b;
    Code want_code;
    std::string want_plugin;
    std::string want_message;
    std::vector<std::string> want_calls;
    std::vector<std::string> want_skip;
  };
  const absl::flat_hash_set<std::string> n1n2 = {"n1", "n2"};
  const std::vector<TestCase> cases = {
      {"both succeed", {}, {}, Code::kSuccess, "", "", {"PreFilter/A", "PreFilter/B"}, {}},
      {"skip recorded",
       {.pre_filter = Status::Skip()},
       {},
       Code::kSuccess,
       "",
       "",
       {"PreFilter/A", "PreFilter/B"},
       {"A"}},
      {"unschedulable lets the rest run",
       {.pre_filter = Status::Unschedulable("no")},
       {},
       Code::kUnschedulable,
       "A",
       "no",
       {"PreFilter/A", "PreFilter/B"},
       {}},
      {"unresolvable stops",
       {.pre_filter = Status::UnschedulableAndUnresolvable("never")},
       {},
       Code::kUnschedulableAndUnresolvable,
       "A",
       "never",
       {"PreFilter/A"},
       {}},
      {"error stops and is wrapped",
       {.pre_filter = Status::Error("boom")},
       {},
       Code::kError,
       "A",
       "running PreFilter plugin \"A\": boom",
       {"PreFilter/A"},
       {}},
      {"disjoint results",
       {.narrow = absl::flat_hash_set<std::string>{"n1"}},
       {.narrow = absl::flat_hash_set<std::string>{"n2"}},
       Code::kUnschedulableAndUnresolvable,
       "",
       "node(s) didn't satisfy plugin(s) [A B] simultaneously",
       {"PreFilter/A", "PreFilter/B"},
       {}},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    registry_ = Registry();
    AddRecording("A", tc.a);
    AddRecording("B", tc.b);
    auto fw = MustCreate(ProfileConfig{.pre_filter = {"A", "B"}});
    ASSERT_NE(fw, nullptr);
    CycleState state;
    Framework::PreFilterOutput out;
    const Status s = fw->RunPreFilterPlugins(state, *pod_, Nodes(), out);
    EXPECT_EQ(s.code(), tc.want_code) << s;
    EXPECT_EQ(s.plugin(), tc.want_plugin);
    EXPECT_EQ(s.Message(), tc.want_message);
    EXPECT_EQ(log_.Take(), tc.want_calls);
    EXPECT_EQ(state.skip_filter_plugins().size(), tc.want_skip.size());
    for (const std::string& name : tc.want_skip)
      EXPECT_TRUE(state.skip_filter_plugins().contains(name));
  }
}

TEST_F(FrameworkTest, PreFilterResultsIntersect) {
  AddRecording("A", {.narrow = absl::flat_hash_set<std::string>{"n1", "n2"}});
  AddRecording("B", {.narrow = absl::flat_hash_set<std::string>{"n2", "n3"}});
  AddRecording("C");
  auto fw = MustCreate(ProfileConfig{.pre_filter = {"A", "B", "C"}});
  CycleState state;
  Framework::PreFilterOutput out;
  ASSERT_TRUE(fw->RunPreFilterPlugins(state, *pod_, Nodes(), out).IsSuccess());
  ASSERT_FALSE(out.result.AllNodes());
  EXPECT_THAT(*out.result.node_names, ::testing::UnorderedElementsAre("n2"));
  EXPECT_THAT(out.narrowing_plugins, ElementsAre("A", "B"));
}

TEST_F(FrameworkTest, FilterStopsAtFirstFailureAndHonoursSkip) {
  AddRecording("A");
  AddRecording("B", {.pre_filter = Status::Skip(), .filter = Status::Unschedulable("b")});
  AddRecording("C", {.filter = Status::Unschedulable("c")});
  AddRecording("D");
  auto fw = MustCreate(ProfileConfig{.pre_filter = {"B"}, .filter = {"A", "B", "C", "D"}});
  CycleState state;
  Framework::PreFilterOutput out;
  ASSERT_TRUE(fw->RunPreFilterPlugins(state, *pod_, Nodes(), out).IsSuccess());
  log_.Take();
  const Status s = fw->RunFilterPlugins(state, *pod_, *Nodes()[0]);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "C");
  EXPECT_EQ(s.Message(), "c");
  // B was skipped by its PreFilter; D never ran.
  EXPECT_THAT(log_.Take(), ElementsAre("Filter/A", "Filter/C"));
}

TEST_F(FrameworkTest, PostFilter) {
  AddRecording("A", {.post_filter = Status::Unschedulable("a1")});
  AddRecording("B", {.post_filter = Status::Unschedulable("b1")});
  AddRecording("C");
  {
    auto fw = MustCreate(ProfileConfig{.post_filter = {"A", "B"}});
    CycleState state;
    PostFilterResult r;
    const Status s = fw->RunPostFilterPlugins(state, *pod_, NodeToStatus(), r);
    EXPECT_EQ(s.code(), Code::kUnschedulable);
    EXPECT_EQ(s.plugin(), "A");
    EXPECT_THAT(s.reasons(), ElementsAre("a1", "b1"));
  }
  {
    auto fw = MustCreate(ProfileConfig{.post_filter = {"A", "C", "B"}});
    CycleState state;
    PostFilterResult r;
    EXPECT_TRUE(fw->RunPostFilterPlugins(state, *pod_, NodeToStatus(), r).IsSuccess());
    EXPECT_EQ(r.nominated_node_name, "n1");
  }
}

TEST_F(FrameworkTest, ScoreNormalizeAndWeights) {
  // A raw {n1: 10, n2: 20, n3: 40} normalizes to {25, 50, 100} (100·s/40).
  TRIMARAN_ASSERT_OK(registry_.Register("A", FactoryOf([] {
                                          return std::make_unique<NormalizedScorePlugin>(
                                              "A", absl::flat_hash_map<std::string, int64_t>{
                                                       {"n1", 10}, {"n2", 20}, {"n3", 40}});
                                        })));
  // B has no NormalizeScore: {n1: 90, n2: 5, n3: 0}, exact n1 90.4.
  TRIMARAN_ASSERT_OK(registry_.Register(
      "B", testing::FixedScorePlugin::Factory({{"n1", 90}, {"n2", 5}}, "B", {{"n1", 90.4}})));
  AddRecording("C", {.pre_score = Status::Skip()});
  TRIMARAN_ASSERT_OK(registry_.Register(
      "CScore", testing::FixedScorePlugin::Factory({{"n1", 100}, {"n2", 100}}, "CScore")));
  auto fw = MustCreate(ProfileConfig{.pre_score = {"C"}, .score = {{"A", 2}, {"B", 0}}});
  ASSERT_NE(fw, nullptr);
  CycleState state;
  ASSERT_TRUE(fw->RunPreScorePlugins(state, *pod_, Nodes()).IsSuccess());
  EXPECT_TRUE(state.skip_score_plugins().contains("C"));
  Framework::ScoreBuffers buffers;
  ASSERT_TRUE(fw->RunScorePlugins(state, *pod_, Nodes(), buffers).IsSuccess());
  ASSERT_EQ(buffers.totals.size(), 3u);
  // Weight 0 means 1.
  // n1: 2·25 + 1·90 = 140; exact 2·25 + 90.4 = 140.4
  // n2: 2·50 + 1·5  = 105
  // n3: 2·100 + 0   = 200
  EXPECT_EQ(buffers.totals[0].total, 140);
  EXPECT_DOUBLE_EQ(buffers.totals[0].exact_total, 140.4);
  EXPECT_EQ(buffers.totals[1].total, 105);
  EXPECT_DOUBLE_EQ(buffers.totals[1].exact_total, 105);
  EXPECT_EQ(buffers.totals[2].total, 200);
  EXPECT_EQ(buffers.per_plugin[0][2].score, 100);
}

TEST_F(FrameworkTest, InvalidScoreIsAnError) {
  TRIMARAN_ASSERT_OK(
      registry_.Register("Big", testing::FixedScorePlugin::Factory({{"n1", 101}}, "Big")));
  auto fw = MustCreate(ProfileConfig{.score = {{"Big", 1}}});
  CycleState state;
  Framework::ScoreBuffers buffers;
  const Status s = fw->RunScorePlugins(state, *pod_, Nodes(), buffers);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.plugin(), "Big");
  EXPECT_THAT(s.Message(), HasSubstr("returns an invalid score 101"));
}

// A batch Score plugin (ScoreNodes overridden): node i (its name's number) scores
// i % 101 with exact (i % 101) - 0.5 when that is >= 0; records each call's run.
class BatchScorePlugin final : public ScorePlugin {
 public:
  static int64_t ScoreOf(int i) { return i % 101; }
  absl::string_view Name() const override { return "Batch"; }
  ScoreResult Score(const CycleState&, const kube::Pod&, const NodeInfo& n) const override {
    ADD_FAILURE() << "the runtime called Score, not ScoreNodes";
    return ScoreResult::Of(0);
  }
  Status ScoreNodes(const CycleState&, const kube::Pod&, std::span<const NodeInfo* const> nodes,
                    std::span<NodeScore> scores) const override {
    EXPECT_EQ(nodes.size(), scores.size());
    absl::MutexLock lock(&mu_);
    runs_.push_back({nodes.front()->name(), nodes.size()});
    for (size_t i = 0; i < nodes.size(); ++i) {
      EXPECT_EQ(scores[i].name, nodes[i]->name());  // set by the runtime
      EXPECT_EQ(scores[i].score, 0);                // reset by the runtime
      EXPECT_FALSE(scores[i].exact.has_value());
      const int n = std::stoi(nodes[i]->name().substr(1));
      scores[i].score = ScoreOf(n);
      if (ScoreOf(n) > 0) scores[i].exact = static_cast<double>(ScoreOf(n)) - 0.5;
    }
    return Status();
  }
  std::vector<std::pair<std::string, size_t>> runs() const {
    absl::MutexLock lock(&mu_);
    return runs_;
  }

 private:
  mutable absl::Mutex mu_;
  mutable std::vector<std::pair<std::string, size_t>> runs_ ABSL_GUARDED_BY(mu_);
};

TEST(FrameworkBatchScoreTest, RunsOfConsecutiveNodesAndFusedWeightsInPluginOrder) {
  // 300 nodes n0..n299; profile: Batch (weight 3, no NormalizeScore: weighted inside the
  // scoring loop), A (weight 2, normalizes: weighted after NormalizeScore), B (weight 1,
  // FixedScore via the default ScoreNodes). The totals must be what the plain sequential
  // definition gives, whatever the runs the parallelizer hands out.
  std::vector<kube::Node> nodes;
  absl::flat_hash_map<std::string, int64_t> a_raw;
  absl::flat_hash_map<std::string, int64_t> b_scores;
  for (int i = 0; i < 300; ++i) {
    const std::string name = absl::StrCat("n", i);
    nodes.push_back(kube::testing::MakeNode().Name(name).Obj());
    a_raw[name] = i % 7;            // normalized: 100 * (i % 7) / 6
    b_scores[name] = (i * 3) % 50;  // as is
  }
  for (int range : {0, 1, 70, 128, 129}) {
    SCOPED_TRACE(::testing::Message() << "range size " << range);
    auto handle = testing::NewHandleForTest(nodes);
    handle->inline_parallelizer().set_range_size(range);
    Registry registry;
    BatchScorePlugin* batch = nullptr;
    TRIMARAN_ASSERT_OK(registry.Register("Batch", FactoryOf([&batch] {
                                           auto p = std::make_unique<BatchScorePlugin>();
                                           batch = p.get();
                                           return p;
                                         })));
    TRIMARAN_ASSERT_OK(registry.Register(
        "A", FactoryOf([a_raw] { return std::make_unique<NormalizedScorePlugin>("A", a_raw); })));
    TRIMARAN_ASSERT_OK(registry.Register("B", testing::FixedScorePlugin::Factory(b_scores, "B")));
    auto fw = Framework::Create(ProfileConfig{.score = {{"Batch", 3}, {"A", 2}, {"B", 1}}},
                                registry, *handle);
    TRIMARAN_ASSERT_OK(fw.status());
    const auto list = handle->snapshot_lister().NodeInfos().List();
    ASSERT_EQ(list.size(), 300u);
    CycleState state;
    const kube::Pod pod = kube::testing::MakePod().Name("p").UID("p").Obj();
    Framework::ScoreBuffers buffers;
    ASSERT_TRUE((*fw)->RunScorePlugins(state, pod, list, buffers).IsSuccess());
    for (size_t k = 0; k < list.size(); ++k) {
      const int i = std::stoi(list[k]->name().substr(1));
      SCOPED_TRACE(list[k]->name());
      const int64_t s = BatchScorePlugin::ScoreOf(i);
      const int64_t a = 100 * (i % 7) / 6;
      const int64_t b = (i * 3) % 50;
      ASSERT_EQ(buffers.totals[k].total, 3 * s + 2 * a + b);
      // Exact: Batch reports s - 0.5 (when s > 0); A resets exact; B reports none.
      const double exact = s > 0 ? static_cast<double>(s) - 0.5 : 0.0;
      ASSERT_EQ(buffers.totals[k].exact_total,
                3.0 * exact + 2.0 * static_cast<double>(a) + static_cast<double>(b));
      ASSERT_EQ(buffers.per_plugin[0][k].score, s);
      ASSERT_EQ(buffers.per_plugin[0][k].name, list[k]->name());
      ASSERT_EQ(buffers.per_plugin[2][k].name, list[k]->name());
    }
    // Runs: consecutive nodes of the list, at most one block (128) each, covering it once.
    size_t covered = 0;
    for (const auto& [first, size] : batch->runs()) {
      EXPECT_EQ(first, list[covered]->name());
      EXPECT_LE(size, 128u);
      if (range > 0) {
        EXPECT_LE(size, static_cast<size_t>(range));
      }
      covered += size;
    }
    EXPECT_EQ(covered, 300u);
  }
}

TEST_F(FrameworkTest, InvalidScoreNamesTheFirstPluginInOrderEvenWhenFused) {
  // Both plugins lack NormalizeScore (weighted in the scoring loop); the second one's bad
  // score is on an earlier node, but the error names the first plugin in profile order,
  // as the sequential definition does.
  TRIMARAN_ASSERT_OK(
      registry_.Register("First", testing::FixedScorePlugin::Factory({{"n3", -1}}, "First")));
  TRIMARAN_ASSERT_OK(
      registry_.Register("Second", testing::FixedScorePlugin::Factory({{"n1", 500}}, "Second")));
  auto fw = MustCreate(ProfileConfig{.score = {{"First", 1}, {"Second", 1}}});
  ASSERT_NE(fw, nullptr);
  CycleState state;
  Framework::ScoreBuffers buffers;
  const Status s = fw->RunScorePlugins(state, *pod_, Nodes(), buffers);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.plugin(), "First");
  EXPECT_THAT(s.Message(), HasSubstr("returns an invalid score -1"));
}

TEST_F(FrameworkTest, ReserveFailureThenUnreserveInReverse) {
  AddRecording("A");
  AddRecording("B", {.reserve = Status::Unschedulable("full")});
  AddRecording("C");
  auto fw = MustCreate(ProfileConfig{.reserve = {"A", "B", "C"}});
  CycleState state;
  const Status s = fw->RunReservePluginsReserve(state, *pod_, "n1");
  EXPECT_EQ(s.plugin(), "B");
  fw->RunReservePluginsUnreserve(state, *pod_, "n1");
  EXPECT_THAT(log_.Take(),
              ElementsAre("Reserve/A", "Reserve/B", "Unreserve/C", "Unreserve/B", "Unreserve/A"));
}

TEST_F(FrameworkTest, BindSkipChain) {
  struct TestCase {
    std::string name;
    Status a, b;
    Code want;
    std::string want_plugin;
    std::vector<std::string> want_calls;
  };
  const std::vector<TestCase> cases = {
      {"first binds", Status(), Status(), Code::kSuccess, "", {"Bind/A"}},
      {"skip to next", Status::Skip(), Status(), Code::kSuccess, "", {"Bind/A", "Bind/B"}},
      {"all skip", Status::Skip(), Status::Skip(), Code::kSkip, "", {"Bind/A", "Bind/B"}},
      {"failure stops",
       Status::Skip(),
       Status::Error("api"),
       Code::kError,
       "B",
       {"Bind/A", "Bind/B"}},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    registry_ = Registry();
    AddRecording("A", {.bind = tc.a});
    AddRecording("B", {.bind = tc.b});
    auto fw = MustCreate(ProfileConfig{.bind = {"A", "B"}});
    CycleState state;
    const Status s = fw->RunBindPlugins(state, *pod_, "n1");
    EXPECT_EQ(s.code(), tc.want);
    EXPECT_EQ(s.plugin(), tc.want_plugin);
    EXPECT_EQ(log_.Take(), tc.want_calls);
  }
}

TEST_F(FrameworkTest, PreBindAndPostBind) {
  AddRecording("A", {.pre_bind = Status::Unschedulable("volume")});
  AddRecording("B");
  auto fw = MustCreate(ProfileConfig{.pre_bind = {"A", "B"}, .post_bind = {"B", "A"}});
  CycleState state;
  EXPECT_EQ(fw->RunPreBindPlugins(state, *pod_, "n1").plugin(), "A");
  fw->RunPostBindPlugins(state, *pod_, "n1");
  EXPECT_THAT(log_.Take(), ElementsAre("PreBind/A", "PostBind/B", "PostBind/A"));
}

class PermitTest : public FrameworkTest {
 protected:
  void SetUp() override {
    AddRecording("A", {.permit = Status::Wait(), .permit_timeout = absl::Seconds(10)});
    AddRecording("B", {.permit = Status::Wait(), .permit_timeout = absl::Hours(1)});
    fw_ = MustCreate(ProfileConfig{.permit = {"A", "B"}});
    CycleState state;
    const Status s = fw_->RunPermitPlugins(state, pod_, "n1");
    ASSERT_TRUE(s.IsWait()) << s;
    ASSERT_NE(fw_->waiting_pods().Get(*pod_), nullptr);
  }
  std::unique_ptr<Framework> fw_;
};

TEST_F(PermitTest, AllowedByEveryPlugin) {
  std::shared_ptr<WaitingPod> wp = fw_->waiting_pods().Get(*pod_);
  EXPECT_THAT(wp->GetPendingPlugins(), ElementsAre("A", "B"));
  wp->Allow("A");
  wp->Allow("B");
  EXPECT_TRUE(fw_->WaitOnPermit(*pod_).IsSuccess());
  EXPECT_EQ(fw_->waiting_pods().size(), 0u);
}

TEST_F(PermitTest, AllowFromAnotherThread) {
  std::jthread allower([&] {
    fw_->waiting_pods().ForEach([](WaitingPod& wp) {
      wp.Allow("A");
      wp.Allow("B");
    });
  });
  EXPECT_TRUE(fw_->WaitOnPermit(*pod_).IsSuccess());
}

TEST_F(PermitTest, Rejected) {
  fw_->waiting_pods().Get(*pod_)->Reject("B", "gang incomplete");
  const Status s = fw_->WaitOnPermit(*pod_);
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "B");
  EXPECT_EQ(s.Message(), "gang incomplete");
}

TEST_F(PermitTest, TimeoutRejectsAtTheEarliestDeadline) {
  Status result;
  std::jthread waiter([&] { result = fw_->WaitOnPermit(*pod_); });
  fw_->waiting_pods().Get(*pod_)->Allow("B");
  handle_->fake_clock().Advance(absl::Seconds(11));  // past A's 10s, far from B's 1h
  waiter.join();
  EXPECT_EQ(result.code(), Code::kUnschedulable);
  EXPECT_EQ(result.plugin(), "A");
  EXPECT_EQ(result.Message(), "rejected due to timeout after waiting 10s at plugin A");
}

TEST_F(FrameworkTest, PermitRejectionWinsOverWait) {
  AddRecording("A", {.permit = Status::Wait()});
  AddRecording("B", {.permit = Status::Unschedulable("no")});
  auto fw = MustCreate(ProfileConfig{.permit = {"A", "B"}});
  CycleState state;
  const Status s = fw->RunPermitPlugins(state, pod_, "n1");
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.plugin(), "B");
  EXPECT_EQ(fw->waiting_pods().size(), 0u);
  EXPECT_TRUE(fw->WaitOnPermit(*pod_).IsSuccess());  // nothing to wait for
}

TEST_F(FrameworkTest, ExtensionPointMetrics) {
  AddRecording("A", {.reserve = Status::Unschedulable("x")});
  auto fw = MustCreate(ProfileConfig{.scheduler_name = "trimaran", .reserve = {"A"}});
  CycleState state;
  state.set_record_plugin_metrics(true);
  (void)fw->RunReservePluginsReserve(state, *pod_, "n1");
  const std::string text = handle_->stats_registry().PrometheusText();
  EXPECT_THAT(text, HasSubstr("framework_extension_point_duration_seconds_count{extension_point="
                              "\"Reserve\",status=\"Unschedulable\",profile=\"trimaran\"} 1"));
  EXPECT_THAT(text, HasSubstr("plugin_execution_duration_seconds_count{plugin=\"A\","
                              "extension_point=\"Reserve\",status=\"Unschedulable\"} 1"));
}

TEST_F(FrameworkTest, QueueSortFunc) {
  ProfileConfig config;
  auto fw = MustCreate(config);
  EXPECT_EQ(fw->QueueSortFunc(), nullptr);
}

}  // namespace
}  // namespace trimaran::sched
