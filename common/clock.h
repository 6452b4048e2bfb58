#pragma once
// The time seam. Everything that reads time or waits (queue backoff, cache expiry,
// leader election, the load watcher's windows) takes a Clock&, so tests drive time with
// FakeClock (common/testing/fake_clock.h) and never sleep.
//
// Thread-safety: implementations are safe for concurrent use.

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
