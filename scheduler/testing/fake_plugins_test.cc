#include "scheduler/testing/fake_plugins.h"

#include <memory>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::testing {
namespace {

using ::testing::ElementsAre;
using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

class FakePluginsTest : public ::testing::Test {
 protected:
  FakePluginsTest()
      : handle_(NewHandleForTest({MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()},
                                 {MakePod().Name("running").NodeName("n1").Obj()})) {}

  const NodeInfo& Node(absl::string_view name) {
    return **handle_->snapshot_lister().NodeInfos().Get(name);
  }

  std::unique_ptr<FakeHandle> handle_;
  CycleState state_;
  kube::Pod pod_ = MakePod().Name("n2").Obj();
};

TEST_F(FakePluginsTest, Snapshot) {
  const NodeInfoLister& lister = handle_->snapshot_lister().NodeInfos();
  ASSERT_EQ(lister.List().size(), 2u);
  EXPECT_EQ(lister.List()[0]->name(), "n1");
  EXPECT_EQ(lister.List()[0]->pods().size(), 1u);
  EXPECT_THAT(lister.Get("n3"), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(FakePluginsTest, Filters) {
  const TrueFilterPlugin t;
  EXPECT_TRUE(t.Filter(state_, pod_, Node("n1")).IsSuccess());

  const FalseFilterPlugin f;
  const Status rejected = f.Filter(state_, pod_, Node("n1"));
  EXPECT_EQ(rejected.code(), Code::kUnschedulable);
  EXPECT_THAT(rejected.reasons(), ElementsAre(std::string(kErrReasonFake)));
  EXPECT_EQ(rejected.plugin(), "FalseFilter");

  const MatchFilterPlugin m;
  EXPECT_FALSE(m.Filter(state_, pod_, Node("n1")).IsSuccess());
  EXPECT_TRUE(m.Filter(state_, pod_, Node("n2")).IsSuccess());

  const FakeFilterPlugin fake({{"n1", Code::kUnschedulableAndUnresolvable}});
  EXPECT_EQ(fake.Filter(state_, pod_, Node("n1")).code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_TRUE(fake.Filter(state_, pod_, Node("n2")).IsSuccess());
  EXPECT_EQ(fake.num_filter_called(), 2);
}

TEST_F(FakePluginsTest, FixedScore) {
  const FixedScorePlugin p({{"n1", 10}}, "Fixed", {{"n1", 10.5}});
  EXPECT_EQ(p.Name(), "Fixed");
  const ScoreResult n1 = p.Score(state_, pod_, Node("n1"));
  EXPECT_EQ(n1.score, 10);
  EXPECT_DOUBLE_EQ(n1.exact.value_or(-1), 10.5);
  const ScoreResult n2 = p.Score(state_, pod_, Node("n2"));
  EXPECT_EQ(n2.score, 0);
  EXPECT_FALSE(n2.exact.has_value());
}

TEST_F(FakePluginsTest, FactoriesUseTheGivenName) {
  auto plugin = FixedScorePlugin::Factory({{"n1", 1}}, "ScoreA")(PluginArgs{}, *handle_);
  ASSERT_THAT(plugin, IsOk());
  EXPECT_EQ((*plugin)->Name(), "ScoreA");
  EXPECT_NE(dynamic_cast<ScorePlugin*>(plugin->get()), nullptr);
}

TEST_F(FakePluginsTest, EventRecorderAndHandle) {
  const kube::Pod preemptor = MakePod().Name("big").Namespace("prod").Obj();
  const kube::Pod victim = MakePod().Name("small").Namespace("dev").Obj();
  handle_->event_recorder().Eventf(victim, &preemptor, EventType::kNormal, "Preempted",
                                   "Preempting", "Preempted by prod/big on node n1");
  EXPECT_THAT(handle_->recorder().Events(),
              ElementsAre(RecordedEvent{"dev/small", "prod/big", EventType::kNormal, "Preempted",
                                        "Preempting", "Preempted by prod/big on node n1"}));
  handle_->recorder().Clear();
  EXPECT_TRUE(handle_->recorder().Events().empty());

  const absl::Time t0 = handle_->clock().Now();
  handle_->fake_clock().Advance(absl::Seconds(3));
  EXPECT_EQ(handle_->clock().Now() - t0, absl::Seconds(3));

  int sum = 0;
  handle_->parallelizer().Until(
      4, [&](int i) { sum += i; }, "Test");
  EXPECT_EQ(sum, 6);
  EXPECT_EQ(handle_->parallelizer().parallelism(), 16);
  EXPECT_EQ(handle_->stats_scopes().upstream.prefix(), "scheduler_");
  EXPECT_EQ(handle_->stats_scopes().own.prefix(), "trimaran_");
  EXPECT_THAT(handle_->client().ListNodes({}), IsOk());
}

}  // namespace
}  // namespace trimaran::sched::testing

namespace trimaran::sched::testing {
namespace {

class NullLoadWatcher final : public lw::Client {
 public:
  absl::StatusOr<lw::WatcherMetricsPtr> GetLatestMetrics(const lw::MetricsRequest&) override {
    return absl::UnavailableError("no metrics yet");
  }
};

TEST(FakeHandleTest, LoadWatcherIsHandedToPlugins) {
  auto handle = NewHandleForTest({}, {});
  EXPECT_EQ(handle->load_watcher(), nullptr);
  NullLoadWatcher watcher;
  handle->SetLoadWatcher(&watcher);
  ASSERT_EQ(handle->load_watcher(), &watcher);
  EXPECT_EQ(handle->load_watcher()->GetLatestMetrics().status().code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace trimaran::sched::testing
