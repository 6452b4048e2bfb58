#include "kube/testing/wrappers.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::kube::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(PodWrapperTest, BuildsPod) {
  const Pod pod = MakePod()
                      .Name("p")
                      .Namespace("default")
                      .UID("u")
                      .Req({{"cpu", "500m"}, {"memory", "1Gi"}})
                      .Req({{"cpu", "1"}})
                      .InitReq({{"cpu", "2"}})
                      .SidecarReq({{"memory", "64Mi"}})
                      .Overhead({{"cpu", "10m"}})
                      .HostPort(8080)
                      .Priority(10)
                      .SchedulerName("trimaran")
                      .NodeName("n1")
                      .NodeSelector({{"disk", "ssd"}})
                      .Toleration("k", "v", TaintEffect::kNoSchedule)
                      .TolerationExists("other")
                      .Label("app", "web")
                      .Obj();
  EXPECT_EQ(pod.metadata.name, "p");
  EXPECT_EQ(pod.metadata.namespace_name, "default");
  EXPECT_EQ(pod.metadata.uid, "u");
  ASSERT_EQ(pod.spec.containers.size(), 2u);
  EXPECT_EQ(pod.spec.containers[0].name, "c0");
  EXPECT_EQ(pod.spec.containers[1].name, "c1");
  EXPECT_EQ(pod.spec.containers[0].image, kPauseImage);
  EXPECT_EQ(pod.spec.containers[0].resources.requests.at("cpu").MilliValue(), 500);
  EXPECT_EQ(pod.spec.containers[0].resources.requests.at("memory").Value(), int64_t{1} << 30);
  // HostPort goes on the last container.
  ASSERT_EQ(pod.spec.containers[1].ports.size(), 1u);
  EXPECT_EQ(pod.spec.containers[1].ports[0].host_port, 8080);
  EXPECT_EQ(pod.spec.containers[1].ports[0].container_port, 8080);
  ASSERT_EQ(pod.spec.init_containers.size(), 2u);
  EXPECT_EQ(pod.spec.init_containers[0].name, "init0");
  EXPECT_FALSE(IsRestartableInitContainer(pod.spec.init_containers[0]));
  EXPECT_EQ(pod.spec.init_containers[1].name, "sidecar1");
  EXPECT_TRUE(IsRestartableInitContainer(pod.spec.init_containers[1]));
  EXPECT_EQ(pod.spec.overhead.at("cpu").MilliValue(), 10);
  EXPECT_EQ(pod.spec.priority, 10);
  EXPECT_EQ(pod.spec.scheduler_name, "trimaran");
  EXPECT_EQ(pod.spec.node_name, "n1");
  EXPECT_THAT(pod.spec.node_selector, ElementsAre(Pair("disk", "ssd")));
  ASSERT_EQ(pod.spec.tolerations.size(), 2u);
  EXPECT_EQ(pod.spec.tolerations[0].op, TolerationOperator::kEqual);
  EXPECT_EQ(pod.spec.tolerations[1].op, TolerationOperator::kExists);
  EXPECT_EQ(pod.spec.tolerations[1].effect, TaintEffect::kAll);
  EXPECT_THAT(pod.metadata.labels, ElementsAre(Pair("app", "web")));
}

TEST(PodWrapperTest, DefaultsMatchTheApiserver) {
  const Pod pod = MakePod().Obj();
  EXPECT_EQ(pod.spec.scheduler_name, kDefaultSchedulerName);
  EXPECT_EQ(pod.status.phase, PodPhase::kPending);
  EXPECT_FALSE(pod.spec.priority.has_value());
}

TEST(PodWrapperTest, Affinity) {
  const Pod pod = MakePod()
                      .NodeAffinityIn("zone", {"a", "b"})
                      .NodeAffinityNotIn("host", {"bad"})
                      .PodAffinity("zone", MakeLabelSelector().Label("app", "db").Obj())
                      .PodAffinity("host", MakeLabelSelector().Exists("cache").Obj())
                      .PodAntiAffinity("host", MakeLabelSelector().In("app", {"web"}).Obj())
                      .PreferredPodAffinity(5, "zone", MakeLabelSelector().Obj())
                      .SpreadConstraint(1, "zone", UnsatisfiableConstraintAction::kScheduleAnyway,
                                        MakeLabelSelector().NotIn("x", {"y"}).Obj())
                      .Obj();
  ASSERT_TRUE(pod.spec.affinity.has_value());
  const NodeSelector& required = *pod.spec.affinity->node_affinity->required;
  ASSERT_EQ(required.node_selector_terms.size(), 1u);  // both expressions ANDed in one term
  EXPECT_EQ(required.node_selector_terms[0].match_expressions.size(), 2u);
  EXPECT_EQ(required.node_selector_terms[0].match_expressions[1].op, NodeSelectorOperator::kNotIn);
  EXPECT_EQ(pod.spec.affinity->pod_affinity->required.size(), 2u);
  EXPECT_EQ(pod.spec.affinity->pod_affinity->preferred.size(), 1u);
  EXPECT_EQ(pod.spec.affinity->pod_anti_affinity->required.at(0).topology_key, "host");
  EXPECT_EQ(pod.spec.topology_spread_constraints.at(0).label_selector->match_expressions.at(0).op,
            LabelSelectorOperator::kNotIn);
}

TEST(NodeWrapperTest, BuildsNode) {
  const Node node = MakeNode()
                        .Name("n1")
                        .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
                        .Label("zone", "a")
                        .Taint("k", "v", TaintEffect::kNoSchedule)
                        .Unschedulable(true)
                        .Obj();
  EXPECT_EQ(node.metadata.name, "n1");
  EXPECT_EQ(node.status.capacity, node.status.allocatable);
  EXPECT_EQ(node.status.allocatable.at("cpu").MilliValue(), 4000);
  EXPECT_EQ(node.status.allocatable.at("pods").Value(), 110);
  EXPECT_THAT(node.metadata.labels, ElementsAre(Pair("zone", "a")));
  ASSERT_EQ(node.spec.taints.size(), 1u);
  EXPECT_EQ(node.spec.taints[0].effect, TaintEffect::kNoSchedule);
  EXPECT_TRUE(node.spec.unschedulable);

  const Node smaller = MakeNode().Capacity({{"cpu", "4"}}).Allocatable({{"cpu", "3500m"}}).Obj();
  EXPECT_EQ(smaller.status.capacity.at("cpu").MilliValue(), 4000);
  EXPECT_EQ(smaller.status.allocatable.at("cpu").MilliValue(), 3500);
}

TEST(WrappersDeathTest, BadQuantityAborts) {
  EXPECT_DEATH(MakePod().Req({{"cpu", "lots"}}), "bad quantity in test: \"lots\"");
}

}  // namespace
}  // namespace trimaran::kube::testing
