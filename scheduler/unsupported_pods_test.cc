#include "scheduler/unsupported_pods.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched {
namespace {

using ::testing::HasSubstr;
using ::trimaran::kube::testing::MakePod;

TEST(RefuseUnsupportedTest, PlainPodsAreScheduled) {
  EXPECT_FALSE(RefuseUnsupported(MakePod().Name("p").Req({{"cpu", "1"}}).Obj()).has_value());
}

TEST(RefuseUnsupportedTest, ResourceClaimsAreDynamicResources) {
  kube::Pod pod = MakePod().Name("p").Obj();
  pod.spec.resource_claims = {{.name = "gpu", .resource_claim_template_name = "one-gpu"},
                              {.name = "nic", .resource_claim_name = "shared"}};
  std::optional<UnsupportedPod> refused = RefuseUnsupported(pod);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->feature, "dynamic_resources");
  EXPECT_EQ(refused->status.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(refused->status.plugin(), "DynamicResources");
  EXPECT_EQ(refused->status.Message(),
            "pod uses Dynamic Resource Allocation (spec.resourceClaims: gpu, nic), which trimaran "
            "does not implement; schedule it with kube-scheduler (spec.schedulerName: "
            "default-scheduler)");
}

TEST(RefuseUnsupportedTest, ASchedulingGroupIsTheWorkloadApi) {
  kube::Pod pod = MakePod().Name("p").Obj();
  pod.spec.scheduling_group = kube::PodSchedulingGroup{.pod_group_name = "spark-pi"};
  std::optional<UnsupportedPod> refused = RefuseUnsupported(pod);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->feature, "workload");
  EXPECT_EQ(refused->status.plugin(), "GangScheduling");
  EXPECT_THAT(refused->status.Message(), HasSubstr("scheduling group \"spark-pi\""));
  EXPECT_THAT(refused->status.Message(), HasSubstr("Coscheduling"));
}

}  // namespace
}  // namespace trimaran::sched
