#include "scheduler/plugins/registry.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/config/defaults.h"
#include "scheduler/framework/interface.h"
#include "scheduler/testing/fake_handle.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using ::testing::ElementsAre;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

// The extension points `plugin` implements, from its dynamic type.
std::vector<ExtensionPoint> PointsOfInstance(Plugin* plugin) {
  std::vector<ExtensionPoint> points;
  auto add = [&points](bool implements, ExtensionPoint point) {
    if (implements) points.push_back(point);
  };
  add(dynamic_cast<PreEnqueuePlugin*>(plugin) != nullptr, ExtensionPoint::kPreEnqueue);
  add(dynamic_cast<QueueSortPlugin*>(plugin) != nullptr, ExtensionPoint::kQueueSort);
  add(dynamic_cast<PreFilterPlugin*>(plugin) != nullptr, ExtensionPoint::kPreFilter);
  add(dynamic_cast<FilterPlugin*>(plugin) != nullptr, ExtensionPoint::kFilter);
  add(dynamic_cast<PostFilterPlugin*>(plugin) != nullptr, ExtensionPoint::kPostFilter);
  add(dynamic_cast<PreScorePlugin*>(plugin) != nullptr, ExtensionPoint::kPreScore);
  add(dynamic_cast<ScorePlugin*>(plugin) != nullptr, ExtensionPoint::kScore);
  add(dynamic_cast<ReservePlugin*>(plugin) != nullptr, ExtensionPoint::kReserve);
  add(dynamic_cast<PermitPlugin*>(plugin) != nullptr, ExtensionPoint::kPermit);
  add(dynamic_cast<PreBindPlugin*>(plugin) != nullptr, ExtensionPoint::kPreBind);
  add(dynamic_cast<BindPlugin*>(plugin) != nullptr, ExtensionPoint::kBind);
  add(dynamic_cast<PostBindPlugin*>(plugin) != nullptr, ExtensionPoint::kPostBind);
  return points;
}

TEST(RegisterInTreePluginsTest, TheInTreePlugins) {
  // The default v1 profile's plugins (spec kube-scheduler.md §1.5) that Trimaran
  // implements and its own Score plugins (issue 7: TargetLoadPacking,
  // LoadVariationRiskBalancing, LowRiskOverCommitment), and scheduler-plugins'
  // Coscheduling (issue 21).
  EXPECT_THAT(
      InTreeRegistry().Names(),
      ElementsAre("Coscheduling", "DefaultBinder", "DefaultPreemption", "ImageLocality",
                  "InterPodAffinity", "LoadVariationRiskBalancing", "LowRiskOverCommitment",
                  "NodeAffinity", "NodeName", "NodePorts", "NodeResourcesBalancedAllocation",
                  "NodeResourcesFit", "NodeUnschedulable", "NodeVolumeLimits", "PodTopologySpread",
                  "PrioritySort", "SchedulingGates", "TaintToleration", "TargetLoadPacking",
                  "VolumeBinding", "VolumeRestrictions", "VolumeZone"));
}

TEST(RegisterInTreePluginsTest, EveryFactoryBuildsItsPluginWithDefaultArgs) {
  Registry registry;
  ASSERT_THAT(RegisterInTreePlugins(registry), IsOk());
  auto handle = sched::testing::NewHandleForTest();
  for (const std::string& name : registry.Names()) {
    SCOPED_TRACE(name);
    const PluginDescriptor* descriptor = registry.Find(name);
    ASSERT_NE(descriptor, nullptr);
    absl::StatusOr<std::unique_ptr<Plugin>> plugin = descriptor->factory(PluginArgs{}, *handle);
    ASSERT_THAT(plugin, IsOk());
    // The registered name is the plugin's own name (config, statuses and metrics agree).
    EXPECT_EQ((*plugin)->Name(), name);
    // The descriptor's extension points are exactly the built plugin's interfaces.
    EXPECT_EQ(descriptor->extension_points, PointsOfInstance(plugin->get()));
    // Default args are valid args.
    if (descriptor->validate_args) {
      EXPECT_THAT(descriptor->validate_args(PluginArgs{}), IsOk());
    }
  }
}

TEST(RegisterInTreePluginsTest, ArgsValidatorsRejectWhatTheFactoryRejects) {
  const Registry registry = InTreeRegistry();
  auto handle = sched::testing::NewHandleForTest();
  const PluginArgs bad{YAML::Load("{notAField: 1}"), "profiles[0].pluginConfig[0].args"};
  for (const std::string& name : registry.Names()) {
    SCOPED_TRACE(name);
    const PluginDescriptor& descriptor = *registry.Find(name);
    absl::StatusOr<std::unique_ptr<Plugin>> plugin = descriptor.factory(bad, *handle);
    if (plugin.ok()) {
      // A plugin that takes no args ignores them, as upstream.
      if (descriptor.validate_args) {
        EXPECT_THAT(descriptor.validate_args(bad), IsOk());
      }
      continue;
    }
    ASSERT_TRUE(descriptor.validate_args) << "the factory refuses args nothing validates";
    const absl::Status validated = descriptor.validate_args(bad);
    EXPECT_THAT(validated, StatusIs(absl::StatusCode::kInvalidArgument));
    // The same errors, one per line.
    EXPECT_EQ(validated.message(), absl::StrReplaceAll(plugin.status().message(), {{"; ", "\n"}}));
  }
}

TEST(RegisterInTreePluginsTest, NoInTreePluginIsAnUnsupportedUpstreamPlugin) {
  // config/defaults.cc drops the unsupported upstream plugins from the defaults; the
  // list must not name a plugin Trimaran implements.
  for (const std::string& name : InTreeRegistry().Names()) {
    EXPECT_FALSE(config::IsUnsupportedUpstreamPlugin(name)) << name;
  }
}

TEST(RegisterInTreePluginsTest, PackingPlugins) {
  const Registry registry = InTreeRegistry();
  auto packs = [&registry](absl::string_view name, const char* args) {
    const PluginDescriptor* descriptor = registry.Find(name);
    return descriptor->packing &&
           descriptor->packing(PluginArgs{args == nullptr ? YAML::Node() : YAML::Load(args), ""});
  };
  EXPECT_TRUE(packs("TargetLoadPacking", nullptr));
  EXPECT_TRUE(packs("TargetLoadPacking", "{targetUtilization: 70}"));
  EXPECT_FALSE(packs("NodeResourcesFit", nullptr));
  EXPECT_FALSE(packs("NodeResourcesFit", "{scoringStrategy: {type: LeastAllocated}}"));
  EXPECT_TRUE(packs("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated}}"));
  EXPECT_TRUE(packs("NodeResourcesFit",
                    "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: "
                    "{shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}}}"));
  for (const std::string& name : registry.Names()) {
    if (name == "TargetLoadPacking" || name == "NodeResourcesFit") continue;
    EXPECT_FALSE(registry.Find(name)->packing) << name;
  }
}

TEST(RegisterInTreePluginsTest, RegisteringTwiceIsAlreadyExists) {
  Registry registry;
  ASSERT_THAT(RegisterInTreePlugins(registry), IsOk());
  EXPECT_THAT(RegisterInTreePlugins(registry), StatusIs(absl::StatusCode::kAlreadyExists));
}

}  // namespace
}  // namespace trimaran::sched::plugins
