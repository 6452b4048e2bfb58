#pragma once
// The time seam. Everything that reads time or waits (queue backoff, cache expiry,
// leader election, the load watcher's windows, retries and backoffs) takes a Clock&, so
// tests and the offline tools drive time with ManualClock (common/manual_clock.h; FakeClock in
// tests) and never sleep.
//
// Two ways to wait:
//   SleepUntil / SleepFor   the cancellable sleep: until a deadline on this clock or until
//                           a std::stop_token is requested, whichever comes first. This is
//                           what loops with a period or a backoff use.
//   AwaitWithDeadline       the building block for waits on a caller's own absl::Mutex and
//                           flag (e.g. a queue whose flusher is woken by Close()).
//
// Thread-safety: implementations are safe for concurrent use.

#include <stop_token>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace trimaran {

class Clock {
 public:
  virtual ~Clock() = default;

  // Wall-clock time (used for timestamps written to the API and for metric ages).
  virtual absl::Time Now() const = 0;

  // Blocks until Now() >= deadline or `cancelled` becomes true (checked under `mu`,
  // which the caller holds). Returns true if the deadline was reached. Implementations
  // must wake up when `mu` is released by a writer that changes `*cancelled`, i.e. the
  // usual absl::Condition contract.
  virtual bool AwaitWithDeadline(absl::Mutex& mu, const bool* cancelled,
                                 absl::Time deadline) const = 0;

  // Blocks until Now() >= deadline (returns true) or `stop` is requested (returns false
  // at once, also when it was requested before the call; a stop wins over a deadline
  // that has passed too). A default-constructed token never stops, so SleepUntil(t, {})
  // is a plain sleep; SleepUntil(absl::InfiniteFuture(), stop) waits for the stop.
  //
  // The default implementation waits through AwaitWithDeadline on a private mutex that
  // a std::stop_callback signals; FakeClock overrides it so that Advance/SetTime wake
  // sleepers and tests can see who sleeps.
  virtual bool SleepUntil(absl::Time deadline, std::stop_token stop) const;

  // SleepUntil(Now() + d, stop).
  bool SleepFor(absl::Duration d, std::stop_token stop) const {
    return SleepUntil(Now() + d, std::move(stop));
  }
};

// The process clock. Stateless.
class RealClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  bool AwaitWithDeadline(absl::Mutex& mu, const bool* cancelled,
                         absl::Time deadline) const override;

  // A process-wide instance.
  static RealClock& Get();
};

}  // namespace trimaran
