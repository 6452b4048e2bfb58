#pragma once
// BackoffPolicy: how long a pod that failed a scheduling attempt waits in backoffQ
// before it may be tried again (spec kube-scheduler.md §5.2):
//
//   backoff(attempts) = 0                                   if attempts == 0
//                     = min(initial × 2^(attempts−1), max)  otherwise
//   expiry            = QueuedPodInfo::timestamp + backoff(attempts)
//
// With the defaults (podInitialBackoffSeconds 1, podMaxBackoffSeconds 10) the waits are
// 1, 2, 4, 8, 10, 10, ... seconds. The doubling saturates at `max` and never overflows,
// whatever the number of attempts.
//
// Thread-safety: an immutable value; safe for concurrent use.

#include "absl/time/time.h"
#include "scheduler/framework/types.h"

namespace trimaran::sched {

struct BackoffPolicy {
  // Upstream's DefaultPodInitialBackoffDuration and DefaultPodMaxBackoffDuration.
  static constexpr absl::Duration kDefaultInitial = absl::Seconds(1);
  static constexpr absl::Duration kDefaultMax = absl::Seconds(10);

  absl::Duration initial = kDefaultInitial;
  absl::Duration max = kDefaultMax;

  // backoff(attempts) above. Requires initial >= 0 and max >= 0.
  absl::Duration Duration(int attempts) const;
  // When `pod` leaves backoff: pod.timestamp + Duration(pod.attempts).
  absl::Time Expiry(const QueuedPodInfo& pod) const {
    return pod.timestamp + Duration(pod.attempts);
  }
  // Still backing off at `now` (expiry strictly after now, as upstream).
  bool IsBackingOff(const QueuedPodInfo& pod, absl::Time now) const { return Expiry(pod) > now; }
};

}  // namespace trimaran::sched
