#include "kube/rate_limiter.h"

#include <atomic>
#include <thread>

#include "common/testing/fake_clock.h"
#include "gtest/gtest.h"

namespace trimaran::kube {
namespace {

TEST(RateLimiterTest, BurstThenRefillAtQps) {
  testing::FakeClock clock;
  RateLimiter limiter(/*qps=*/10, /*burst=*/3, clock);
  // The bucket starts full: 3 immediate tokens.
  EXPECT_TRUE(limiter.TryAccept());
  EXPECT_TRUE(limiter.TryAccept());
  EXPECT_TRUE(limiter.TryAccept());
  EXPECT_FALSE(limiter.TryAccept());
  // 10 qps: one token per 100 ms.
  EXPECT_EQ(limiter.CurrentDelay(), absl::Milliseconds(100));
  clock.Advance(absl::Milliseconds(100));
  EXPECT_TRUE(limiter.TryAccept());
  EXPECT_FALSE(limiter.TryAccept());
  // Refill never exceeds the burst.
  clock.Advance(absl::Seconds(10));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.TryAccept()) << i;
  EXPECT_FALSE(limiter.TryAccept());
}

TEST(RateLimiterTest, AcceptWaitsForTheClock) {
  testing::FakeClock clock;
  RateLimiter limiter(/*qps=*/1, /*burst=*/1, clock);
  ASSERT_TRUE(limiter.Accept().ok());
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    EXPECT_TRUE(limiter.Accept().ok());
    done = true;
  });
  // Not before a second of fake time has passed.
  ASSERT_TRUE(clock.AwaitSleepers(1));
  EXPECT_FALSE(done.load());
  clock.Advance(absl::Seconds(1));
  waiter.join();
  EXPECT_TRUE(done.load());
}

TEST(RateLimiterTest, AcceptIsCancelledByStop) {
  testing::FakeClock clock;
  RateLimiter limiter(/*qps=*/1, /*burst=*/1, clock);
  ASSERT_TRUE(limiter.Accept().ok());
  std::stop_source stop;
  std::thread waiter(
      [&] { EXPECT_EQ(limiter.Accept(stop.get_token()).code(), absl::StatusCode::kCancelled); });
  stop.request_stop();
  waiter.join();
}

TEST(RateLimiterTest, ZeroQpsIsUnlimited) {
  testing::FakeClock clock;
  RateLimiter limiter(0, 0, clock);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(limiter.TryAccept());
  EXPECT_EQ(limiter.CurrentDelay(), absl::ZeroDuration());
}

}  // namespace
}  // namespace trimaran::kube
