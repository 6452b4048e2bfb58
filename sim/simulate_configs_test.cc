#include "sim/simulate_configs.h"

#include <string>

#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/plugins/registry.h"

namespace trimaran::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using ::trimaran::testing::StatusIs;
using ::trimaran::testing::TempDirForTest;

TEST(SimulateConfigsTest, ProfilesLoadAsTheDaemonLoadsThem) {
  TempDirForTest dir;
  const sched::Registry registry = sched::plugins::InTreeRegistry();
  const std::string good = dir.Write("good.yaml",
                                     "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                     "kind: KubeSchedulerConfiguration\n"
                                     "profiles:\n"
                                     "  - schedulerName: a\n"
                                     "  - schedulerName: b\n");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<sched::ProfileConfig> profiles,
                                LoadProfilesFile(good, registry));
  ASSERT_EQ(profiles.size(), 2u);
  EXPECT_EQ(profiles[1].scheduler_name, "b");

  const std::string bad = dir.Write("bad.yaml",
                                    "apiVersion: kubescheduler.config.k8s.io/v1\n"
                                    "kind: KubeSchedulerConfiguration\n"
                                    "profilez: []\n");
  EXPECT_THAT(LoadProfilesFile(bad, registry),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(bad + ": ")));
  EXPECT_THAT(LoadProfilesFile(dir.Path("none.yaml"), registry),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cannot open file")));
}

TEST(SimulateConfigsTest, SummaryHasOneLinePerProfileThenTheReport) {
  SimReportInput report;
  ProfileResult r;
  r.profile = "binpack";
  r.node_hours = 12.5;
  r.cost = 2.4;
  r.peak_nodes = 7;
  report.profiles.push_back(r);
  r.profile = "spread";
  r.lower_bound_node_hours = 10;
  r.node_hours_over_lower_bound = 1.25;
  report.profiles.push_back(r);
  const std::string summary = FormatSimSummary(report, "out.json");
  EXPECT_THAT(summary, StartsWith("binpack "));
  EXPECT_THAT(summary, HasSubstr("node-hours      12.5  cost $     2.40  peak    7 nodes"));
  EXPECT_THAT(summary.substr(0, summary.find('\n')), Not(HasSubstr("node-hours/LB")));
  EXPECT_THAT(summary, HasSubstr("node-hours/LB 1.250"));
  EXPECT_THAT(summary, HasSubstr("\nreport: out.json\n"));
}

}  // namespace
}  // namespace trimaran::sim
