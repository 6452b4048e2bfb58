// LoadEffectiveConfig / WriteEffectiveConfig: what the daemon accepts, refuses and
// writes. (The daemon's run-time behaviour is tested end to end against a real
// kube-apiserver in tests/e2e/scheduler_e2e_test.cc.)
#include "cmd/scheduler/app.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/config/load.h"

namespace trimaran::cmd {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    char tmpl[] = "/tmp/trimaran-app-test-XXXXXX";
    int fd = mkstemp(tmpl);
    path_ = tmpl;
    ::close(fd);
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

SchedulerOptions WithConfig(const std::string& path) {
  SchedulerOptions o;
  o.config_file = path;
  return o;
}

TEST(LoadEffectiveConfigTest, NoConfigIsOneTrimaranProfileWithItsOwnLease) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(sched::config::SchedulerConfig c,
                                LoadEffectiveConfig(SchedulerOptions{}));
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].scheduler_name, "trimaran");
  EXPECT_EQ(c.leader_election.resource_name, "trimaran-scheduler");
  EXPECT_EQ(c.leader_election.resource_namespace, "kube-system");
  EXPECT_TRUE(c.leader_election.leader_elect);
  // Upstream's clientConnection defaults (§1.3).
  EXPECT_FLOAT_EQ(c.client_connection.qps, 50);
  EXPECT_EQ(c.client_connection.burst, 100);
}

TEST(LoadEffectiveConfigTest, FlagsOverrideTheConfiguration) {
  SchedulerOptions o;
  o.leader_elect = false;
  o.leader_elect_resource_name = "mine";
  o.kubeconfig = "/k";
  TRIMARAN_ASSERT_OK_AND_ASSIGN(sched::config::SchedulerConfig c, LoadEffectiveConfig(o));
  EXPECT_FALSE(c.leader_election.leader_elect);
  EXPECT_EQ(c.leader_election.resource_name, "mine");
  EXPECT_EQ(c.client_connection.kubeconfig, "/k");
}

TEST(LoadEffectiveConfigTest, EksFixtureLoadsAsOneMostAllocatedProfile) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      sched::config::SchedulerConfig c,
      LoadEffectiveConfig(
          WithConfig(std::string(TRIMARAN_SOURCE_DIR) +
                     "/scheduler/config/testdata/eks-binpack-scheduler-config.yaml")));
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].scheduler_name, "my-scheduler");
  EXPECT_EQ(c.leader_election.resource_name, "my-scheduler");
  EXPECT_EQ(c.client_connection.burst, 200);
}

TEST(LoadEffectiveConfigTest, V1beta1FixtureIsRefusedWithItsV1Equivalent) {
  absl::StatusOr<sched::config::SchedulerConfig> c = LoadEffectiveConfig(
      WithConfig(std::string(TRIMARAN_SOURCE_DIR) +
                 "/scheduler/config/testdata/trimaran-v1beta1-scheduler-config.yaml"));
  EXPECT_THAT(c.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                   HasSubstr("apiVersion: kubescheduler.config.k8s.io/v1")));
}

TEST(LoadEffectiveConfigTest, EveryErrorIsListedWithItsFieldPath) {
  // Three independent mistakes: an unknown plugin, a negative weight and invalid
  // NodeResourcesFit args (caught by the plugin's own decoder through its descriptor).
  TempFile f(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: trimaran
    plugins:
      score:
        enabled:
          - name: NoSuchPlugin
          - name: NodeResourcesBalancedAllocation
            weight: -1
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostestAllocated
)");
  absl::StatusOr<sched::config::SchedulerConfig> c = LoadEffectiveConfig(WithConfig(f.path()));
  ASSERT_FALSE(c.ok());
  const std::string msg(c.status().message());
  EXPECT_THAT(msg, HasSubstr("profiles[0].plugins.score.enabled[0].name"));
  EXPECT_THAT(msg, HasSubstr("NoSuchPlugin"));
  EXPECT_THAT(msg, HasSubstr("profiles[0].plugins.score.enabled[1].weight"));
  EXPECT_THAT(msg, HasSubstr("profiles[0].pluginConfig[0].args.scoringStrategy.type"));
}

TEST(LoadEffectiveConfigTest, BadYamlNamesTheLine) {
  TempFile f("apiVersion: kubescheduler.config.k8s.io/v1\nkind: [unclosed\n");
  absl::StatusOr<sched::config::SchedulerConfig> c = LoadEffectiveConfig(WithConfig(f.path()));
  EXPECT_THAT(c.status(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid YAML")));
}

TEST(SelectExtenderProfileTest, TheNamedOrTheOnlyProfile) {
  auto profile = [](const char* name) {
    sched::ProfileConfig p;
    p.scheduler_name = name;
    return p;
  };
  TRIMARAN_ASSERT_OK_AND_ASSIGN(sched::ProfileConfig only,
                                SelectExtenderProfile({profile("a")}, ""));
  EXPECT_EQ(only.scheduler_name, "a");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(sched::ProfileConfig named,
                                SelectExtenderProfile({profile("a"), profile("b")}, "b"));
  EXPECT_EQ(named.scheduler_name, "b");
  EXPECT_THAT(
      SelectExtenderProfile({profile("a"), profile("b")}, "").status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--extender-profile (one of a, b)")));
  EXPECT_THAT(SelectExtenderProfile({profile("a")}, "c").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no such profile")));
}

TEST(WriteEffectiveConfigTest, WrittenConfigLoadsBackEqual) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(sched::config::SchedulerConfig c,
                                LoadEffectiveConfig(SchedulerOptions{}));
  TempFile out("");
  ASSERT_TRUE(WriteEffectiveConfig(c, out.path()).ok());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(sched::config::SchedulerConfig back,
                                sched::config::LoadConfigFile(out.path()));
  EXPECT_EQ(back.profiles[0].scheduler_name, "trimaran");
  EXPECT_EQ(back.leader_election.resource_name, "trimaran-scheduler");
  EXPECT_EQ(back.profiles[0].plugins, c.profiles[0].plugins);
}

TEST(WriteEffectiveConfigTest, UnwritablePathIsAnError) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(sched::config::SchedulerConfig c,
                                LoadEffectiveConfig(SchedulerOptions{}));
  EXPECT_THAT(WriteEffectiveConfig(c, "/nonexistent-dir/x.yaml"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("/nonexistent-dir/x.yaml")));
}

}  // namespace
}  // namespace trimaran::cmd
