#include "scheduler/plugins/registry.h"

#include <memory>
#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

// The default v1 profile's plugins (spec kube-scheduler.md §1.5) that Trimaran
// implements, plus Trimaran's own stop-gap for unsupported hard constraints.
// Not yet implemented: SchedulingGates, VolumeRestrictions, NodeVolumeLimits,
// VolumeBinding, VolumeZone, PodTopologySpread, InterPodAffinity, DefaultPreemption,
// ImageLocality.
const std::vector<std::string>& ImplementedDefaultPlugins() {
  static const auto* names = new std::vector<std::string>{
      "PrioritySort",     "NodeUnschedulable",
      "NodeName",         "TaintToleration",
      "NodeAffinity",     "NodePorts",
      "NodeResourcesFit", "NodeResourcesBalancedAllocation",
      "DefaultBinder",    "UnsupportedPodConstraints",
  };
  return *names;
}

// Trimaran's own Score plugins (issue 7).
const std::vector<std::string>& TrimaranPlugins() {
  static const auto* names = new std::vector<std::string>{
      "TargetLoadPacking", "LoadVariationRiskBalancing", "LowRiskOverCommitment"};
  return *names;
}

TEST(RegisterInTreePluginsTest, EveryImplementedDefaultPluginIsRegistered) {
  Registry registry;
  ASSERT_THAT(RegisterInTreePlugins(registry), IsOk());
  EXPECT_EQ(registry.size(), ImplementedDefaultPlugins().size() + TrimaranPlugins().size());
  for (const std::string& name : ImplementedDefaultPlugins()) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(registry.Contains(name));
  }
  for (const std::string& name : TrimaranPlugins()) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(registry.Contains(name));
    // Their args are validated by the configuration catalog.
    EXPECT_TRUE(InTreeCatalog().args_validators.contains(name));
  }
}

TEST(RegisterInTreePluginsTest, EveryFactoryBuildsItsPluginWithDefaultArgs) {
  Registry registry;
  ASSERT_THAT(RegisterInTreePlugins(registry), IsOk());
  auto handle = sched::testing::NewHandleForTest();
  for (const std::string& name : registry.Names()) {
    SCOPED_TRACE(name);
    const PluginFactory* factory = registry.Find(name);
    ASSERT_NE(factory, nullptr);
    absl::StatusOr<std::unique_ptr<Plugin>> plugin = (*factory)(PluginArgs{}, *handle);
    ASSERT_THAT(plugin, IsOk());
    // The registered name is the plugin's own name (config, statuses and metrics agree).
    EXPECT_EQ((*plugin)->Name(), name);
  }
}

TEST(RegisterInTreePluginsTest, RegisteringTwiceIsAlreadyExists) {
  Registry registry;
  ASSERT_THAT(RegisterInTreePlugins(registry), IsOk());
  EXPECT_THAT(RegisterInTreePlugins(registry), StatusIs(absl::StatusCode::kAlreadyExists));
}

}  // namespace
}  // namespace trimaran::sched::plugins
