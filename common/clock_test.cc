#include "common/clock.h"

#include <atomic>
#include <stop_token>
#include <thread>
#include <vector>

#include "common/testing/fake_clock.h"
#include "gtest/gtest.h"

namespace trimaran {
namespace {

TEST(FakeClockTest, AdvanceAndSet) {
  testing::FakeClock clock;
  absl::Time t0 = clock.Now();
  clock.Advance(absl::Seconds(5));
  EXPECT_EQ(clock.Now() - t0, absl::Seconds(5));
  clock.SetTime(t0);
  EXPECT_EQ(clock.Now(), t0);
}

TEST(FakeClockTest, AwaitReturnsWhenAnotherThreadAdvancesPastDeadline) {
  testing::FakeClock clock;
  absl::Mutex mu;
  bool cancelled = false;
  absl::Time deadline = clock.Now() + absl::Minutes(5);
  std::thread advancer([&] { clock.Advance(absl::Minutes(5)); });
  bool reached;
  {
    absl::MutexLock lock(&mu);
    reached = clock.AwaitWithDeadline(mu, &cancelled, deadline);
  }
  advancer.join();
  EXPECT_TRUE(reached);
}

TEST(FakeClockTest, AwaitReturnsFalseWhenCancelled) {
  testing::FakeClock clock;
  absl::Mutex mu;
  bool cancelled = false;
  std::thread canceller([&] {
    absl::MutexLock lock(&mu);
    cancelled = true;
  });
  bool reached;
  {
    absl::MutexLock lock(&mu);
    reached = clock.AwaitWithDeadline(mu, &cancelled, clock.Now() + absl::Hours(1));
  }
  canceller.join();
  EXPECT_FALSE(reached);
}

TEST(RealClockTest, AwaitHonoursShortDeadline) {
  absl::Mutex mu;
  bool cancelled = false;
  absl::MutexLock lock(&mu);
  EXPECT_TRUE(
      RealClock::Get().AwaitWithDeadline(mu, &cancelled, absl::Now() + absl::Milliseconds(2)));
}

TEST(FakeClockTest, SleepUntilReturnsTrueWhenAdvancePassesTheDeadline) {
  testing::FakeClock clock;
  const absl::Time deadline = clock.Now() + absl::Seconds(30);
  std::atomic<bool> woke{false};
  bool reached = false;
  std::thread sleeper([&] {
    reached = clock.SleepUntil(deadline, {});
    woke = true;
  });
  ASSERT_TRUE(clock.AwaitSleepers(1));
  EXPECT_EQ(clock.NextDeadline(), deadline);
  clock.Advance(absl::Seconds(29));
  EXPECT_EQ(clock.sleepers(), 1u);
  EXPECT_FALSE(woke.load());
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(clock.sleepers(), 0u) << "a reached deadline no longer counts";
  sleeper.join();
  EXPECT_TRUE(reached);
}

TEST(FakeClockTest, SleepUntilAPassedDeadlineReturnsAtOnce) {
  testing::FakeClock clock;
  EXPECT_TRUE(clock.SleepUntil(clock.Now(), {}));
  EXPECT_TRUE(clock.SleepUntil(clock.Now() - absl::Seconds(1), {}));
  EXPECT_TRUE(clock.SleepFor(absl::ZeroDuration(), {}));
}

TEST(FakeClockTest, SleepReturnsFalseWhenStopWasRequestedBefore) {
  testing::FakeClock clock;
  std::stop_source stop;
  stop.request_stop();
  EXPECT_FALSE(clock.SleepFor(absl::Hours(1), stop.get_token()));
  EXPECT_FALSE(clock.SleepUntil(clock.Now(), stop.get_token())) << "stop wins over a deadline";
  EXPECT_EQ(clock.sleepers(), 0u);
}

TEST(FakeClockTest, StopDuringSleepWakesTheSleeperAtOnce) {
  testing::FakeClock clock;
  std::stop_source stop;
  bool reached = true;
  std::thread sleeper([&] { reached = clock.SleepFor(absl::Hours(1), stop.get_token()); });
  ASSERT_TRUE(clock.AwaitSleepers(1));
  const absl::Time before = clock.Now();
  stop.request_stop();
  sleeper.join();  // without any Advance
  EXPECT_FALSE(reached);
  EXPECT_EQ(clock.Now(), before);
  EXPECT_EQ(clock.sleepers(), 0u);
}

TEST(FakeClockTest, SleepForWithAnInfiniteDurationWaitsForTheStop) {
  testing::FakeClock clock;
  std::stop_source stop;
  bool reached = true;
  std::thread sleeper(
      [&] { reached = clock.SleepUntil(absl::InfiniteFuture(), stop.get_token()); });
  ASSERT_TRUE(clock.AwaitSleepers(1));
  EXPECT_EQ(clock.NextDeadline(), absl::InfiniteFuture());
  EXPECT_FALSE(clock.AdvanceToNextDeadline()) << "nothing finite to advance to";
  clock.Advance(absl::Hours(24 * 365));
  EXPECT_EQ(clock.sleepers(), 1u);
  stop.request_stop();
  sleeper.join();
  EXPECT_FALSE(reached);
}

TEST(FakeClockTest, AdvanceToNextDeadlineWakesSleepersInDeadlineOrder) {
  testing::FakeClock clock;
  const absl::Time t0 = clock.Now();
  absl::Mutex mu;
  std::vector<int> order;
  auto sleep = [&](int id, absl::Duration d) {
    return std::thread([&, id, d] {
      EXPECT_TRUE(clock.SleepFor(d, {}));
      absl::MutexLock lock(&mu);
      order.push_back(id);
    });
  };
  std::thread late = sleep(2, absl::Seconds(20));
  std::thread early = sleep(1, absl::Seconds(5));
  ASSERT_TRUE(clock.AwaitSleepers(2));
  ASSERT_TRUE(clock.AdvanceToNextDeadline());
  EXPECT_EQ(clock.Now(), t0 + absl::Seconds(5));
  early.join();
  ASSERT_TRUE(clock.AdvanceWhenSleeping(1));
  EXPECT_EQ(clock.Now(), t0 + absl::Seconds(20));
  late.join();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_FALSE(clock.AdvanceToNextDeadline());
  EXPECT_FALSE(clock.AdvanceWhenSleeping(1, absl::Milliseconds(1)));
}

TEST(FakeClockTest, AwaitWithDeadlineCountsAsASleeper) {
  testing::FakeClock clock;
  absl::Mutex mu;
  bool cancelled = false;
  const absl::Time deadline = clock.Now() + absl::Minutes(1);
  std::thread waiter([&] {
    absl::MutexLock lock(&mu);
    EXPECT_TRUE(clock.AwaitWithDeadline(mu, &cancelled, deadline));
  });
  ASSERT_TRUE(clock.AwaitSleepers(1));
  EXPECT_EQ(clock.NextDeadline(), deadline);
  ASSERT_TRUE(clock.AdvanceToNextDeadline());
  waiter.join();
  EXPECT_EQ(clock.sleepers(), 0u);
}

TEST(FakeClockTest, DriverRunsBackoffLoopsWithoutRealTime) {
  testing::FakeClock clock;
  const absl::Time t0 = clock.Now();
  testing::FakeClockDriver driver(clock);
  // 100 sleeps of an hour each: done in fake time only.
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(clock.SleepFor(absl::Hours(1), {}));
  EXPECT_EQ(clock.Now(), t0 + absl::Hours(100));
}

TEST(RealClockTest, SleepForReachesAShortDeadline) {
  const absl::Time start = absl::Now();
  EXPECT_TRUE(RealClock::Get().SleepFor(absl::Milliseconds(5), {}));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(5));
  std::stop_source never;
  EXPECT_TRUE(RealClock::Get().SleepUntil(absl::Now() + absl::Milliseconds(1), never.get_token()));
}

TEST(RealClockTest, SleepReturnsFalseWhenStopWasRequestedBefore) {
  std::stop_source stop;
  stop.request_stop();
  const absl::Time start = absl::Now();
  EXPECT_FALSE(RealClock::Get().SleepFor(absl::Hours(1), stop.get_token()));
  EXPECT_FALSE(RealClock::Get().SleepUntil(absl::InfinitePast(), stop.get_token()));
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

TEST(RealClockTest, StopDuringSleepWakesTheSleeper) {
  std::stop_source stop;
  std::atomic<bool> sleeping{false};
  bool reached = true;
  const absl::Time start = absl::Now();
  std::thread sleeper([&] {
    sleeping = true;
    reached = RealClock::Get().SleepUntil(absl::InfiniteFuture(), stop.get_token());
  });
  while (!sleeping.load()) std::this_thread::yield();
  stop.request_stop();
  sleeper.join();
  EXPECT_FALSE(reached);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

}  // namespace
}  // namespace trimaran
