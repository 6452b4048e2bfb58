#include "scheduler/plugins/coscheduling/args.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using ::testing::HasSubstr;

constexpr char kPath[] = "profiles[0].pluginConfig[2].args";

absl::StatusOr<CoschedulingArgs> Decode(const std::string& yaml) {
  return DecodeCoschedulingArgs(
      PluginArgs{yaml.empty() ? YAML::Node() : YAML::Load(yaml), std::string(kPath)});
}

TEST(CoschedulingArgsTest, DefaultsAsUpstream) {
  absl::StatusOr<CoschedulingArgs> args = Decode("");
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->permit_waiting_time_seconds, 60);
  EXPECT_EQ(args->pod_group_backoff_seconds, 0);
  EXPECT_EQ(args->pod_group_reject_percentage, 10);
}

TEST(CoschedulingArgsTest, DecodesEveryField) {
  absl::StatusOr<CoschedulingArgs> args = Decode(
      "kind: CoschedulingArgs\napiVersion: kubescheduler.config.k8s.io/v1\n"
      "permitWaitingTimeSeconds: 30\npodGroupBackoffSeconds: 5\n"
      "podGroupRejectPercentage: 0\n");
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(*args, (CoschedulingArgs{30, 5, 0}));
  EXPECT_EQ(args->permit_waiting_time(), absl::Seconds(30));
}

TEST(CoschedulingArgsTest, NamesEveryBadField) {
  absl::StatusOr<CoschedulingArgs> args = Decode(
      "permitWaitingTimeSeconds: 0\npodGroupBackoffSeconds: -1\n"
      "podGroupRejectPercentage: 101\nbogus: 1\nkind: Other\n");
  ASSERT_FALSE(args.ok());
  const std::string msg(args.status().message());
  EXPECT_THAT(msg, HasSubstr(std::string(kPath) + ".permitWaitingTimeSeconds: Invalid value: 0"));
  EXPECT_THAT(msg, HasSubstr(".podGroupBackoffSeconds: Invalid value: -1"));
  EXPECT_THAT(msg, HasSubstr(".podGroupRejectPercentage: Invalid value: 101"));
  EXPECT_THAT(msg, HasSubstr(".bogus: unknown field"));
  EXPECT_THAT(msg, HasSubstr(".kind: must be \"CoschedulingArgs\""));
}

TEST(CoschedulingArgsTest, WrongTypesAndShapes) {
  EXPECT_THAT(Decode("permitWaitingTimeSeconds: soon\n").status().message(),
              HasSubstr("permitWaitingTimeSeconds: must be an integer"));
  EXPECT_THAT(Decode("- 1\n").status().message(), HasSubstr("must be a mapping"));
  EXPECT_THAT(Decode("permitWaitingTimeSeconds: 901\n").status().message(),
              HasSubstr("not in valid range [1, 900]"));
}

}  // namespace
}  // namespace trimaran::sched::plugins
