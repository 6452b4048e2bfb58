// The coscheduling component (deploy/components/coscheduling) rendered on top of the
// prometheus overlay: the PodGroup CRD is apiextensions.k8s.io/v1 with the status
// subresource and upstream's group, names and fields; the extra ClusterRole grants
// exactly the PodGroup calls the scheduler makes, bound to its ServiceAccount; the
// replaced configuration decodes strictly, keeps the base profile and makes Coscheduling
// the only QueueSort plugin.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/config/load.h"
#include "tests/deploy/manifests.h"

namespace trimaran::deploy_testing {
namespace {

using ::testing::UnorderedElementsAre;

std::string Str(const YAML::Node& n) { return n.IsScalar() ? n.as<std::string>() : ""; }

class CoschedulingComponentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::vector<YAML::Node>> docs =
        RenderWithComponent("overlays/prometheus", "components/coscheduling");
    ASSERT_TRUE(docs.ok()) << docs.status();
    docs_ = *std::move(docs);
  }

  std::vector<YAML::Node> docs_;
};

TEST_F(CoschedulingComponentTest, CrdIsUpstreamsWithStatus) {
  const YAML::Node crd =
      FindOne(docs_, "CustomResourceDefinition", "podgroups.scheduling.x-k8s.io");
  ASSERT_TRUE(crd.IsMap()) << "no PodGroup CRD";
  EXPECT_EQ(Str(crd["apiVersion"]), "apiextensions.k8s.io/v1");
  EXPECT_EQ(Str(crd["spec"]["group"]), "scheduling.x-k8s.io");
  EXPECT_EQ(Str(crd["spec"]["names"]["kind"]), "PodGroup");
  EXPECT_EQ(Str(crd["spec"]["scope"]), "Namespaced");
  const YAML::Node version = crd["spec"]["versions"][0];
  EXPECT_EQ(Str(version["name"]), "v1alpha1");
  EXPECT_TRUE(version["subresources"]["status"].IsMap());
  const YAML::Node props = version["schema"]["openAPIV3Schema"]["properties"];
  std::set<std::string> spec, status;
  for (const auto& kv : props["spec"]["properties"]) spec.insert(kv.first.as<std::string>());
  for (const auto& kv : props["status"]["properties"]) status.insert(kv.first.as<std::string>());
  EXPECT_THAT(spec, UnorderedElementsAre("minMember", "minResources", "scheduleTimeoutSeconds"));
  EXPECT_THAT(status, UnorderedElementsAre("phase", "occupiedBy", "scheduled", "running",
                                           "succeeded", "failed", "scheduleStartTime"));
}

TEST_F(CoschedulingComponentTest, RbacIsExactlyThePodGroupCalls) {
  const YAML::Node role = FindOne(docs_, "ClusterRole", "trimaran-scheduler-coscheduling");
  ASSERT_TRUE(role.IsMap());
  std::vector<std::string> rules;
  for (const YAML::Node& rule : role["rules"]) {
    for (const YAML::Node& g : rule["apiGroups"]) {
      for (const YAML::Node& r : rule["resources"]) {
        for (const YAML::Node& v : rule["verbs"]) {
          rules.push_back(absl::StrCat(Str(g), "|", Str(r), "|", Str(v)));
        }
      }
    }
  }
  EXPECT_THAT(rules, UnorderedElementsAre("scheduling.x-k8s.io|podgroups|get",
                                          "scheduling.x-k8s.io|podgroups|list",
                                          "scheduling.x-k8s.io|podgroups|watch",
                                          "scheduling.x-k8s.io|podgroups/status|update",
                                          "scheduling.x-k8s.io|podgroups/status|patch"));
  const YAML::Node binding =
      FindOne(docs_, "ClusterRoleBinding", "trimaran-scheduler-coscheduling");
  ASSERT_TRUE(binding.IsMap());
  EXPECT_EQ(Str(binding["subjects"][0]["kind"]), "ServiceAccount");
  EXPECT_EQ(Str(binding["subjects"][0]["name"]), "trimaran-scheduler");
  EXPECT_EQ(Str(binding["subjects"][0]["namespace"]), "trimaran");
}

TEST_F(CoschedulingComponentTest, ConfigMakesCoschedulingTheOnlyQueueSort) {
  const YAML::Node cm = FindOne(docs_, "ConfigMap", "trimaran-scheduler-config");
  ASSERT_TRUE(cm.IsMap());
  const std::string text = Str(cm["data"]["config.yaml"]);
  absl::StatusOr<sched::config::SchedulerConfig> cfg =
      sched::config::ParseConfig(text, "config.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  const YAML::Node plugins = YAML::Load(text)["profiles"][0]["plugins"];
  EXPECT_EQ(Str(plugins["queueSort"]["enabled"][0]["name"]), "Coscheduling");
  EXPECT_EQ(Str(plugins["queueSort"]["disabled"][0]["name"]), "*");
  for (const char* point : {"preFilter", "postFilter", "reserve", "permit"}) {
    EXPECT_EQ(Str(plugins[point]["enabled"][0]["name"]), "Coscheduling") << point;
  }
  // The base profile is kept.
  EXPECT_EQ(Str(plugins["multiPoint"]["enabled"][0]["name"]), "TargetLoadPacking");
}

}  // namespace
}  // namespace trimaran::deploy_testing
