#include "scheduler/explain/explainer.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/manual_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/explain/report_format.h"
#include "scheduler/runtime/runtime_test_util.h"
#include "scheduler/testing/fake_plugins.h"

namespace trimaran::sched::explain {
namespace {

using kube::testing::MakeNode;
using kube::testing::MakePod;
using runtime_testing::FactoryOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::shared_ptr<const kube::Node> Node(const std::string& name, const std::string& cpu) {
  return std::make_shared<const kube::Node>(
      MakeNode().Name(name).Capacity({{"cpu", cpu}, {"memory", "16Gi"}, {"pods", "110"}}).Obj());
}

std::shared_ptr<const kube::Pod> PodOn(const std::string& name, const std::string& node,
                                       const std::string& cpu) {
  return std::make_shared<const kube::Pod>(MakePod()
                                               .Name(name)
                                               .Namespace("default")
                                               .UID(name)
                                               .NodeName(node)
                                               .Req({{"cpu", cpu}, {"memory", "1Gi"}})
                                               .Obj());
}

// Records Reserve/Unreserve calls ("pod@node"); fails Reserve on node `refuse`.
class RecordingReservePlugin final : public ReservePlugin {
 public:
  RecordingReservePlugin(std::vector<std::string>* calls, std::string refuse)
      : calls_(calls), refuse_(std::move(refuse)) {}
  absl::string_view Name() const override { return "Recorder"; }
  Status Reserve(CycleState&, const kube::Pod& pod, absl::string_view node) override {
    calls_->push_back(
        absl::StrCat("reserve ", pod.metadata.name, "@", node, " nodeName=", pod.spec.node_name));
    if (node == refuse_) return Status::Unschedulable("refused");
    return Status();
  }
  void Unreserve(CycleState&, const kube::Pod& pod, absl::string_view node) override {
    calls_->push_back(absl::StrCat("unreserve ", pod.metadata.name, "@", node));
  }

 private:
  std::vector<std::string>* calls_;
  std::string refuse_;
};

class ExplainerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TRIMARAN_ASSERT_OK(
        registry_.Register("SimpleFit", FactoryOf([this] {
                             ++builds_;
                             return std::make_unique<runtime_testing::SimpleFitPlugin>();
                           })));
    TRIMARAN_ASSERT_OK(registry_.Register(
        "SimpleMostAllocated", FactoryOf([] {
          return std::make_unique<runtime_testing::SimpleMostAllocatedPlugin>(true);
        })));
    ProfileConfig profile{
        .scheduler_name = "pack", .filter = {"SimpleFit"}, .score = {{"SimpleMostAllocated", 2}}};
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        explainer_, Explainer::Create({profile}, {.registry = &registry_, .clock = &clock_}));
  }

  Registry registry_;
  ManualClock clock_{absl::FromUnixSeconds(1'714'564'800)};
  int builds_ = 0;
  std::unique_ptr<Explainer> explainer_;
  kube::Pod pod_ =
      MakePod().Name("web").Namespace("default").Req({{"cpu", "1"}, {"memory", "1Gi"}}).Obj();
};

TEST(ExplainerReserveTest, ReserveRunsOnTheChosenNodeOnlyWhenAsked) {
  std::vector<std::string> calls;
  Registry registry;
  TRIMARAN_ASSERT_OK(registry.Register(
      "SimpleFit", FactoryOf([] { return std::make_unique<runtime_testing::SimpleFitPlugin>(); })));
  TRIMARAN_ASSERT_OK(
      registry.Register("SimpleMostAllocated", FactoryOf([] {
                          return std::make_unique<runtime_testing::SimpleMostAllocatedPlugin>(true);
                        })));
  TRIMARAN_ASSERT_OK(registry.Register(
      "Recorder",
      FactoryOf([&] { return std::make_unique<RecordingReservePlugin>(&calls, "b"); })));
  ManualClock clock{absl::FromUnixSeconds(1'714'564'800)};
  ProfileConfig profile{.scheduler_name = "pack",
                        .filter = {"SimpleFit"},
                        .score = {{"SimpleMostAllocated", 1}},
                        .reserve = {"Recorder"}};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto explainer, Explainer::Create({profile}, {.registry = &registry, .clock = &clock}));
  TRIMARAN_ASSERT_OK(explainer->cache().AddNode(Node("a", "8")));
  TRIMARAN_ASSERT_OK(explainer->cache().AddNode(Node("b", "8")));
  TRIMARAN_ASSERT_OK(explainer->cache().AddPod(PodOn("x", "a", "4")));
  const kube::Pod pod =
      MakePod().Name("web").Namespace("default").Req({{"cpu", "1"}, {"memory", "1Gi"}}).Obj();

  TRIMARAN_ASSERT_OK_AND_ASSIGN(Report plain, explainer->Explain(pod, "pack"));
  EXPECT_EQ(plain.chosen, "a");
  EXPECT_TRUE(calls.empty());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Report reserved,
                                explainer->Explain(pod, "pack", {.reserve = true}));
  EXPECT_EQ(reserved.chosen, "a");
  EXPECT_THAT(calls, ElementsAre("reserve web@a nodeName=a"));

  // A refusing Reserve plugin: Unreserve, then an error naming the node.
  calls.clear();
  TRIMARAN_ASSERT_OK(explainer->cache().AddPod(PodOn("y", "b", "6")));
  absl::StatusOr<Report> refused = explainer->Explain(pod, "pack", {.reserve = true});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(refused.status().message(), HasSubstr("Reserve on b"));
  EXPECT_THAT(calls, ElementsAre("reserve web@b nodeName=b", "unreserve web@b"));
}

TEST_F(ExplainerTest, ExplainsEveryNodeAndFollowsTheChangingCluster) {
  TRIMARAN_ASSERT_OK(explainer_->cache().AddNode(Node("a", "8")));
  TRIMARAN_ASSERT_OK(explainer_->cache().AddNode(Node("b", "8")));
  TRIMARAN_ASSERT_OK(explainer_->cache().AddNode(Node("tiny", "500m")));
  TRIMARAN_ASSERT_OK(explainer_->cache().AddPod(PodOn("x", "a", "4")));

  TRIMARAN_ASSERT_OK_AND_ASSIGN(Report first, explainer_->Explain(pod_, "pack"));
  EXPECT_EQ(first.profile, "pack");
  EXPECT_EQ(first.now, clock_.Now());
  EXPECT_EQ(first.chosen, "a");
  EXPECT_EQ(first.decided_by, "highest-total");
  ASSERT_EQ(first.nodes.size(), 3u);
  EXPECT_EQ(first.nodes[0].name, "a");
  EXPECT_EQ(first.nodes[0].rank, 1);
  EXPECT_EQ(first.nodes[1].name, "b");
  EXPECT_EQ(first.nodes[2].name, "tiny");
  EXPECT_FALSE(first.nodes[2].feasible);
  EXPECT_EQ(first.nodes[2].plugin, "SimpleFit");
  EXPECT_THAT(first.nodes[2].reasons, ElementsAre("Insufficient resources"));
  ASSERT_EQ(first.nodes[0].scores.size(), 1u);
  EXPECT_EQ(first.nodes[0].scores[0].weight, 2);
  EXPECT_EQ(first.nodes[0].total, 2 * first.nodes[0].scores[0].score);

  // The cluster changes; the same explainer (the same framework) sees it.
  TRIMARAN_ASSERT_OK(explainer_->cache().AddPod(PodOn("y", "b", "6")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Report second, explainer_->Explain(pod_, "pack"));
  EXPECT_EQ(second.chosen, "b");
  TRIMARAN_ASSERT_OK(explainer_->cache().RemovePod(*PodOn("y", "b", "6")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Report third, explainer_->Explain(pod_, "pack"));
  EXPECT_EQ(third.chosen, "a");
  EXPECT_EQ(builds_, 1);
  // The printed forms are the library's too.
  EXPECT_THAT(FormatTable(third), HasSubstr("Chosen: a (highest total"));
  EXPECT_THAT(FormatJson(third), HasSubstr("\"chosen\":\"a\""));
}

TEST_F(ExplainerTest, TiesGoToTheSmallestNameAndSaySo) {
  TRIMARAN_ASSERT_OK(explainer_->cache().AddNode(Node("n2", "8")));
  TRIMARAN_ASSERT_OK(explainer_->cache().AddNode(Node("n1", "8")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Report report, explainer_->Explain(pod_, "pack"));
  EXPECT_EQ(report.chosen, "n1");
  EXPECT_EQ(report.decided_by, "node-name");
  EXPECT_THAT(report.tied, ElementsAre("n1", "n2"));
  EXPECT_THAT(report.notes, ElementsAre(HasSubstr("the daemon picks one of them at random")));
}

TEST_F(ExplainerTest, NoNodeFitsIsAReportNotAnError) {
  TRIMARAN_ASSERT_OK(explainer_->cache().AddNode(Node("tiny", "500m")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Report report, explainer_->Explain(pod_, "pack"));
  EXPECT_EQ(report.chosen, "");
  EXPECT_EQ(report.decided_by, "");
  ASSERT_EQ(report.nodes.size(), 1u);
  EXPECT_EQ(report.nodes[0].code, "Unschedulable");
}

TEST_F(ExplainerTest, PluginErrorsAreInternalAndNameThePointAndNode) {
  TRIMARAN_ASSERT_OK(
      registry_.Register("E", testing::FakeFilterPlugin::Factory({{"bad", Code::kError}}, "E")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto explainer, Explainer::Create({ProfileConfig{.scheduler_name = "p", .filter = {"E"}}},
                                        {.registry = &registry_, .clock = &clock_}));
  TRIMARAN_ASSERT_OK(explainer->cache().AddNode(Node("good", "8")));
  TRIMARAN_ASSERT_OK(explainer->cache().AddNode(Node("bad", "8")));
  absl::StatusOr<Report> report = explainer->Explain(pod_, "p");
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(report.status().message(), HasSubstr("Filter on node \"bad\": "));
}

TEST_F(ExplainerTest, PlaceIsTheDaemonsCycleWithoutAReport) {
  TRIMARAN_ASSERT_OK(explainer_->cache().AddNode(Node("tiny", "500m")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::string none, explainer_->Place(pod_, "pack"));
  EXPECT_EQ(none, "");  // no node fits: not an error
  TRIMARAN_ASSERT_OK(explainer_->cache().AddNode(Node("a", "8")));
  TRIMARAN_ASSERT_OK(explainer_->cache().AddNode(Node("b", "8")));
  TRIMARAN_ASSERT_OK(explainer_->cache().AddPod(PodOn("x", "b", "4")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::string chosen, explainer_->Place(pod_, "pack"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Report report, explainer_->Explain(pod_, "pack"));
  EXPECT_EQ(chosen, "b");
  EXPECT_EQ(chosen, report.chosen);
  // A bound pod is placed as pending.
  EXPECT_EQ(*explainer_->Place(*PodOn("web", "a", "1"), "pack"), "b");
  EXPECT_EQ(explainer_->Place(pod_, "nope").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ExplainerTest, PlaceSamplesLargeClustersFromARotatingStart) {
  // 200 nodes, a non-packing profile: the daemon looks for 100 feasible nodes
  // (percentageOfNodesToScore adaptive), starting where the last cycle stopped.
  for (int i = 0; i < 200; ++i) {
    TRIMARAN_ASSERT_OK(explainer_->cache().AddNode(Node(absl::StrFormat("n%03d", i), "8")));
  }
  EXPECT_EQ(*explainer_->Place(pod_, "pack"), "n000");
  EXPECT_EQ(*explainer_->Place(pod_, "pack"), "n100");
  EXPECT_EQ(*explainer_->Place(pod_, "pack"), "n000");
  // Explain evaluates every node (and leaves the start alone).
  EXPECT_EQ(explainer_->Explain(pod_, "pack")->chosen, "n000");
  EXPECT_EQ(*explainer_->Place(pod_, "pack"), "n100");
}

TEST_F(ExplainerTest, PlacePluginErrorsAreInternal) {
  TRIMARAN_ASSERT_OK(
      registry_.Register("E", testing::FakeFilterPlugin::Factory({{"bad", Code::kError}}, "E")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto explainer, Explainer::Create({ProfileConfig{.scheduler_name = "p", .filter = {"E"}}},
                                        {.registry = &registry_, .clock = &clock_}));
  TRIMARAN_ASSERT_OK(explainer->cache().AddNode(Node("bad", "8")));
  absl::StatusOr<std::string> chosen = explainer->Place(pod_, "p");
  EXPECT_EQ(chosen.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(chosen.status().message(), HasSubstr("E"));
}

TEST_F(ExplainerTest, UnknownProfileAndMissingOptions) {
  EXPECT_EQ(explainer_->Explain(pod_, "nope").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Explainer::Create({}, {.registry = &registry_, .clock = &clock_}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Explainer::Create({ProfileConfig{}}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(FixedMetricsTest, ServesTheSnapshotToEverySourceAndRecordsWhatWasAsked) {
  lw::WatcherMetrics metrics;
  metrics.timestamp = 10;
  FixedMetricsClient client(metrics);
  FixedSourcePool pool(client);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * remote, pool.Remote("http://watcher:2020"));
  EXPECT_EQ(remote, &client);
  EXPECT_EQ(pool.Remote("watcher:2020").status().code(), absl::StatusCode::kInvalidArgument);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::Client * local,
                                pool.InProcess(lw::ProviderSpec{.type = "Prometheus"}));
  EXPECT_EQ(local, &client);
  EXPECT_THAT(pool.Requested(), ElementsAre("metricProvider {type: Prometheus}",
                                            "watcherAddress http://watcher:2020"));
  metrics.timestamp = 20;
  client.Set(metrics);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::WatcherMetricsPtr got, client.GetLatestMetrics({}));
  EXPECT_EQ(got->timestamp, 20);
}

}  // namespace
}  // namespace trimaran::sched::explain
