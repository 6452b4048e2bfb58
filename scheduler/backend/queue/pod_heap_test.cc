#include "scheduler/backend/queue/pod_heap.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched {
namespace {

using ::testing::ElementsAre;
using ::trimaran::kube::testing::MakePod;

QueuedPodInfo Info(const std::string& name, int32_t priority) {
  QueuedPodInfo info;
  info.pod = std::make_shared<const kube::Pod>(MakePod().Name(name).Priority(priority).Obj());
  return info;
}

bool ByPriority(const QueuedPodInfo& a, const QueuedPodInfo& b) {
  return kube::PodPriority(*a.pod) > kube::PodPriority(*b.pod);
}

std::vector<std::string> Drain(PodHeap& heap) {
  std::vector<std::string> names;
  while (!heap.empty()) names.push_back(heap.Pop().pod->metadata.name);
  return names;
}

TEST(PodHeapTest, PopsInOrder) {
  PodHeap heap(ByPriority);
  const int32_t priorities[] = {5, 1, 9, 3, 7, 0, 8, 2, 6, 4};
  for (int32_t p : priorities)
    heap.AddOrUpdate("k" + std::to_string(p), Info("p" + std::to_string(p), p));
  EXPECT_EQ(heap.size(), 10u);
  EXPECT_EQ(heap.Peek().pod->metadata.name, "p9");
  EXPECT_THAT(Drain(heap), ElementsAre("p9", "p8", "p7", "p6", "p5", "p4", "p3", "p2", "p1", "p0"));
}

TEST(PodHeapTest, UpdateReordersAndDeleteRemoves) {
  PodHeap heap(ByPriority);
  for (int32_t p = 0; p < 6; ++p)
    heap.AddOrUpdate("k" + std::to_string(p), Info("p" + std::to_string(p), p));
  heap.AddOrUpdate("k0", Info("p0", 100));  // lowest becomes highest
  heap.AddOrUpdate("k5", Info("p5", -1));   // highest becomes lowest
  ASSERT_NE(heap.Get("k3"), nullptr);
  EXPECT_EQ(heap.Get("k3")->pod->metadata.name, "p3");
  EXPECT_EQ(heap.Get("nope"), nullptr);
  std::optional<QueuedPodInfo> removed = heap.Delete("k2");
  ASSERT_TRUE(removed.has_value());
  EXPECT_EQ(removed->pod->metadata.name, "p2");
  EXPECT_FALSE(heap.Delete("k2").has_value());
  EXPECT_FALSE(heap.Contains("k2"));
  EXPECT_THAT(Drain(heap), ElementsAre("p0", "p4", "p3", "p1", "p5"));
}

}  // namespace
}  // namespace trimaran::sched
