// deploy/components/load-watcher-dashboard, rendered with the real `kubectl kustomize`
// on top of the base and of each overlay that keeps the load-watcher container: the
// read-only RBAC (list/watch nodes and pods, nothing else) bound to the load watcher's
// ServiceAccount, and LOAD_WATCHER_DASHBOARD=true on the load-watcher container only.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/deploy/manifests.h"

namespace trimaran::deploy_testing {
namespace {

using ::testing::UnorderedElementsAre;

std::vector<std::string> Strings(const YAML::Node& seq) {
  std::vector<std::string> out;
  for (const YAML::Node& n : seq) out.push_back(n.as<std::string>());
  return out;
}

class DashboardComponentTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DashboardComponentTest, ReadOnlyRbacAndTheFlagOnTheWatcher) {
  absl::StatusOr<std::string> dir = MakeTempDir("dashboard-component");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string rel = std::filesystem::relative(DeployPath(""), *dir).string();
  ASSERT_TRUE(WriteFile(*dir + "/kustomization.yaml",
                        absl::StrCat("apiVersion: kustomize.config.k8s.io/v1beta1\n"
                                     "kind: Kustomization\n"
                                     "resources:\n  - ",
                                     rel, "/", GetParam(), "\ncomponents:\n  - ", rel,
                                     "/components/load-watcher-dashboard\n"))
                  .ok());
  absl::StatusOr<std::vector<YAML::Node>> docs = Render(*dir);
  ASSERT_TRUE(docs.ok()) << docs.status();

  const YAML::Node role = FindOne(*docs, "ClusterRole", "trimaran-load-watcher-dashboard");
  ASSERT_TRUE(role) << ToYamlStream(*docs);
  ASSERT_EQ(role["rules"].size(), 1u);
  const YAML::Node rule = role["rules"][0];
  EXPECT_THAT(Strings(rule["apiGroups"]), UnorderedElementsAre(""));
  EXPECT_THAT(Strings(rule["resources"]), UnorderedElementsAre("nodes", "pods"));
  EXPECT_THAT(Strings(rule["verbs"]), UnorderedElementsAre("list", "watch"));

  const YAML::Node binding =
      FindOne(*docs, "ClusterRoleBinding", "trimaran-load-watcher-dashboard");
  ASSERT_TRUE(binding);
  EXPECT_EQ(binding["roleRef"]["name"].as<std::string>(), "trimaran-load-watcher-dashboard");
  ASSERT_EQ(binding["subjects"].size(), 1u);
  EXPECT_EQ(binding["subjects"][0]["kind"].as<std::string>(), "ServiceAccount");
  EXPECT_EQ(binding["subjects"][0]["name"].as<std::string>(), "trimaran-load-watcher");
  EXPECT_EQ(binding["subjects"][0]["namespace"].as<std::string>(), "trimaran");

  const YAML::Node deployment = FindOne(*docs, "Deployment", "trimaran-scheduler");
  ASSERT_TRUE(deployment);
  auto dashboard_env = [](const YAML::Node& container) -> std::string {
    for (const YAML::Node& e : container["env"]) {
      if (e["name"].as<std::string>() == "LOAD_WATCHER_DASHBOARD") {
        return e["value"].as<std::string>();
      }
    }
    return "";
  };
  const YAML::Node watcher = FindContainer(deployment, "load-watcher");
  ASSERT_TRUE(watcher);
  EXPECT_EQ(dashboard_env(watcher), "true");
  EXPECT_EQ(watcher["command"][0].as<std::string>(), "/usr/local/bin/load-watcher");
  const YAML::Node scheduler = FindContainer(deployment, "trimaran-scheduler");
  ASSERT_TRUE(scheduler);
  EXPECT_EQ(dashboard_env(scheduler), "");
  EXPECT_EQ(deployment["spec"]["template"]["spec"]["containers"].size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Deploy, DashboardComponentTest,
                         ::testing::Values("base", "overlays/prometheus",
                                           "overlays/metrics-server"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name) {
                             if (c == '/' || c == '-') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace trimaran::deploy_testing
