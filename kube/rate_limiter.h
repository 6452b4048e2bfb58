#pragma once
// A token bucket: the client-side QPS/burst limit of kube-scheduler's
// clientConnection.qps / .burst (client-go's flowcontrol.NewTokenBucketRateLimiter).
//
// The bucket holds up to `burst` tokens and refills at `qps` tokens per second; every
// request takes one. Accept() blocks until a token is available (first come, first
// served: each caller reserves the next free slot, so waiters never starve).
// qps <= 0 disables limiting.
//
// Thread-safety: safe for concurrent use. Time comes from the Clock seam.

#include <stop_token>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"

namespace trimaran::kube {

class RateLimiter {
 public:
  RateLimiter(double qps, int burst, const Clock& clock);

  // Waits for a token. Returns Cancelled if `stop` is requested while waiting.
  absl::Status Accept(std::stop_token stop = {});
  // Takes a token if one is available now.
  bool TryAccept();
  // How long a caller arriving now would wait (for metrics and tests).
  absl::Duration CurrentDelay();

 private:
  // Reserves the next token; returns when it may be used.
  absl::Time Reserve() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Refill(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const double qps_;
  const double burst_;
  const Clock& clock_;
  absl::Mutex mu_;
  double tokens_ ABSL_GUARDED_BY(mu_);  // may go negative: reservations in the future
  absl::Time last_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::kube
