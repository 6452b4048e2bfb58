#include "scheduler/plugins/unsupported_constraints/unsupported_constraints.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using kube::UnsatisfiableConstraintAction;
using kube::testing::MakeLabelSelector;
using kube::testing::MakePod;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(UnsupportedPodConstraintsTest, PreFilter) {
  const auto sel = MakeLabelSelector().Label("app", "web").Obj();
  const std::string anti =
      "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution is not "
      "supported by this scheduler yet";
  const std::string aff =
      "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution is not "
      "supported by this scheduler yet";
  struct Case {
    std::string name;
    kube::Pod pod;
    std::vector<std::string> want_reasons;  // empty: accepted
  };
  const std::vector<Case> cases = {
      {"plain pod", MakePod().Obj(), {}},
      {"preferred terms are ignored",
       MakePod()
           .PreferredPodAffinity(10, "zone", sel)
           .PreferredPodAntiAffinity(5, "kubernetes.io/hostname", sel)
           .Obj(),
       {}},
      {"ScheduleAnyway is ignored",
       MakePod()
           .SpreadConstraint(1, "zone", UnsatisfiableConstraintAction::kScheduleAnyway, sel)
           .Obj(),
       {}},
      {"required anti-affinity",
       MakePod().PodAntiAffinity("kubernetes.io/hostname", sel).Obj(),
       {anti}},
      {"required affinity", MakePod().PodAffinity("zone", sel).Obj(), {aff}},
      {"every offending field is named",
       MakePod()
           .PodAffinity("zone", sel)
           .PodAntiAffinity("kubernetes.io/hostname", sel)
           .SpreadConstraint(1, "zone", UnsatisfiableConstraintAction::kScheduleAnyway, sel)
           .SpreadConstraint(1, "zone", UnsatisfiableConstraintAction::kDoNotSchedule, sel)
           .Obj(),
       {aff, anti,
        "spec.topologySpreadConstraints[1] with whenUnsatisfiable: DoNotSchedule is not "
        "supported by this scheduler yet"}},
  };
  UnsupportedPodConstraints plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    CycleState state;
    PreFilterResult result;
    const Status s = plugin.PreFilter(state, c.pod, {}, result);
    EXPECT_TRUE(result.AllNodes());
    if (c.want_reasons.empty()) {
      EXPECT_TRUE(s.IsSuccess()) << s;
      continue;
    }
    EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_EQ(s.reasons(), c.want_reasons);
    EXPECT_EQ(s.plugin(), "UnsupportedPodConstraints");
  }
}

TEST(UnsupportedPodConstraintsTest, NewAndNoEvents) {
  auto handle = testing::NewHandleForTest();
  absl::StatusOr<std::unique_ptr<Plugin>> p = UnsupportedPodConstraints::New(PluginArgs{}, *handle);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->Name(), "UnsupportedPodConstraints");
  EXPECT_THAT(dynamic_cast<EnqueueExtensions&>(**p).EventsToRegister(), IsEmpty());
}

}  // namespace
}  // namespace trimaran::sched::plugins
