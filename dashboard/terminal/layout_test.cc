#include "dashboard/terminal/layout.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "dashboard/documents.h"
#include "dashboard/test_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace trimaran::dashboard::terminal {
namespace {

using testing::FixtureMetrics;
using testing::FixtureNodes;
using testing::FixtureNow;
using testing::FixturePods;
using ::testing::HasSubstr;
using ::testing::Not;

// Compares `got` with dashboard/testdata/<name>; TRIMARAN_UPDATE_GOLDEN=1 rewrites the file
// (then review the diff: the goldens are the specification of the layout).
void ExpectGolden(const std::string& name, const std::string& got) {
  const std::string path = std::string(DASHBOARD_TESTDATA) + "/" + name;
  if (const char* u = std::getenv("TRIMARAN_UPDATE_GOLDEN"); u != nullptr && *u == '1') {
    std::ofstream(path, std::ios::binary) << got;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden " << path;
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got, want.str()) << "golden " << path;
}

struct Setup {
  std::vector<std::string> resources = {"cpu", "memory"};
  std::vector<std::string> extra_labels;
  std::string group_by;
  SortSpec sort;
  absl::Duration metrics_age = absl::Seconds(30);
  bool with_metrics = true;
  bool disable_pricing = false;
  std::optional<double> spot_discount;
};

ClusterView View(const Setup& s) {
  PriceTable prices = PriceTable::Builtin();
  prices.set_spot_discount_percent(s.spot_discount);
  ModelOptions o;
  o.resources = s.resources;
  o.extra_labels = s.extra_labels;
  o.group_by = s.group_by;
  o.sort = s.sort;
  o.prices = &prices;
  o.disable_pricing = s.disable_pricing;
  o.now = FixtureNow();
  const lw::WatcherMetrics m = FixtureMetrics(s.metrics_age);
  absl::StatusOr<ClusterView> v = BuildClusterView(
      FixtureNodes(), AggregatePods(SummarizePods(FixturePods())), s.with_metrics ? &m : nullptr,
      "Get \"http://127.0.0.1:2020/watcher\": connection refused", o);
  EXPECT_TRUE(v.ok()) << v.status();
  return *std::move(v);
}

TEST(NodesLayoutTest, TableNoColorCpuAndMemoryWithTarget) {
  LayoutOptions o;
  o.target_percent = {{"cpu", 40}};
  const std::string got = RenderTable(View({}), o);
  EXPECT_THAT(got, Not(HasSubstr("\x1b[")));
  ExpectGolden("table_cpu_memory.txt", got);
}

TEST(NodesLayoutTest, TableColors) {
  LayoutOptions o;
  o.color = true;
  o.hot_threshold = 50;  // node-a's 51% cpu usage is hot
  const std::string got = RenderTable(View({.resources = {"cpu"}}), o);
  ExpectGolden("table_color.txt", got);
  // node-a's 89% requests: ok (yellow); node-b's 13%: bad (red); hot usage: red.
  EXPECT_THAT(got, HasSubstr("\x1b[38;2;255;255;0m"));
  EXPECT_THAT(got, HasSubstr("\x1b[38;2;255;0;0m 51%\x1b[0m"));
}

TEST(NodesLayoutTest, CustomStyle) {
  absl::StatusOr<Palette> p = ParseStyle("#010203,#040506,#070809");
  ASSERT_TRUE(p.ok());
  LayoutOptions o;
  o.color = true;
  o.palette = *p;
  const std::string got = RenderTable(View({.resources = {"cpu"}}), o);
  EXPECT_THAT(got, HasSubstr("\x1b[38;2;4;5;6m"));  // ok colour on node-a's requests
  EXPECT_FALSE(ParseStyle("#010203,#040506").ok());
  EXPECT_FALSE(ParseStyle("#010203,#040506,red").ok());
}

TEST(NodesLayoutTest, GroupedWithExtraLabelsAndSpotDiscount) {
  LayoutOptions o;
  const std::string got = RenderTable(
      View({.resources = {"cpu", "pods"},
            .extra_labels = {"team", "karpenter.sh/nodepool", "eks-node-viewer/node-age"},
            .group_by = "topology.kubernetes.io/zone",
            .sort = {.key = "name", .ascending = true},
            .spot_discount = 60}),
      o);
  ExpectGolden("table_grouped.txt", got);
}

TEST(NodesLayoutTest, StaleMetricsAreMarked) {
  LayoutOptions o;
  const std::string got = RenderTable(View({.metrics_age = absl::Minutes(10)}), o);
  ExpectGolden("table_stale.txt", got);
  EXPECT_THAT(got, HasSubstr("stale"));
  EXPECT_THAT(got, Not(HasSubstr("  0%▕")));
}

TEST(NodesLayoutTest, NoWatcherAndNoPricing) {
  LayoutOptions o;
  o.show_price = false;
  const std::string got =
      RenderTable(View({.resources = {"cpu"}, .with_metrics = false, .disable_pricing = true}), o);
  ExpectGolden("table_no_watcher.txt", got);
  EXPECT_THAT(got, Not(HasSubstr("$")));
}

TEST(NodesLayoutTest, EmptyClusterAndPaging) {
  LayoutOptions o;
  ModelOptions m;
  m.now = FixtureNow();
  absl::StatusOr<ClusterView> empty = BuildClusterView({}, {}, nullptr, "", m);
  ASSERT_TRUE(empty.ok());
  EXPECT_THAT(RenderTable(*empty, o), HasSubstr("Waiting for update or no nodes found...\n"));
  EXPECT_THAT(RenderTable(*empty, o), HasSubstr("0 nodes (0m/0m)   0.0% cpu"));

  o.first_node = 1;
  o.max_nodes = 1;
  const std::string rows = RenderRows(View({.resources = {"cpu"}}), o);
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 1);
  EXPECT_THAT(rows, HasSubstr("node-b "));  // creation=dsc: node-10, node-b, node-a
}

TEST(NodesLayoutTest, JsonCarriesTheSameFigures) {
  LayoutOptions o;
  o.target_percent = {{"cpu", 40}};
  const std::string got = RenderJson(View({.resources = {"cpu", "memory"}}), o.target_percent);
  ExpectGolden("nodes.json", got);
  rapidjson::Document d;
  d.Parse(got.c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_EQ(d["schemaVersion"].GetInt(), kJsonSchemaVersion);
  EXPECT_EQ(d["summary"]["resources"]["cpu"]["requested"].GetDouble(), 4000);
  EXPECT_EQ(d["summary"]["resources"]["cpu"]["used"].GetDouble(), 2400);
  const rapidjson::Value& nodes = d["nodes"];
  ASSERT_EQ(nodes.Size(), 3u);
  EXPECT_STREQ(nodes[2]["name"].GetString(), "node-a");
  EXPECT_EQ(nodes[2]["resources"]["cpu"]["used"].GetDouble(), 2000);
  EXPECT_TRUE(nodes[0]["pricePerHour"].IsNull());  // node-10: unknown, not 0
  EXPECT_TRUE(nodes[0]["resources"]["cpu"]["used"].IsNull());
  EXPECT_STREQ(nodes[0]["usage"].GetString(), "missing");
}

TEST(NodesLayoutTest, Csv) {
  std::vector<kube::Node> nodes = FixtureNodes();
  nodes[0].metadata.labels["note"] = "a,\"b\"";  // quoted as RFC 4180 says
  PriceTable prices = PriceTable::Builtin();
  ModelOptions o;
  o.resources = {"cpu", "memory"};
  o.extra_labels = {"note", "team"};
  o.prices = &prices;
  o.now = FixtureNow();
  const lw::WatcherMetrics m = FixtureMetrics();
  absl::StatusOr<ClusterView> v =
      BuildClusterView(nodes, AggregatePods(SummarizePods(FixturePods())), &m, "", o);
  ASSERT_TRUE(v.ok());
  const std::string got = RenderCsv(*v);
  ExpectGolden("nodes.csv", got);
  EXPECT_THAT(got, HasSubstr(",\"a,\"\"b\"\"\",web\n"));
}

TEST(NodesLayoutTest, Helpers) {
  EXPECT_EQ(FormatMoney(1234567.891, 3), "1,234,567.891");
  EXPECT_EQ(FormatMoney(140.16, 3), "140.160");
  EXPECT_EQ(FormatMoney(0.192, 4), "0.1920");
  EXPECT_EQ(FormatAmount("cpu", 3500), "3500m");
  EXPECT_EQ(FormatAmount("memory", 1.5 * 1024 * 1024 * 1024), "1.5Gi");
  EXPECT_EQ(FormatAmount("memory", 512.0 * 1024 * 1024), "512Mi");
  EXPECT_EQ(FormatAmount("pods", 58), "58");
  EXPECT_EQ(DisplayWidth("█░▕\x1b[38;2;1;2;3mab\x1b[0m"), 5u);
}

}  // namespace
}  // namespace trimaran::dashboard::terminal
