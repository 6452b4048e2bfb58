#pragma once
// ManualClock: a Clock whose time only moves when its owner says so (SetTime / Advance).
// The offline tools (trimaranctl score) run the real
// scheduling code at a chosen instant with it; tests use it as FakeClock
// (common/testing/fake_clock.h).
//
// SleepUntil / SleepFor block on the clock's own mutex: SetTime / Advance wake every
// sleeper whose deadline the new time reaches, and a stop request wakes its sleeper at
// once; nothing polls. AwaitWithDeadline (a wait on the caller's mutex and flag) returns
// once the manual time reaches the deadline (after an Advance by another thread) or the
// caller's flag turns true; it rechecks every millisecond of real time, so a waiter
// never needs a real timeout to pass.
//
// The clock knows who sleeps, so its owner can drive time deterministically instead of
// sleeping in real time:
//
//   std::thread t([&] { limiter.Accept(); });   // blocks on the clock
//   ASSERT_TRUE(clock.AwaitSleepers(1));        // now it surely sleeps
//   clock.AdvanceToNextDeadline();              // and now it wakes
//
// A sleeper counts from the moment it blocks until its deadline is reached (by the
// manual time, at once when SetTime/Advance passes it), its stop is requested, or (for
// AwaitWithDeadline) it returns.
//
// Thread-safety: safe for concurrent use.

#include <cstddef>
#include <list>
#include <stop_token>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"

namespace trimaran {

class ManualClock final : public Clock {
 public:
  // Starts at a fixed, arbitrary instant so test output is reproducible.
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
    // Lock order: the caller's mu, then mu_ (never the other way round).
    auto sleeper = Register(deadline);
    bool reached = false;
    while (true) {
      if (*cancelled) break;
      if (Now() >= deadline) {
        reached = true;
        break;
      }
      mu.AwaitWithTimeout(absl::Condition(cancelled), absl::Milliseconds(1));
    }
    Unregister(sleeper);
    return reached;
  }

  bool SleepUntil(absl::Time deadline, std::stop_token stop) const override {
    if (stop.stop_requested()) return false;
    bool stopped = false;
    // Runs at once when stop is already requested (mu_ is not held here). Destroyed after
    // the lock below is released, so a callback running on another thread can finish.
    std::stop_callback on_stop(stop, [&] {
      absl::MutexLock lock(&mu_);
      stopped = true;
    });
    absl::MutexLock lock(&mu_);
    if (stopped) return false;
    auto sleeper = sleepers_.insert(sleepers_.end(), Sleeper{deadline, &stopped});
    auto woken = [this, &stopped, deadline] {
      mu_.AssertReaderHeld();
      return stopped || now_ >= deadline;
    };
    mu_.Await(absl::Condition(&woken));
    sleepers_.erase(sleeper);
    return !stopped;
  }

  // Threads that sleep on this clock now (see the file comment).
  size_t sleepers() const {
    absl::MutexLock lock(&mu_);
    return CountSleepers();
  }

  // Waits (real time, at most `timeout`) until at least `n` threads sleep on this clock.
  // False on timeout or when `stop` is requested.
  bool AwaitSleepers(size_t n, absl::Duration timeout = absl::Seconds(10),
                     std::stop_token stop = {}) const {
    bool stopped = false;
    std::stop_callback on_stop(stop, [&] {
      absl::MutexLock lock(&mu_);
      stopped = true;
    });
    absl::MutexLock lock(&mu_);
    auto ready = [this, &stopped, n] {
      mu_.AssertReaderHeld();
      return stopped || CountSleepers() >= n;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&ready), timeout) && !stopped;
  }

  // The earliest finite deadline of the threads sleeping now; InfiniteFuture if none.
  absl::Time NextDeadline() const {
    absl::MutexLock lock(&mu_);
    return NextDeadlineLocked();
  }

  // Moves the time to NextDeadline(), waking the earliest sleepers. False (and no
  // change) when no thread sleeps with a finite deadline.
  bool AdvanceToNextDeadline() {
    absl::MutexLock lock(&mu_);
    const absl::Time next = NextDeadlineLocked();
    if (next == absl::InfiniteFuture()) return false;
    now_ = next;
    return true;
  }

  // Waits (real time, at most `timeout`) until at least `n` threads sleep on this clock
  // and one of them has a finite deadline, then advances to the earliest deadline, in
  // one step. False on timeout or when `stop` is requested.
  bool AdvanceWhenSleeping(size_t n, absl::Duration timeout = absl::Seconds(10),
                           std::stop_token stop = {}) {
    bool stopped = false;
    std::stop_callback on_stop(stop, [&] {
      absl::MutexLock lock(&mu_);
      stopped = true;
    });
    absl::MutexLock lock(&mu_);
    auto ready = [this, &stopped, n] {
      mu_.AssertReaderHeld();
      return stopped || (CountSleepers() >= n && NextDeadlineLocked() != absl::InfiniteFuture());
    };
    if (!mu_.AwaitWithTimeout(absl::Condition(&ready), timeout) || stopped) return false;
    now_ = NextDeadlineLocked();
    return true;
  }

 private:
  struct Sleeper {
    absl::Time deadline;
    const bool* stopped;  // SleepUntil's stop flag (guarded by mu_); null for AwaitWithDeadline
  };

  std::list<Sleeper>::iterator Register(absl::Time deadline) const {
    absl::MutexLock lock(&mu_);
    return sleepers_.insert(sleepers_.end(), Sleeper{deadline, nullptr});
  }
  void Unregister(std::list<Sleeper>::iterator sleeper) const {
    absl::MutexLock lock(&mu_);
    sleepers_.erase(sleeper);
  }

  bool Asleep(const Sleeper& s) const ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return (s.stopped == nullptr || !*s.stopped) && s.deadline > now_;
  }
  size_t CountSleepers() const ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    size_t n = 0;
    for (const Sleeper& s : sleepers_) n += Asleep(s) ? 1 : 0;
    return n;
  }
  absl::Time NextDeadlineLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    absl::Time next = absl::InfiniteFuture();
    for (const Sleeper& s : sleepers_) {
      if (Asleep(s) && s.deadline < next) next = s.deadline;
    }
    return next;
  }

  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
  mutable std::list<Sleeper> sleepers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran
