#include "dashboard/model.h"

#include <string>
#include <vector>

#include "dashboard/test_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::dashboard {
namespace {

using ::testing::ElementsAre;
using testing::FixtureMetrics;
using testing::FixtureNodes;
using testing::FixtureNow;
using testing::FixturePods;
using ::testing::Optional;

constexpr double kGi = 1024.0 * 1024 * 1024;

ClusterView Build(const ModelOptions& o, const lw::WatcherMetrics* m) {
  absl::StatusOr<ClusterView> v =
      BuildClusterView(FixtureNodes(), AggregatePods(SummarizePods(FixturePods())), m, "", o);
  EXPECT_TRUE(v.ok()) << v.status();
  return *std::move(v);
}

const NodeRow& Row(const ClusterView& v, absl::string_view name) {
  for (const NodeRow& r : v.rows) {
    if (r.name == name) return r;
  }
  ADD_FAILURE() << "no row " << name;
  return v.rows.front();
}

TEST(NodesModelTest, RequestsUsageAndPricesPerNode) {
  const PriceTable prices = PriceTable::Builtin();
  ModelOptions o;
  o.resources = {"cpu", "memory", "pods"};
  o.prices = &prices;
  o.now = FixtureNow();
  const lw::WatcherMetrics m = FixtureMetrics();
  const ClusterView v = Build(o, &m);

  const NodeRow& a = Row(v, "node-a");
  EXPECT_EQ(a.instance_type, "m6i.xlarge");
  EXPECT_EQ(a.capacity_type, CapacityType::kOnDemand);
  EXPECT_EQ(a.zone, "us-east-1a");
  EXPECT_TRUE(a.ready);
  EXPECT_FALSE(a.cordoned);
  EXPECT_EQ(a.pods, 2);  // p5 is Succeeded
  EXPECT_EQ(a.allocatable_pods, 58);
  ASSERT_EQ(a.resources.size(), 3u);
  // cpu: 2000m + 1500m of 3920m; usage 50% of the 4-core capacity = 2000m.
  EXPECT_DOUBLE_EQ(a.resources[0].requested, 3500);
  EXPECT_DOUBLE_EQ(a.resources[0].allocatable, 3920);
  EXPECT_THAT(a.resources[0].used, Optional(2000.0));
  EXPECT_NEAR(a.resources[0].RequestedPercent(), 89.2857, 1e-3);
  EXPECT_NEAR(*a.resources[0].UsedPercent(), 51.0204, 1e-3);
  // memory: 6Gi of 15Gi; usage 25% of 16Gi = 4Gi.
  EXPECT_DOUBLE_EQ(a.resources[1].requested, 6 * kGi);
  EXPECT_THAT(a.resources[1].used, Optional(4 * kGi));
  // pods: counted, never measured.
  EXPECT_DOUBLE_EQ(a.resources[2].requested, 2);
  EXPECT_EQ(a.resources[2].usage_state, UsageState::kNotMeasured);
  EXPECT_EQ(a.resources[2].used, std::nullopt);
  EXPECT_THAT(a.price_per_hour, Optional(0.192));
  EXPECT_EQ(a.price_source, "table");

  const NodeRow& b = Row(v, "node-b");
  EXPECT_EQ(b.capacity_type, CapacityType::kSpot);
  EXPECT_TRUE(b.cordoned);
  EXPECT_EQ(b.pods, 1);
  EXPECT_THAT(b.resources[0].used, Optional(400.0));
  // No memory value for node-b: missing, not zero.
  EXPECT_EQ(b.resources[1].usage_state, UsageState::kMissing);
  EXPECT_EQ(b.resources[1].used, std::nullopt);
  EXPECT_EQ(b.price_per_hour, std::nullopt);  // spot, no spot price, no discount

  const NodeRow& c = Row(v, "node-10");
  EXPECT_FALSE(c.ready);
  EXPECT_EQ(c.capacity_type, CapacityType::kUnknown);
  EXPECT_EQ(c.usage_state, UsageState::kMissing);
  EXPECT_EQ(c.resources[0].used, std::nullopt);
  EXPECT_EQ(c.price_per_hour, std::nullopt);

  // Totals: requests of all bound pods; used only over node-a's and node-b's cpu.
  const Totals& t = v.totals;
  EXPECT_EQ(t.nodes, 3);
  EXPECT_EQ(t.pods, 3);
  EXPECT_DOUBLE_EQ(t.resources[0].allocatable, 3920 + 3920 + 2000);
  EXPECT_DOUBLE_EQ(t.resources[0].requested, 4000);
  EXPECT_THAT(t.resources[0].used, Optional(2400.0));
  EXPECT_DOUBLE_EQ(t.measured_allocatable[0], 7840);
  EXPECT_THAT(t.resources[1].used, Optional(4 * kGi));
  EXPECT_DOUBLE_EQ(t.measured_allocatable[1], 15 * kGi);
  EXPECT_EQ(t.nodes_without_usage, 2);  // node-b (memory) and node-10
  EXPECT_DOUBLE_EQ(t.price_per_hour, 0.192);
  EXPECT_EQ(t.nodes_without_price, 2);
  EXPECT_EQ(v.pods.pending, 1);
  EXPECT_EQ(v.pods.running, 2);
  EXPECT_EQ(v.pods.bound, 1);
}

TEST(NodesModelTest, StaleOrAbsentSnapshotIsNeverIdle) {
  ModelOptions o;
  o.resources = {"cpu"};
  o.now = FixtureNow();
  o.stale_after = absl::Minutes(2);
  const lw::WatcherMetrics old = FixtureMetrics(absl::Minutes(5));
  const ClusterView stale = Build(o, &old);
  for (const NodeRow& r : stale.rows) {
    EXPECT_NE(r.usage_state, UsageState::kOk) << r.name;
    EXPECT_EQ(r.resources[0].used, std::nullopt) << r.name;
  }
  EXPECT_EQ(Row(stale, "node-a").usage_state, UsageState::kStale);
  EXPECT_EQ(Row(stale, "node-10").usage_state, UsageState::kMissing);
  EXPECT_EQ(stale.totals.resources[0].used, std::nullopt);
  EXPECT_EQ(stale.totals.nodes_without_usage, 3);

  absl::StatusOr<ClusterView> none =
      BuildClusterView(FixtureNodes(), AggregatePods(SummarizePods(FixturePods())), nullptr,
                       "connection refused", o);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_metrics);
  EXPECT_EQ(none->metrics_error, "connection refused");
  for (const NodeRow& r : none->rows) EXPECT_EQ(r.usage_state, UsageState::kNoWatcher);
}

TEST(NodesModelTest, PriceLabelWinsAndPricingCanBeDisabled) {
  std::vector<kube::Node> nodes = FixtureNodes();
  nodes[1].metadata.labels[kPriceLabel] = "0.0712";
  const PriceTable prices = PriceTable::Builtin();
  ModelOptions o;
  o.prices = &prices;
  o.now = FixtureNow();
  absl::StatusOr<ClusterView> v =
      BuildClusterView(nodes, AggregatePods(SummarizePods(FixturePods())), nullptr, "", o);
  ASSERT_TRUE(v.ok());
  EXPECT_THAT(Row(*v, "node-b").price_per_hour, Optional(0.0712));
  EXPECT_EQ(Row(*v, "node-b").price_source, "label");
  o.disable_pricing = true;
  v = BuildClusterView(nodes, AggregatePods(SummarizePods(FixturePods())), nullptr, "", o);
  ASSERT_TRUE(v.ok());
  for (const NodeRow& r : v->rows) EXPECT_EQ(r.price_per_hour, std::nullopt);
}

std::vector<std::string> Names(const ClusterView& v) {
  std::vector<std::string> n;
  for (const NodeRow& r : v.rows) n.push_back(r.name);
  return n;
}

TEST(NodesModelTest, Sorting) {
  const PriceTable prices = PriceTable::Builtin();
  ModelOptions o;
  o.prices = &prices;
  o.now = FixtureNow();
  const lw::WatcherMetrics m = FixtureMetrics();
  ClusterView v = Build(o, &m);
  EXPECT_EQ(v.sort, "creation=dsc");
  EXPECT_THAT(Names(v), ElementsAre("node-10", "node-b", "node-a"));  // newest first
  SortView(v, {.key = "creation", .ascending = true});
  EXPECT_THAT(Names(v), ElementsAre("node-a", "node-b", "node-10"));
  SortView(v, {.key = "name", .ascending = true});
  EXPECT_THAT(Names(v), ElementsAre("node-10", "node-a", "node-b"));  // digits before letters
  SortView(v, {.key = "cpu-requests", .ascending = false});
  EXPECT_THAT(Names(v), ElementsAre("node-a", "node-b", "node-10"));
  SortView(v, {.key = "cpu-usage", .ascending = true});
  // node-10 has no usage: last in either order.
  EXPECT_THAT(Names(v), ElementsAre("node-b", "node-a", "node-10"));
  SortView(v, {.key = "price", .ascending = false});
  EXPECT_THAT(Names(v), ElementsAre("node-a", "node-10", "node-b"));  // unknowns by name
  SortView(v, {.key = "team", .ascending = true});
  EXPECT_THAT(Names(v), ElementsAre("node-b", "node-a", "node-10"));  // batch, web, unlabelled
  EXPECT_EQ(v.sort, "team=asc");
}

TEST(NodesModelTest, ParseSortSpec) {
  EXPECT_EQ(SortSpecString(*ParseSortSpec("creation")), "creation=dsc");
  EXPECT_EQ(SortSpecString(*ParseSortSpec("price=asc")), "price=asc");
  EXPECT_EQ(SortSpecString(*ParseSortSpec("karpenter.sh/nodepool=dsc")),
            "karpenter.sh/nodepool=dsc");
  EXPECT_FALSE(ParseSortSpec("price=up").ok());
  EXPECT_FALSE(ParseSortSpec("=asc").ok());
}

TEST(NodesModelTest, GroupingWithSubtotals) {
  const PriceTable prices = PriceTable::Builtin();
  ModelOptions o;
  o.prices = &prices;
  o.now = FixtureNow();
  o.group_by = "topology.kubernetes.io/zone";
  o.sort = {.key = "name", .ascending = true};
  const lw::WatcherMetrics m = FixtureMetrics();
  const ClusterView v = Build(o, &m);
  ASSERT_EQ(v.groups.size(), 2u);
  EXPECT_EQ(v.groups[0].value, "us-east-1a");
  // Grouped rows are contiguous: the sort puts the group first.
  EXPECT_THAT(Names(v), ElementsAre("node-10", "node-a", "node-b"));
  EXPECT_THAT(v.groups[0].rows, ElementsAre(0, 1));
  EXPECT_EQ(v.groups[0].totals.nodes, 2);
  EXPECT_DOUBLE_EQ(v.groups[0].totals.resources[0].requested, 3500);
  EXPECT_DOUBLE_EQ(v.groups[0].totals.resources[0].allocatable, 5920);
  EXPECT_DOUBLE_EQ(v.groups[0].totals.price_per_hour, 0.192);
  EXPECT_EQ(v.groups[1].value, "us-east-1b");
  EXPECT_EQ(v.groups[1].totals.nodes_without_price, 1);
}

TEST(NodesModelTest, ComputedLabels) {
  ModelOptions o;
  o.resources = {"cpu", "nvidia.com/gpu"};
  o.now = FixtureNow();
  const ClusterView v = Build(o, nullptr);
  const NodeRow& a = Row(v, "node-a");
  EXPECT_EQ(LabelValue(v, a, "team"), "web");
  EXPECT_EQ(LabelValue(v, a, "eks-node-viewer/node-age"), "3d4h");
  EXPECT_EQ(LabelValue(v, a, "eks-node-viewer/node-cpu-usage"), "89%");
  EXPECT_EQ(LabelValue(v, a, "eks-node-viewer/node-nvidia.com/gpu-usage"), "N/A");
  EXPECT_EQ(LabelValue(v, a, "eks-node-viewer/node-memory-usage"), std::nullopt);  // not shown
  EXPECT_EQ(LabelValue(v, a, "karpenter.sh/nodepool"), std::nullopt);
}

TEST(NodesModelTest, PodTotalsAddAndRemove) {
  const std::vector<PodSummary> pods = SummarizePods(FixturePods());
  PodTotals t = AggregatePods(pods);
  EXPECT_EQ(t.counts.pending, 1);
  EXPECT_EQ(t.counts.running, 2);
  EXPECT_EQ(t.counts.bound, 1);
  EXPECT_EQ(t.per_node.at("node-a").pods, 2);  // p5 is terminal
  EXPECT_EQ(t.per_node.at("node-a").requested.milli_cpu, 3500);
  t.Remove(pods[0]);  // p1: 2 cpu on node-a
  EXPECT_EQ(t.per_node.at("node-a").requested.milli_cpu, 1500);
  EXPECT_EQ(t.counts.running, 1);
  t.Remove(pods[1]);
  EXPECT_FALSE(t.per_node.contains("node-a"));  // dropped with its last pod
  t.Remove(pods[4]);                            // terminal: never counted, no-op
  t.Remove(pods[3]);
  t.Remove(pods[2]);
  EXPECT_TRUE(t.per_node.empty());
  EXPECT_EQ(t.counts.pending + t.counts.running + t.counts.bound, 0);
}

TEST(NodesModelTest, HelpersAndErrors) {
  EXPECT_TRUE(NaturalLess("node-2", "node-10"));
  EXPECT_FALSE(NaturalLess("node-10", "node-2"));
  EXPECT_TRUE(NaturalLess("a", "b"));
  EXPECT_TRUE(NaturalLess("node-a", "node-b"));
  EXPECT_EQ(FormatAge(absl::Hours(76)), "3d4h");
  EXPECT_EQ(FormatAge(absl::Hours(48)), "2d");
  EXPECT_EQ(FormatAge(absl::Minutes(312)), "5h12m");
  EXPECT_EQ(FormatAge(absl::Minutes(42)), "42m");
  EXPECT_EQ(FormatAge(absl::Seconds(17)), "17s");
  ModelOptions o;
  o.resources = {};
  EXPECT_FALSE(BuildClusterView({}, {}, nullptr, "", o).ok());
}

}  // namespace
}  // namespace trimaran::dashboard
