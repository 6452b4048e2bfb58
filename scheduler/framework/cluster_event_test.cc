#include "scheduler/framework/cluster_event.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched {
namespace {

using ::trimaran::kube::testing::MakeNode;

TEST(ClusterEventTest, Match) {
  struct TestCase {
    std::string name;
    ClusterEvent registered;
    ClusterEvent incoming;
    bool want;
  };
  constexpr ClusterEvent kNodeTaint{EventResource::kNode, ActionType::kUpdateNodeTaint, ""};
  constexpr ClusterEvent kNodeAddOrLabel{EventResource::kNode,
                                         ActionType::kAdd | ActionType::kUpdateNodeLabel, ""};
  const std::vector<TestCase> cases = {
      {"wildcard matches anything", kWildCardEvent, kAssignedPodDeleteEvent, true},
      {"same resource and action", kNodeAddEvent, kNodeAddEvent, true},
      {"other action", kNodeAddEvent, ClusterEvent{EventResource::kNode, ActionType::kDelete, ""},
       false},
      {"other resource", kNodeAddEvent, kAssignedPodAddEvent, false},
      {"update sub-kind registered", kNodeTaint,
       ClusterEvent{EventResource::kNode,
                    ActionType::kUpdateNodeTaint | ActionType::kUpdateNodeLabel, ""},
       true},
      {"other update sub-kind", kNodeTaint,
       ClusterEvent{EventResource::kNode, ActionType::kUpdateNodeAllocatable, ""}, false},
      {"registered for all updates", ClusterEvent{EventResource::kNode, ActionType::kUpdate, ""},
       ClusterEvent{EventResource::kNode, ActionType::kUpdateNodeCondition, ""}, true},
      {"several registered actions", kNodeAddOrLabel,
       ClusterEvent{EventResource::kNode, ActionType::kUpdateNodeLabel, ""}, true},
      {"wildcard resource with specific action",
       ClusterEvent{EventResource::kWildCard, ActionType::kDelete, ""}, kAssignedPodDeleteEvent,
       true},
      {"unschedulable timeout is wildcard", kNodeAddEvent, kUnschedulableTimeoutEvent, false},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(tc.registered.Match(tc.incoming), tc.want);
  }
  static_assert(kWildCardEvent.IsWildCard());
  static_assert(!kNodeAddEvent.IsWildCard());
}

TEST(ClusterEventTest, NodeUpdateActions) {
  const kube::Node base = MakeNode()
                              .Name("n1")
                              .Capacity({{"cpu", "4"}})
                              .Label("zone", "a")
                              .Condition("Ready", kube::ConditionStatus::kTrue)
                              .Obj();
  struct TestCase {
    std::string name;
    kube::Node updated;
    ActionType want;
  };
  kube::Node heartbeat = base;
  heartbeat.status.conditions[0].last_heartbeat_time = absl::FromUnixSeconds(5);
  heartbeat.metadata.resource_version = "99";
  kube::Node cordoned = base;
  cordoned.spec.unschedulable = true;
  kube::Node not_ready = base;
  not_ready.status.conditions[0].status = kube::ConditionStatus::kFalse;
  kube::Node annotated = base;
  annotated.metadata.annotations["a"] = "b";
  const std::vector<TestCase> cases = {
      {"nothing relevant", heartbeat, ActionType::kNone},
      {"allocatable",
       MakeNode()
           .Name("n1")
           .Capacity({{"cpu", "8"}})
           .Label("zone", "a")
           .Condition("Ready", kube::ConditionStatus::kTrue)
           .Obj(),
       ActionType::kUpdateNodeAllocatable},
      {"label and taint",
       MakeNode()
           .Name("n1")
           .Capacity({{"cpu", "4"}})
           .Label("zone", "b")
           .Taint("k", "v", kube::TaintEffect::kNoSchedule)
           .Condition("Ready", kube::ConditionStatus::kTrue)
           .Obj(),
       ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeTaint},
      {"cordon counts as taint", cordoned, ActionType::kUpdateNodeTaint},
      {"condition status", not_ready, ActionType::kUpdateNodeCondition},
      {"annotation", annotated, ActionType::kUpdateNodeAnnotation},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(NodeUpdateActions(base, tc.updated), tc.want);
  }
}

TEST(ClusterEventTest, ResourceNames) {
  EXPECT_EQ(EventResourceName(EventResource::kNode), "Node");
  EXPECT_EQ(EventResourceName(EventResource::kPod), "Pod");
  EXPECT_EQ(EventResourceName(EventResource::kWildCard), "*");
}

}  // namespace
}  // namespace trimaran::sched
