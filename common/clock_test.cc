#include "common/clock.h"

#include <thread>

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
  EXPECT_TRUE(RealClock::Get().AwaitWithDeadline(mu, &cancelled,
                                                 absl::Now() + absl::Milliseconds(2)));
}

}  // namespace
}  // namespace trimaran
