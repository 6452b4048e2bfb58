#include "scheduler/backend/cache/pod_group_store.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched {
namespace {

std::shared_ptr<const kube::Pod> Member(const std::string& name, const std::string& group) {
  kube::Pod pod = kube::testing::MakePod().Name(name).Namespace("jobs").Obj();
  if (!group.empty()) pod.metadata.labels[std::string(kube::kPodGroupLabel)] = group;
  return std::make_shared<const kube::Pod>(std::move(pod));
}

TEST(PodGroupStoreTest, KeepsGroupsAndLabelledPods) {
  PodGroupStore store;
  EXPECT_FALSE(store.Health().ok());
  kube::PodGroup pg;
  pg.metadata.namespace_name = "jobs";
  pg.metadata.name = "g";
  pg.spec.min_member = 2;
  store.Apply(std::make_shared<const kube::PodGroup>(pg));
  store.SetHealth(absl::OkStatus());
  EXPECT_TRUE(store.Health().ok());
  ASSERT_NE(store.Get("jobs", "g"), nullptr);
  EXPECT_EQ(store.Get("jobs", "g")->spec.min_member, 2);
  EXPECT_EQ(store.Get("other", "g"), nullptr);

  store.ApplyPod(Member("a", "g"));
  store.ApplyPod(Member("b", "g"));
  store.ApplyPod(Member("c", ""));
  EXPECT_EQ(store.Pods("jobs", "g").size(), 2u);

  // A label change moves the pod; deletion drops it.
  store.ApplyPod(Member("b", "h"));
  EXPECT_EQ(store.Pods("jobs", "g").size(), 1u);
  EXPECT_EQ(store.Pods("jobs", "h").size(), 1u);
  store.RemovePod(*Member("a", "g"));
  EXPECT_TRUE(store.Pods("jobs", "g").empty());

  store.Remove(pg);
  EXPECT_EQ(store.Get("jobs", "g"), nullptr);
}

}  // namespace
}  // namespace trimaran::sched
