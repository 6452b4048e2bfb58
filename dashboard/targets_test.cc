#include "dashboard/targets.h"

#include <fstream>
#include <string>

#include "dashboard/view_options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::dashboard {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string WriteConfig(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

constexpr char kTargetLoadPackingConfig[] = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: trimaran
  plugins:
    score:
      enabled:
      - name: TargetLoadPacking
  pluginConfig:
  - name: TargetLoadPacking
    args:
      targetUtilization: 55
      resources:
      - {name: cpu, weight: 1}
      - {name: memory, weight: 1, targetUtilization: 70}
)";

TEST(TargetsTest, FromSchedulerConfigAndTheFlagWins) {
  const std::string path = WriteConfig("sched.yaml", kTargetLoadPackingConfig);
  absl::StatusOr<TargetPercent> t = TargetsFromSchedulerConfig(path);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->at("cpu"), 55);
  EXPECT_EQ(t->at("memory"), 70);

  ViewOptions options;
  options.scheduler_config = path;
  options.target_percent = {{"cpu", 30}};
  absl::StatusOr<TargetPercent> resolved = ResolveTargets(options);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->at("cpu"), 30);  // the flag wins
  EXPECT_EQ(resolved->at("memory"), 70);
}

TEST(TargetsTest, NoTargetsWithoutThePluginAndErrorsNameTheFlag) {
  const std::string path = WriteConfig("plain.yaml", R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
)");
  absl::StatusOr<TargetPercent> t = TargetsFromSchedulerConfig(path);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(*t, IsEmpty());

  ViewOptions options;
  EXPECT_THAT(*ResolveTargets(options), IsEmpty());
  options.scheduler_config = ::testing::TempDir() + "/missing.yaml";
  absl::StatusOr<TargetPercent> missing = ResolveTargets(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("--scheduler-config "));
}

}  // namespace
}  // namespace trimaran::dashboard
