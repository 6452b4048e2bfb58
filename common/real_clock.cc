#include "common/clock.h"

namespace trimaran {

bool Clock::SleepUntil(absl::Time deadline, std::stop_token stop) const {
  if (stop.stop_requested()) return false;
  absl::Mutex mu;
  bool stopped = false;
  // Runs at once (on this thread, mu not held) when stop is already requested. Declared
  // before the lock, so it is destroyed after the lock is released: a callback running
  // on another thread can always finish.
  std::stop_callback on_stop(stop, [&] {
    absl::MutexLock lock(&mu);
    stopped = true;
  });
  absl::MutexLock lock(&mu);
  if (stopped) return false;
  AwaitWithDeadline(mu, &stopped, deadline);
  return !stopped;
}

bool RealClock::AwaitWithDeadline(absl::Mutex& mu, const bool* cancelled,
                                  absl::Time deadline) const {
  mu.AwaitWithDeadline(absl::Condition(cancelled), deadline);
  return !*cancelled && absl::Now() >= deadline;
}

RealClock& RealClock::Get() {
  static RealClock* clock = new RealClock();
  return *clock;
}

}  // namespace trimaran
