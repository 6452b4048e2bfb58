#pragma once
// FakeClock: the tests' name for ManualClock (common/manual_clock.h), a Clock whose time
// only moves when a test says so (SetTime / Advance), plus FakeClockDriver below.
//
// SleepUntil / SleepFor block on the clock's own mutex: SetTime / Advance wake every
// sleeper whose deadline the new time reaches, and a stop request wakes its sleeper at
// once; nothing polls. AwaitWithDeadline (a wait on the caller's mutex and flag) returns
// once the fake time reaches the deadline (after an Advance by another thread) or the
// caller's flag turns true; it rechecks every millisecond of real time, so a waiter
// never needs a real timeout to pass.
//
// The clock knows who sleeps, so a test can drive time deterministically instead of
// sleeping in real time:
//
//   std::thread t([&] { limiter.Accept(); });   // blocks on the clock
//   ASSERT_TRUE(clock.AwaitSleepers(1));        // now it surely sleeps
//   clock.AdvanceToNextDeadline();              // and now it wakes
//
// A sleeper counts from the moment it blocks until its deadline is reached (by the fake
// time, at once when SetTime/Advance passes it), its stop is requested, or (for
// AwaitWithDeadline) it returns. FakeClockDriver below advances a clock whenever enough
// threads sleep, for tests whose code under test backs off or retries on the clock and
// whose assertions do not depend on how long.
//
// Thread-safety: safe for concurrent use.

#include <cstddef>
#include <stop_token>
#include <thread>

#include "absl/time/time.h"
#include "common/manual_clock.h"

namespace trimaran::testing {

using FakeClock = ::trimaran::ManualClock;

// Drives a FakeClock on a thread of its own: whenever at least `sleepers` threads sleep on
// it, moves it to the earliest deadline (FakeClock::AdvanceToNextDeadline). For tests
// whose code under test waits on the clock (backoff, retries, periods) and whose
// assertions do not depend on how long; time then passes as fast as the code sleeps,
// in deadline order. Stops (and joins) when destroyed.
class FakeClockDriver {
 public:
  explicit FakeClockDriver(FakeClock& clock, size_t sleepers = 1)
      : thread_([&clock, sleepers](std::stop_token stop) {
          while (!stop.stop_requested()) {
            clock.AdvanceWhenSleeping(sleepers, absl::InfiniteDuration(), stop);
          }
        }) {}
  FakeClockDriver(const FakeClockDriver&) = delete;
  FakeClockDriver& operator=(const FakeClockDriver&) = delete;

 private:
  std::jthread thread_;
};

}  // namespace trimaran::testing
