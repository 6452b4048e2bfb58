#include "scheduler/plugins/queue_sort/priority_sort.h"

#include <memory>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "common/testing/status_matchers.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/testing/fake_handle.h"

namespace trimaran::sched::plugins {
namespace {

using kube::testing::MakePod;

QueuedPodInfo Queued(std::optional<int32_t> priority, absl::Time timestamp) {
  auto pod = MakePod().Name("p");
  if (priority.has_value()) pod.Priority(*priority);
  QueuedPodInfo info;
  info.pod = std::make_shared<const kube::Pod>(std::move(pod).Obj());
  info.timestamp = timestamp;
  return info;
}

TEST(PrioritySortTest, Less) {
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  const absl::Time t1 = t0 + absl::Seconds(1);
  struct Case {
    std::string name;
    QueuedPodInfo a;
    QueuedPodInfo b;
    bool want;
  };
  const Case cases[] = {
      // 100 > 50: a first, whatever the timestamps.
      {"higher priority first", Queued(100, t1), Queued(50, t0), true},
      {"lower priority later", Queued(50, t0), Queued(100, t1), false},
      // Equal priority: the earlier timestamp first.
      {"equal priority, earlier first", Queued(10, t0), Queued(10, t1), true},
      {"equal priority, later second", Queued(10, t1), Queued(10, t0), false},
      // Equal in both: equivalent, so neither is less.
      {"equal", Queued(10, t0), Queued(10, t0), false},
      // Unset priority reads as 0: -1 < 0 < 1.
      {"unset is zero vs negative", Queued(std::nullopt, t1), Queued(-1, t0), true},
      {"unset is zero vs positive", Queued(std::nullopt, t0), Queued(1, t1), false},
  };
  PrioritySort plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.Less(c.a, c.b), c.want);
  }
}

TEST(PrioritySortTest, Factory) {
  auto handle = testing::NewHandleForTest();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<Plugin> plugin,
                                PrioritySort::New(PluginArgs{}, *handle));
  EXPECT_EQ(plugin->Name(), "PrioritySort");
  EXPECT_NE(dynamic_cast<QueueSortPlugin*>(plugin.get()), nullptr);
}

}  // namespace
}  // namespace trimaran::sched::plugins
