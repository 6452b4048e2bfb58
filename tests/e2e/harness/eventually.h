#pragma once
// Eventually: polls a condition until it holds or a timeout passes, for e2e tests that
// wait on real processes.
//
//   ASSERT_TRUE(Eventually([&] { return BoundPods() == 5; }, absl::Seconds(60)));
//
// Thread-safety: reentrant; `cond` runs on the calling thread.

#include <functional>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace trimaran::e2e {

// True as soon as cond() is true; false when it is still false after `timeout` (cond is
// evaluated one last time at the deadline).
inline bool Eventually(const std::function<bool()>& cond, absl::Duration timeout,
                       absl::Duration poll = absl::Milliseconds(100)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (cond()) return true;
    absl::SleepFor(poll);
  }
  return cond();
}

}  // namespace trimaran::e2e
