#include "scheduler/backend/queue/backoff.h"

#include <limits>

#include "gtest/gtest.h"

namespace trimaran::sched {
namespace {

TEST(BackoffPolicyTest, DurationDoublesAndCaps) {
  struct Case {
    int attempts;
    absl::Duration want;
  };
  const BackoffPolicy policy;  // initial 1 s, max 10 s
  const Case cases[] = {
      {0, absl::ZeroDuration()},                             // never attempted: no backoff
      {1, absl::Seconds(1)},                                 // 1 × 2^0
      {2, absl::Seconds(2)},                                 // 1 × 2^1
      {3, absl::Seconds(4)},                                 // 1 × 2^2
      {4, absl::Seconds(8)},                                 // 1 × 2^3
      {5, absl::Seconds(10)},                                // 16 capped at 10
      {6, absl::Seconds(10)},                                // 32 capped at 10
      {std::numeric_limits<int>::max(), absl::Seconds(10)},  // saturates, no overflow
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.attempts);
    EXPECT_EQ(policy.Duration(c.attempts), c.want);
  }
}

TEST(BackoffPolicyTest, CustomPolicy) {
  const BackoffPolicy policy{.initial = absl::Milliseconds(300), .max = absl::Seconds(1)};
  EXPECT_EQ(policy.Duration(1), absl::Milliseconds(300));
  EXPECT_EQ(policy.Duration(2), absl::Milliseconds(600));  // 300 × 2
  EXPECT_EQ(policy.Duration(3), absl::Seconds(1));         // 1200 capped at 1000
  // initial above max: max.
  const BackoffPolicy inverted{.initial = absl::Seconds(5), .max = absl::Seconds(2)};
  EXPECT_EQ(inverted.Duration(1), absl::Seconds(2));
}

TEST(BackoffPolicyTest, ExpiryAndIsBackingOff) {
  const BackoffPolicy policy;
  QueuedPodInfo pod;
  pod.timestamp = absl::FromUnixSeconds(100);
  pod.attempts = 3;  // 4 s
  EXPECT_EQ(policy.Expiry(pod), absl::FromUnixSeconds(104));
  EXPECT_TRUE(policy.IsBackingOff(pod, absl::FromUnixSeconds(103)));
  EXPECT_FALSE(policy.IsBackingOff(pod, absl::FromUnixSeconds(104)));  // expiry == now: done
}

}  // namespace
}  // namespace trimaran::sched
