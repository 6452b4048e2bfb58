#include "scheduler/dedicated_threads.h"

#include <atomic>
#include <functional>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace trimaran::sched {
namespace {

TEST(DedicatedThreadsTest, EachTaskRunsAtOnceOnItsOwnThreadEvenWhileOthersBlock) {
  DedicatedThreads threads;
  absl::Notification release;
  constexpr int kBlocked = 50;
  std::atomic<int> started{0};
  for (int i = 0; i < kBlocked; ++i) {
    std::function<void()> task = [&] {
      started.fetch_add(1);
      release.WaitForNotification();
    };
    ASSERT_TRUE(threads.Start(&task).ok());
    EXPECT_FALSE(task) << "moved out";
  }
  // One more task completes although 50 block.
  absl::Notification ran;
  std::function<void()> quick = [&] { ran.Notify(); };
  ASSERT_TRUE(threads.Start(&quick).ok());
  EXPECT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(10)));
  while (started.load() < kBlocked) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_GE(threads.running(), kBlocked);
  release.Notify();
  threads.Drain();
  EXPECT_EQ(threads.running(), 0);
}

TEST(DedicatedThreadsTest, DrainWaitsForTasksStartedByTasks) {
  DedicatedThreads threads;
  std::atomic<int> done{0};
  std::function<void()> outer = [&] {
    absl::SleepFor(absl::Milliseconds(5));
    std::function<void()> inner = [&] {
      absl::SleepFor(absl::Milliseconds(5));
      done.fetch_add(1);
    };
    ASSERT_TRUE(threads.Start(&inner).ok());
    done.fetch_add(1);
  };
  ASSERT_TRUE(threads.Start(&outer).ok());
  threads.Drain();
  EXPECT_EQ(done.load(), 2);
}

TEST(DedicatedThreadsTest, FinishedThreadsAreJoinedByTheNextStart) {
  DedicatedThreads threads;
  for (int i = 0; i < 200; ++i) {
    std::function<void()> task = [] {};
    ASSERT_TRUE(threads.Start(&task).ok());
  }
  threads.Drain();
  EXPECT_EQ(threads.running(), 0);
}

TEST(DedicatedThreadsTest, TheDestructorWaitsForRunningTasks) {
  std::atomic<bool> finished{false};
  {
    DedicatedThreads threads;
    std::function<void()> task = [&] {
      absl::SleepFor(absl::Milliseconds(20));
      finished.store(true);
    };
    ASSERT_TRUE(threads.Start(&task).ok());
  }
  EXPECT_TRUE(finished.load());
}

}  // namespace
}  // namespace trimaran::sched
