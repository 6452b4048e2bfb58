#include "common/clock.h"

namespace trimaran {

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
