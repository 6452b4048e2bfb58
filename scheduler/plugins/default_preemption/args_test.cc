#include "scheduler/plugins/default_preemption/args.h"

#include <string>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

constexpr absl::string_view kPath = "profiles[0].pluginConfig[0].args";

absl::StatusOr<DefaultPreemptionArgs> Decode(const std::string& yaml) {
  return DecodeDefaultPreemptionArgs(
      PluginArgs{yaml.empty() ? YAML::Node() : YAML::Load(yaml), std::string(kPath)});
}

TEST(DefaultPreemptionArgsTest, DefaultsWhenAbsent) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(DefaultPreemptionArgs args, Decode(""));
  EXPECT_EQ(args.min_candidate_nodes_percentage, 10);
  EXPECT_EQ(args.min_candidate_nodes_absolute, 100);
}

TEST(DefaultPreemptionArgsTest, DecodesBothFields) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      DefaultPreemptionArgs args,
      Decode("kind: DefaultPreemptionArgs\napiVersion: kubescheduler.config.k8s.io/v1\n"
             "minCandidateNodesPercentage: 40\nminCandidateNodesAbsolute: 0\n"));
  EXPECT_EQ(args, (DefaultPreemptionArgs{40, 0}));
}

TEST(DefaultPreemptionArgsTest, NamedFieldErrors) {
  struct Row {
    std::string yaml;
    std::string error;
  };
  const Row rows[] = {
      {"minCandidateNodesPercentage: 101",
       "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 101: not "
       "in valid range [0, 100]"},
      {"minCandidateNodesPercentage: -1",
       "args.minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"},
      {"minCandidateNodesAbsolute: -5",
       "args.minCandidateNodesAbsolute: Invalid value: -5: not in valid range [0, inf)"},
      {"minCandidateNodesPercentage: 0\nminCandidateNodesAbsolute: 0",
       "args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
       "minCandidateNodesAbsolute"},
      {"minCandidateNodesPercentage: ten",
       "args.minCandidateNodesPercentage: must be a 32-bit "
       "integer"},
      {"minCandidateNodes: 3", "args.minCandidateNodes: unknown field"},
      {"kind: NodeResourcesFitArgs", "args.kind: must be \"DefaultPreemptionArgs\""},
  };
  for (const Row& row : rows) {
    EXPECT_THAT(Decode(row.yaml).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.error)))
        << row.yaml;
  }
}

TEST(DefaultPreemptionArgsTest, ReportsEveryError) {
  absl::Status s = Decode(
                       "minCandidateNodesPercentage: 200\nminCandidateNodesAbsolute: -1\n"
                       "bogus: 1")
                       .status();
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          HasSubstr("minCandidateNodesPercentage: Invalid value: 200")));
  EXPECT_THAT(s.message(), HasSubstr("minCandidateNodesAbsolute: Invalid value: -1"));
  EXPECT_THAT(s.message(), HasSubstr("bogus: unknown field"));
}

// Spec §9.5: numCandidates(n) for (10 %, 100) and (40 %, 0).
TEST(DefaultPreemptionArgsTest, NumCandidates) {
  const DefaultPreemptionArgs defaults;
  EXPECT_EQ(NumCandidates(defaults, 50), 50);
  EXPECT_EQ(NumCandidates(defaults, 500), 100);
  EXPECT_EQ(NumCandidates(defaults, 5000), 500);
  EXPECT_EQ(NumCandidates(DefaultPreemptionArgs{40, 0}, 5), 2);
  EXPECT_EQ(NumCandidates(DefaultPreemptionArgs{100, 0}, 7), 7);
  EXPECT_EQ(NumCandidates(DefaultPreemptionArgs{0, 3}, 10), 3);
}

}  // namespace
}  // namespace trimaran::sched::plugins
