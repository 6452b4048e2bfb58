#include "dashboard/web/history.h"

#include "dashboard/test_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::dashboard::web {
namespace {

using testing::FixtureMetrics;
using testing::FixtureNodes;
using testing::FixtureNow;
using testing::FixturePods;
using ::testing::HasSubstr;

ClusterView ViewAt(absl::Duration metrics_age, absl::Time now, const lw::WatcherMetrics* m) {
  ModelOptions o;
  o.resources = {"cpu", "memory"};
  o.now = now;
  o.stale_after = absl::Hours(1);
  absl::StatusOr<ClusterView> v = BuildClusterView(
      FixtureNodes(), AggregatePods(SummarizePods(FixturePods())), m, "no --watcher given", o);
  EXPECT_TRUE(v.ok()) << v.status();
  (void)metrics_age;
  return *v;
}

TEST(NodeHistoryTest, OneSamplePerSnapshotWithGapsForMissingUsage) {
  NodeHistory h(10);
  const lw::WatcherMetrics m = FixtureMetrics(absl::Seconds(30));
  ASSERT_TRUE(h.Record(ViewAt(absl::Seconds(30), FixtureNow(), &m)));
  // The same snapshot seen again (the next refresh): nothing new.
  EXPECT_FALSE(h.Record(ViewAt(absl::Seconds(30), FixtureNow() + absl::Seconds(5), &m)));

  std::vector<UsageSample> a = h.Samples("node-a");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].unix_seconds, absl::ToUnixSeconds(FixtureNow() - absl::Seconds(30)));
  // 50 % of 4 cores capacity = 2000m of 3920m allocatable.
  ASSERT_TRUE(a[0].cpu_percent.has_value());
  EXPECT_NEAR(*a[0].cpu_percent, 2000.0 / 3920 * 100, 0.01);
  ASSERT_TRUE(a[0].memory_percent.has_value());
  EXPECT_NEAR(*a[0].memory_percent, 4.0 / 15 * 100, 0.01);
  // node-10 has no usage in the snapshot: a gap, never 0 %.
  std::vector<UsageSample> c = h.Samples("node-10");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_FALSE(c[0].cpu_percent.has_value());
  EXPECT_FALSE(c[0].memory_percent.has_value());

  const lw::WatcherMetrics newer = FixtureMetrics(absl::Seconds(0));
  EXPECT_TRUE(h.Record(ViewAt(absl::Seconds(0), FixtureNow(), &newer)));
  EXPECT_EQ(h.Samples("node-a").size(), 2u);
}

TEST(NodeHistoryTest, BoundedPerNodeAndDropsNodesThatLeave) {
  NodeHistory h(3);
  for (int i = 0; i < 5; ++i) {
    const lw::WatcherMetrics m = FixtureMetrics(absl::Seconds(100 - i * 10));
    ASSERT_TRUE(h.Record(ViewAt(absl::ZeroDuration(), FixtureNow(), &m)));
  }
  std::vector<UsageSample> a = h.Samples("node-a");
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a.back().unix_seconds, absl::ToUnixSeconds(FixtureNow() - absl::Seconds(60)));

  ClusterView only_a = ViewAt(absl::ZeroDuration(), FixtureNow(), nullptr);
  only_a.rows.resize(1);
  const std::string kept = only_a.rows[0].name;
  // Without a snapshot a sample is added once min_gap has passed since the last one.
  only_a.now = FixtureNow() + absl::Minutes(5);
  ASSERT_TRUE(h.Record(only_a));
  for (const std::string n : {"node-a", "node-b", "node-10"}) {
    EXPECT_EQ(h.Samples(n).empty(), n != kept) << n;
  }
  std::vector<UsageSample> k = h.Samples(kept);
  ASSERT_FALSE(k.empty());
  EXPECT_FALSE(k.back().cpu_percent.has_value());  // no watcher: a gap
  EXPECT_FALSE(h.Record(only_a));                  // within min_gap
}

TEST(NodeHistoryTest, Json) {
  NodeHistory h(5);
  const lw::WatcherMetrics m = FixtureMetrics(absl::Seconds(30));
  ASSERT_TRUE(h.Record(ViewAt(absl::Seconds(30), FixtureNow(), &m)));
  const std::string t = absl::StrCat(absl::ToUnixSeconds(FixtureNow() - absl::Seconds(30)));
  EXPECT_EQ(h.Json({"node-10", "unknown"}), absl::StrCat("{\"node-10\":[[", t, ",null,null]]}"));
  EXPECT_EQ(h.Json({"node-a"}), absl::StrCat("{\"node-a\":[[", t, ",51.02,26.67]]}"));
  const std::string all = h.Json({});
  EXPECT_THAT(all, HasSubstr("\"node-b\":[["));
  EXPECT_THAT(all, HasSubstr("\"node-a\":[["));
}

}  // namespace
}  // namespace trimaran::dashboard::web
