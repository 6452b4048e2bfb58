#include "cmd/trimaranctl/dashboard_command.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::cmd::trimaranctl::nodes {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(DashboardFlagsTest, DefaultsAndNodesFlags) {
  absl::StatusOr<DashboardFlags> f =
      ParseDashboardFlags({"--watcher", "127.0.0.1:2020", "--node-selector", "team=web"}, "");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->listen, "127.0.0.1:8088");
  EXPECT_THAT(f->nodes.view.resources, ElementsAre("cpu", "memory"));
  EXPECT_EQ(f->nodes.view.refresh, absl::Seconds(5));
  EXPECT_EQ(f->nodes.watcher, "127.0.0.1:2020");
  EXPECT_EQ(f->nodes.view.node_selector, "team=web");
  EXPECT_TRUE(f->scheduler.empty());
  EXPECT_EQ(f->history, 120);
}

TEST(DashboardFlagsTest, DashboardFlags) {
  absl::StatusOr<DashboardFlags> f = ParseDashboardFlags(
      {"--listen=127.0.0.1:0", "--scheduler", "https://127.0.0.1:10259", "--scheduler-ca-file",
       "/ca", "--scheduler-token-file=/tok", "--scheduler-insecure-skip-tls-verify", "--history",
       "30", "--resources", "cpu", "--refresh", "1s"},
      "");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->listen, "127.0.0.1:0");
  EXPECT_EQ(f->scheduler, "https://127.0.0.1:10259");
  EXPECT_EQ(f->scheduler_ca_file, "/ca");
  EXPECT_EQ(f->scheduler_token_file, "/tok");
  EXPECT_TRUE(f->scheduler_insecure);
  EXPECT_EQ(f->history, 30);
  EXPECT_THAT(f->nodes.view.resources, ElementsAre("cpu"));
  EXPECT_EQ(f->nodes.view.refresh, absl::Seconds(1));
}

TEST(DashboardFlagsTest, ClearErrors) {
  auto error = [](std::vector<std::string> args) {
    absl::StatusOr<DashboardFlags> f = ParseDashboardFlags(args, "");
    EXPECT_FALSE(f.ok());
    return std::string(f.status().message());
  };
  EXPECT_THAT(error({"-o", "json"}), HasSubstr("not a dashboard flag"));
  EXPECT_THAT(error({"--listen", "8088"}), HasSubstr("--listen: must be HOST:PORT"));
  EXPECT_THAT(error({"--listen", "127.0.0.1:99999"}), HasSubstr("--listen: port"));
  EXPECT_THAT(error({"--listen"}), HasSubstr("--listen: needs a value"));
  EXPECT_THAT(error({"--scheduler", "sched:10259"}), HasSubstr("--scheduler: must be https://"));
  EXPECT_THAT(error({"--history", "0"}), HasSubstr("--history"));
  EXPECT_THAT(error({"--window", "1h"}), HasSubstr("--window"));  // a nodes flag
}

TEST(DashboardFlagsTest, ParseListen) {
  std::string host;
  int port = 0;
  ASSERT_TRUE(ParseListen("[::1]:9000", host, port).ok());
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 9000);
  ASSERT_TRUE(ParseListen(":9001", host, port).ok());
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 9001);
}

TEST(DashboardFlagsTest, HelpNamesTheFlags) {
  const std::string help = DashboardHelpText();
  for (const char* flag : {"--listen", "--scheduler", "--scheduler-ca-file",
                           "--scheduler-token-file", "--history", "--watcher"}) {
    EXPECT_THAT(help, HasSubstr(flag));
  }
}

}  // namespace
}  // namespace trimaran::cmd::trimaranctl::nodes
