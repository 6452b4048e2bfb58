#include "cmd/trimaranctl/nodes_informer_source.h"

#include <algorithm>
#include <string>

#include "absl/time/clock.h"
#include "cmd/trimaranctl/nodes_test_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"

namespace trimaran::cmd::trimaranctl::nodes {
namespace {

using testing::FixtureMetrics;
using testing::FixtureNodes;
using testing::FixturePods;

int64_t BoundPodsOn(const ClusterInputs& in, const std::string& node) {
  return std::count_if(in.pods.begin(), in.pods.end(),
                       [&](const PodSummary& p) { return p.node_name == node && !p.terminal; });
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
  EXPECT_EQ(in->pods.size(), 4u);  // p5 (Succeeded) is not listed
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
  ASSERT_TRUE(kube.DeleteNode("node-10").ok());
  EXPECT_TRUE(Eventually(source, [](const ClusterInputs& i) { return i.nodes.size() == 2; }));
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

}  // namespace
}  // namespace trimaran::cmd::trimaranctl::nodes
