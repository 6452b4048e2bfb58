#include "scheduler/backend/queue/backoff.h"

#include <algorithm>

namespace trimaran::sched {

absl::Duration BackoffPolicy::Duration(int attempts) const {
  if (attempts <= 0) return absl::ZeroDuration();
  absl::Duration d = std::min(initial, max);
  for (int i = 1; i < attempts; ++i) {
    // d + d > max, written so that it cannot overflow.
    if (d > max - d) return max;
    d += d;
  }
  return d;
}

}  // namespace trimaran::sched
