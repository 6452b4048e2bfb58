#include "dashboard/informer_source.h"

#include <algorithm>
#include <string>

#include "absl/time/clock.h"
#include "dashboard/test_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/store.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"

namespace trimaran::dashboard {
namespace {

using testing::FixtureMetrics;
using testing::FixtureNodes;
using testing::FixturePods;

int64_t BoundPodsOn(const ClusterInputs& in, const std::string& node) {
  auto it = in.pods.per_node.find(node);
  return it == in.pods.per_node.end() ? 0 : it->second.pods;
}

// Polls `source` until `done(inputs)` or 10 s.
template <typename F>
bool Eventually(InformerClusterSource& source, F done) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (absl::Now() < deadline) {
    absl::StatusOr<ClusterInputs> in = source.Fetch();
    if (in.ok() && done(*in)) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return false;
}

TEST(InformerClusterSourceTest, ListsThenFollowsWatches) {
  kube::testing::FakeClient kube;
  for (const kube::Node& n : FixtureNodes()) ASSERT_TRUE(kube.CreateNode(n).ok());
  for (const kube::Pod& p : FixturePods()) ASSERT_TRUE(kube.CreatePod(p).ok());
  lw::testing::FakeLoadWatcherClient watcher;
  watcher.Set(FixtureMetrics());

  InformerClusterSource source(kube, &watcher, "", "15m", RealClock::Get());
  ASSERT_TRUE(source.Start(absl::Seconds(10)).ok());
  absl::StatusOr<ClusterInputs> in = source.Fetch();
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(in->nodes.size(), 3u);
  EXPECT_EQ(in->pods.counts.pending, 1);  // p5 (Succeeded) is not listed
  EXPECT_EQ(in->pods.counts.running + in->pods.counts.bound, 3);
  EXPECT_EQ(in->pods.per_node.at("node-a").requested.milli_cpu, 3500);
  EXPECT_EQ(BoundPodsOn(*in, "node-a"), 2);
  ASSERT_NE(in->metrics, nullptr);
  EXPECT_EQ(in->metrics->data.node_metrics_map.size(), 2u);

  // A new pod and a deleted one arrive through the watch, without a re-list.
  ASSERT_TRUE(kube.CreatePod(kube::testing::MakePod()
                                 .Name("p9")
                                 .Namespace("default")
                                 .NodeName("node-b")
                                 .Req({{"cpu", "1"}})
                                 .Obj())
                  .ok());
  ASSERT_TRUE(kube.DeletePod("default", "p1").ok());
  EXPECT_TRUE(Eventually(source, [](const ClusterInputs& i) {
    return BoundPodsOn(i, "node-b") == 2 && BoundPodsOn(i, "node-a") == 1;
  }));
  absl::StatusOr<ClusterInputs> after = source.Fetch();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->pods.per_node.at("node-a").requested.milli_cpu, 1500);  // p1 left
  EXPECT_EQ(after->pods.per_node.at("node-b").requested.milli_cpu, 1500);  // 500m + 1
  // An update (a status patch on p3) replaces p3's summary, it does not add a second
  // one: after it, and after p10 created behind it on the same watch, node-b holds
  // p3 + p9 + p10.
  kube::PodStatusPatch patch;
  kube::PodCondition ready;
  ready.type = "Ready";
  ready.status = kube::ConditionStatus::kTrue;
  patch.conditions = {ready};
  ASSERT_TRUE(kube.PatchPodStatus("default", "p3", patch).ok());
  ASSERT_TRUE(kube.CreatePod(kube::testing::MakePod()
                                 .Name("p10")
                                 .Namespace("default")
                                 .NodeName("node-b")
                                 .Req({{"cpu", "250m"}})
                                 .Obj())
                  .ok());
  EXPECT_TRUE(
      Eventually(source, [](const ClusterInputs& i) { return BoundPodsOn(i, "node-b") == 3; }));
  after = source.Fetch();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->pods.per_node.at("node-b").requested.milli_cpu, 1750);
  ASSERT_TRUE(kube.DeleteNode("node-10").ok());
  EXPECT_TRUE(Eventually(source, [](const ClusterInputs& i) { return i.nodes.size() == 2; }));
}

TEST(InformerClusterSourceTest, WatcherIsReadInTheBackground) {
  kube::testing::FakeClient kube;
  for (const kube::Node& n : FixtureNodes()) ASSERT_TRUE(kube.CreateNode(n).ok());
  lw::testing::FakeLoadWatcherClient watcher;
  watcher.Set(FixtureMetrics());
  InformerClusterSource source(kube, &watcher, "", "10m", RealClock::Get(), absl::Milliseconds(20));
  ASSERT_TRUE(source.Start(absl::Seconds(10)).ok());
  absl::StatusOr<ClusterInputs> in = source.Fetch();
  ASSERT_TRUE(in.ok());
  ASSERT_NE(in->metrics, nullptr);  // read once by Start
  EXPECT_EQ(watcher.requests().front().window, "10m");
  // The watcher goes down: a later Fetch reports why, without calling it itself.
  watcher.Set(absl::UnavailableError("received status code 503 from watcher"));
  EXPECT_TRUE(Eventually(source, [](const ClusterInputs& i) {
    return i.metrics == nullptr && i.metrics_error == "received status code 503 from watcher";
  }));
  const size_t calls = watcher.requests().size();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(source.Fetch().ok());
  EXPECT_LT(watcher.requests().size(), calls + 20);  // Fetch never waits on the watcher
}

// The dashboard retries Start after a timeout: a second Start only waits, the informers
// are not started again and no pod is counted twice.
TEST(InformerClusterSourceTest, StartAgainOnlyWaits) {
  kube::testing::FakeClient kube;
  for (const kube::Node& n : FixtureNodes()) ASSERT_TRUE(kube.CreateNode(n).ok());
  for (const kube::Pod& p : FixturePods()) ASSERT_TRUE(kube.CreatePod(p).ok());
  lw::testing::FakeLoadWatcherClient watcher;
  watcher.Set(FixtureMetrics());
  InformerClusterSource source(kube, &watcher, "", "15m", RealClock::Get());
  ASSERT_TRUE(source.Start(absl::Seconds(10)).ok());
  ASSERT_TRUE(source.Start(absl::Seconds(10)).ok());
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_EQ(kube.Calls("ListNodes"), 1);  // one list each: not restarted
  EXPECT_EQ(kube.Calls("ListPods"), 1);
  absl::StatusOr<ClusterInputs> in = source.Fetch();
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_EQ(BoundPodsOn(*in, "node-a"), 2);
  EXPECT_EQ(in->pods.per_node.at("node-a").requested.milli_cpu, 3500);
  EXPECT_EQ(in->pods.counts.pending, 1);
}

TEST(InformerClusterSourceTest, NodeSelectorAndNoWatcher) {
  kube::testing::FakeClient kube;
  for (const kube::Node& n : FixtureNodes()) ASSERT_TRUE(kube.CreateNode(n).ok());
  InformerClusterSource source(kube, nullptr, "team=batch", "15m", RealClock::Get());
  ASSERT_TRUE(source.Start(absl::Seconds(10)).ok());
  absl::StatusOr<ClusterInputs> in = source.Fetch();
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->nodes.size(), 1u);
  EXPECT_EQ(in->nodes[0].metadata.name, "node-b");
  EXPECT_EQ(in->metrics, nullptr);
  EXPECT_EQ(in->metrics_error, "no --watcher given");
}

TEST(SlimPodTest, KeepsTheInformersKeysAndTheViewsSummaryOnly) {
  kube::Pod pod = kube::testing::MakePod()
                      .Name("exec-1")
                      .Namespace("spark")
                      .UID("u-1")
                      .NodeName("node-a")
                      .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
                      .Label("spark-role", "executor")
                      .Phase(kube::PodPhase::kRunning)
                      .Obj();
  pod.metadata.resource_version = "42";
  const SlimPod slim = SlimDown(pod);
  EXPECT_EQ(ObjectKey(slim), kube::ObjectKey(pod));
  EXPECT_EQ(slim.metadata.uid, "u-1");
  EXPECT_EQ(slim.metadata.resource_version, "42");
  EXPECT_EQ(slim.summary.node_name, "node-a");
  EXPECT_TRUE(slim.summary.running);
  EXPECT_EQ(slim.summary.requests.milli_cpu, 500);
  EXPECT_EQ(slim.summary.requests.memory, int64_t{1} << 30);
}

}  // namespace
}  // namespace trimaran::dashboard
