#include "cmd/trimaranctl/nodes_command.h"

#include <string>

#include "dashboard/test_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"
#include "rapidjson/document.h"

namespace trimaran::cmd::trimaranctl::nodes {
namespace {

using dashboard::testing::FixtureMetrics;
using dashboard::testing::FixtureNodes;
using dashboard::testing::FixtureNow;
using dashboard::testing::FixturePods;
using ::testing::HasSubstr;

TEST(NodesFlagsTest, DefaultsAndOverrides) {
  absl::StatusOr<NodesFlags> f = ParseNodesFlags({}, "");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->output, "");
  EXPECT_EQ(f->view.resources, std::vector<std::string>{"cpu"});
  EXPECT_EQ(dashboard::SortSpecString(f->view.sort), "creation=dsc");
  EXPECT_EQ(f->view.style, "#04B575,#FFFF00,#FF0000");

  f = ParseNodesFlags(
      {"-ojson", "--resources=cpu,memory", "--node-sort", "price=asc", "--extra-labels",
       "team, karpenter.sh/nodepool", "--no-color", "--target-utilization", "cpu=40,memory=60",
       "--watcher", "127.0.0.1:2020", "--spot-discount=65", "--group-by", "team"},
      "# defaults\nresources=memory\nhot-threshold=70\n");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->output, "json");
  EXPECT_EQ(f->view.resources, (std::vector<std::string>{"cpu", "memory"}));  // flag wins
  EXPECT_EQ(f->view.hot_threshold, 70);                                       // from the file
  EXPECT_EQ(dashboard::SortSpecString(f->view.sort), "price=asc");
  EXPECT_EQ(f->view.extra_labels, (std::vector<std::string>{"team", "karpenter.sh/nodepool"}));
  EXPECT_TRUE(f->view.no_color);
  EXPECT_EQ(f->view.target_percent.at("cpu"), 40);
  EXPECT_EQ(f->view.target_percent.at("memory"), 60);
  EXPECT_EQ(f->watcher, "127.0.0.1:2020");
  EXPECT_EQ(f->view.spot_discount_percent, 65);
  EXPECT_EQ(f->view.group_by, "team");
}

TEST(NodesFlagsTest, SecuredWatcher) {
  absl::StatusOr<NodesFlags> f =
      ParseNodesFlags({"--watcher", "https://lw.example:2020", "--watcher-ca-file", "/ca.crt",
                       "--watcher-token-file=/token"},
                      "");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->watcher, "https://lw.example:2020");
  EXPECT_EQ(f->watcher_ca_file, "/ca.crt");
  EXPECT_EQ(f->watcher_token_file, "/token");
}

TEST(NodesFlagsTest, Verbosity) {
  EXPECT_EQ(ParseNodesFlags({}, "")->verbosity, -1);
  EXPECT_EQ(ParseNodesFlags({"--v", "4"}, "")->verbosity, 4);
  EXPECT_EQ(ParseNodesFlags({"--v=2"}, "")->verbosity, 2);
  EXPECT_EQ(ParseNodesFlags({}, "v=3\n")->verbosity, 3);
  EXPECT_THAT(ParseNodesFlags({"--v", "x"}, "").status().message(),
              HasSubstr("must be a non-negative integer"));
}

TEST(NodesFlagsTest, Errors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-o", "yaml"}, "must be table, json or csv"},
      {{"--style", "#000000"}, "exactly 3 colours"},
      {{"--node-sort", "name=up"}, "order must be asc or dsc"},
      {{"--window", "1h"}, "must be 15m, 10m or 5m"},
      {{"--target-utilization", "gpu=3"}, "resource must be cpu or memory"},
      {{"--target-utilization", "140"}, "must be a number in [1, 100]"},
      {{"--spot-discount", "x"}, "--spot-discount"},
      {{"--refresh", "0s"}, "positive duration"},
      {{"--bogus"}, "unknown flag \"--bogus\""},
      {{"extra"}, "unexpected argument \"extra\""},
      {{"--watcher"}, "--watcher: needs a value"},
  };
  for (const auto& [args, want] : cases) {
    absl::StatusOr<NodesFlags> f = ParseNodesFlags(args, "");
    EXPECT_FALSE(f.ok()) << args[0];
    EXPECT_THAT(f.status().message(), HasSubstr(want)) << args[0];
  }
  EXPECT_THAT(ParseNodesFlags({}, "\nstyle=red\n").status().message(),
              HasSubstr("defaults file line 2"));
}

class NodesCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const kube::Node& n : FixtureNodes()) ASSERT_TRUE(kube_.CreateNode(n).ok());
    for (const kube::Pod& p : FixturePods()) ASSERT_TRUE(kube_.CreatePod(p).ok());
    watcher_.Set(FixtureMetrics());
  }
  kube::testing::FakeClient kube_;
  lw::testing::FakeLoadWatcherClient watcher_;
};

TEST_F(NodesCommandTest, JsonFromTheApiAndTheWatcher) {
  dashboard::ApiClusterSource source(kube_, &watcher_, "", "10m");
  absl::StatusOr<NodesFlags> f = ParseNodesFlags({"-o", "json", "--resources", "cpu,memory"}, "");
  ASSERT_TRUE(f.ok());
  std::string out;
  std::string err;
  ASSERT_EQ(RunNodesOnce(source, *f, FixtureNow(), out, err), 0) << err;
  rapidjson::Document d;
  d.Parse(out.c_str());
  ASSERT_FALSE(d.HasParseError()) << out;
  EXPECT_EQ(d["summary"]["nodes"].GetInt(), 3);
  EXPECT_EQ(d["summary"]["pods"].GetInt(), 3);  // Succeeded p5 is not listed/counted
  EXPECT_EQ(d["summary"]["pendingPods"].GetInt(), 1);
  EXPECT_EQ(d["summary"]["resources"]["cpu"]["requested"].GetDouble(), 4000);
  EXPECT_EQ(d["summary"]["resources"]["cpu"]["used"].GetDouble(), 2400);
  EXPECT_TRUE(d["metrics"]["available"].GetBool());
  ASSERT_EQ(watcher_.requests().size(), 1u);
  EXPECT_EQ(watcher_.requests()[0].window, "10m");
}

TEST_F(NodesCommandTest, NodeSelectorGoesToTheApiserver) {
  dashboard::ApiClusterSource source(kube_, &watcher_, "team=web", "15m");
  absl::StatusOr<dashboard::ClusterInputs> in = source.Fetch();
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->nodes.size(), 1u);
  EXPECT_EQ(in->nodes[0].metadata.name, "node-a");
}

TEST_F(NodesCommandTest, WatcherDownIsShownNotFatal) {
  watcher_.Set(absl::UnavailableError("received status code 503 from watcher"));
  dashboard::ApiClusterSource source(kube_, &watcher_, "", "15m");
  absl::StatusOr<NodesFlags> f = ParseNodesFlags({"-o", "table", "--no-color"}, "");
  ASSERT_TRUE(f.ok());
  std::string out;
  std::string err;
  ASSERT_EQ(RunNodesOnce(source, *f, FixtureNow(), out, err), 0) << err;
  EXPECT_THAT(out, HasSubstr("usage: load watcher unavailable: received status code 503"));
  EXPECT_THAT(out, HasSubstr("no watcher"));
}

TEST_F(NodesCommandTest, ApiErrorFails) {
  kube_.FailNext("ListNodes", absl::PermissionDeniedError("nodes is forbidden"));
  dashboard::ApiClusterSource source(kube_, nullptr, "", "15m");
  absl::StatusOr<NodesFlags> f = ParseNodesFlags({"-o", "table"}, "");
  std::string out;
  std::string err;
  EXPECT_EQ(RunNodesOnce(source, *f, FixtureNow(), out, err), 1);
  EXPECT_THAT(err, HasSubstr("nodes is forbidden"));
}

TEST_F(NodesCommandTest, BadPriceFileFails) {
  dashboard::ApiClusterSource source(kube_, nullptr, "", "15m");
  absl::StatusOr<NodesFlags> f =
      ParseNodesFlags({"-o", "table", "--price-file", "/nonexistent/prices.csv"}, "");
  ASSERT_TRUE(f.ok());
  std::string out;
  std::string err;
  EXPECT_EQ(RunNodesOnce(source, *f, FixtureNow(), out, err), 1);
  EXPECT_THAT(err, HasSubstr("price file /nonexistent/prices.csv"));
}

}  // namespace
}  // namespace trimaran::cmd::trimaranctl::nodes
