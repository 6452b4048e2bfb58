#include "scheduler/plugins/scheduling_gates/scheduling_gates.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakePod;

// Upstream's table (spec kube-scheduler-constraints.md §8).
TEST(SchedulingGatesTest, PreEnqueue) {
  struct Case {
    std::string name;
    std::vector<std::string> gates;
    Status want;
  };
  const std::vector<Case> cases = {
      {"no gates", {}, Status::Success()},
      {"one gate",
       {"foo"},
       Status::UnschedulableAndUnresolvable("waiting for scheduling gates: [foo]")
           .WithPlugin("SchedulingGates")},
      {"two gates in order",
       {"foo", "bar"},
       Status::UnschedulableAndUnresolvable("waiting for scheduling gates: [foo bar]")
           .WithPlugin("SchedulingGates")},
  };
  SchedulingGates plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.PreEnqueue(MakePod().Name("p").SchedulingGates(c.gates).Obj()), c.want);
  }
}

TEST(SchedulingGatesTest, DescriptorHasOnlyPreEnqueue) {
  const PluginDescriptor d = SchedulingGates::Descriptor();
  ASSERT_EQ(d.extension_points.size(), 1u);
  EXPECT_EQ(d.extension_points[0], ExtensionPoint::kPreEnqueue);
}

}  // namespace
}  // namespace trimaran::sched::plugins
