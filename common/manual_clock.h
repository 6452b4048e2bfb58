#pragma once
// ManualClock: a Clock whose time only moves when its owner says so (SetTime /
// Advance). The offline tools (trimaranctl score, the simulator) run the real scheduling
// code at a chosen instant with it; tests use it as FakeClock
// (common/testing/fake_clock.h).
//
// AwaitWithDeadline returns once the manual time reaches the deadline (after an Advance
// by another thread) or the caller's flag turns true. It rechecks every millisecond of
// real time, so a waiter never needs a real timeout to pass.
//
// Thread-safety: safe for concurrent use.

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"

namespace trimaran {

class ManualClock : public Clock {
 public:
  // Starts at a fixed, arbitrary instant so output is reproducible.
  explicit ManualClock(absl::Time start = absl::FromUnixSeconds(1'700'000'000)) : now_(start) {}

  absl::Time Now() const override {
    absl::MutexLock lock(&mu_);
    return now_;
  }

  void SetTime(absl::Time t) {
    absl::MutexLock lock(&mu_);
    now_ = t;
  }

  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    now_ += d;
  }

  bool AwaitWithDeadline(absl::Mutex& mu, const bool* cancelled,
                         absl::Time deadline) const override {
    while (true) {
      if (*cancelled) return false;
      if (Now() >= deadline) return true;
      mu.AwaitWithTimeout(absl::Condition(cancelled), absl::Milliseconds(1));
    }
  }

 private:
  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran
