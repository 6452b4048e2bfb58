#include "kube/api/pod.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kube/api/binding.h"
#include "kube/api/node.h"
#include "kube/api/pod_status_patch.h"
#include "kube/testing/wrappers.h"

namespace trimaran::kube {
namespace {

using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;

TEST(PodHelpersTest, Predicates) {
  struct TestCase {
    std::string name;
    Pod pod;
    std::string namespaced_name;
    bool terminal;
    bool assigned;
    bool terminating;
    int32_t priority;
  };
  const std::vector<TestCase> cases = {
      {"new pod", MakePod().Name("p").Namespace("ns").Obj(), "ns/p", false, false, false, 0},
      {"bound running",
       MakePod()
           .Name("p")
           .Namespace("ns")
           .NodeName("n1")
           .Phase(PodPhase::kRunning)
           .Priority(7)
           .Obj(),
       "ns/p", false, true, false, 7},
      {"succeeded", MakePod().Name("p").Namespace("ns").Phase(PodPhase::kSucceeded).Obj(), "ns/p",
       true, false, false, 0},
      {"failed", MakePod().Name("p").Namespace("ns").Phase(PodPhase::kFailed).Obj(), "ns/p", true,
       false, false, 0},
      {"unknown phase is not terminal", MakePod().Name("p").Phase(PodPhase::kUnknown).Obj(), "p",
       false, false, false, 0},
      {"terminating",
       MakePod().Name("p").Namespace("ns").NodeName("n").Terminating().Priority(-3).Obj(), "ns/p",
       false, true, true, -3},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(NamespacedName(tc.pod), tc.namespaced_name);
    EXPECT_EQ(IsTerminal(tc.pod), tc.terminal);
    EXPECT_EQ(IsAssigned(tc.pod), tc.assigned);
    EXPECT_EQ(IsTerminating(tc.pod), tc.terminating);
    EXPECT_EQ(PodPriority(tc.pod), tc.priority);
  }
}

TEST(PodHelpersTest, ConditionsAndOwners) {
  const Pod pod = MakePod()
                      .Name("p")
                      .Condition("Ready", ConditionStatus::kFalse)
                      .Condition(std::string(kPodScheduled), ConditionStatus::kTrue)
                      .OwnerReference("ReplicaSet", "rs", "rs-uid")
                      .Obj();
  ASSERT_NE(FindCondition(pod.status, "Ready"), nullptr);
  EXPECT_EQ(FindCondition(pod.status, kPodScheduled)->status, ConditionStatus::kTrue);
  EXPECT_EQ(FindCondition(pod.status, "Initialized"), nullptr);
  ASSERT_NE(ControllerRef(pod.metadata), nullptr);
  EXPECT_EQ(ControllerRef(pod.metadata)->uid, "rs-uid");
  EXPECT_EQ(ControllerRef(MakePod().Obj().metadata), nullptr);

  const Node node = MakeNode().Name("n").Condition("Ready", ConditionStatus::kTrue).Obj();
  EXPECT_EQ(FindCondition(node.status, "Ready")->status, ConditionStatus::kTrue);
  EXPECT_EQ(FindCondition(node.status, "DiskPressure"), nullptr);
}

TEST(PodHelpersTest, MakeBinding) {
  const Pod pod = MakePod().Name("web").Namespace("default").UID("u1").Label("x", "y").Obj();
  const Binding b = MakeBinding(pod.metadata, "n7");
  EXPECT_EQ(b.metadata.name, "web");
  EXPECT_EQ(b.metadata.namespace_name, "default");
  EXPECT_EQ(b.metadata.uid, "u1");
  EXPECT_TRUE(b.metadata.labels.empty());
  EXPECT_EQ(b.target, (ObjectReference{"v1", "Node", "", "n7", "", "", ""}));
}

TEST(PodStatusPatchTest, Apply) {
  PodCondition failed;
  failed.type = std::string(kPodScheduled);
  failed.status = ConditionStatus::kFalse;
  failed.reason = std::string(kPodReasonUnschedulable);

  struct TestCase {
    std::string name;
    Pod pod;
    PodStatusPatch patch;
    std::vector<std::string> want_types;
    std::string want_nominated;
  };
  const std::vector<TestCase> cases = {
      {"appends",
       MakePod().Condition("Ready", ConditionStatus::kFalse).Obj(),
       {{failed}, std::nullopt, {}},
       {"Ready", "PodScheduled"},
       ""},
      {"replaces by type",
       MakePod()
           .Condition(std::string(kPodScheduled), ConditionStatus::kUnknown)
           .Condition("Ready", ConditionStatus::kFalse)
           .Obj(),
       {{failed}, std::nullopt, {}},
       {"PodScheduled", "Ready"},
       ""},
      {"sets nomination", MakePod().Obj(), {{}, "n2", {}}, {}, "n2"},
      {"clears nomination", MakePod().NominatedNodeName("n2").Obj(), {{}, "", {}}, {}, ""},
      {"leaves nomination",
       MakePod().NominatedNodeName("n2").Obj(),
       {{failed}, std::nullopt, {}},
       {"PodScheduled"},
       "n2"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    PodStatus status = tc.pod.status;
    ApplyPodStatusPatch(tc.patch, status);
    std::vector<std::string> types;
    for (const PodCondition& c : status.conditions) types.push_back(c.type);
    EXPECT_EQ(types, tc.want_types);
    EXPECT_EQ(status.nominated_node_name, tc.want_nominated);
    if (const PodCondition* c = FindCondition(status, kPodScheduled); c != nullptr) {
      EXPECT_EQ(*c, failed);
    }
  }
}

}  // namespace
}  // namespace trimaran::kube
