#include "kube/rate_limiter.h"

#include <algorithm>

namespace trimaran::kube {

RateLimiter::RateLimiter(double qps, int burst, const Clock& clock)
    : qps_(qps), burst_(std::max(1, burst)), clock_(clock), tokens_(burst_), last_(clock.Now()) {}

void RateLimiter::Refill(absl::Time now) {
  if (now > last_) {
    tokens_ = std::min(burst_, tokens_ + absl::ToDoubleSeconds(now - last_) * qps_);
    last_ = now;
  }
}

absl::Time RateLimiter::Reserve() {
  absl::Time now = clock_.Now();
  Refill(now);
  tokens_ -= 1;
  if (tokens_ >= 0) return now;
  return now + absl::Seconds(-tokens_ / qps_);
}

absl::Status RateLimiter::Accept(std::stop_token stop) {
  if (qps_ <= 0) return absl::OkStatus();
  absl::Time when;
  {
    absl::MutexLock lock(&mu_);
    when = Reserve();
  }
  // Waits outside the bucket's lock.
  if (clock_.Now() >= when) return absl::OkStatus();
  if (!clock_.SleepUntil(when, stop)) return absl::CancelledError("rate limiter wait cancelled");
  return absl::OkStatus();
}

bool RateLimiter::TryAccept() {
  if (qps_ <= 0) return true;
  absl::MutexLock lock(&mu_);
  Refill(clock_.Now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

absl::Duration RateLimiter::CurrentDelay() {
  if (qps_ <= 0) return absl::ZeroDuration();
  absl::MutexLock lock(&mu_);
  Refill(clock_.Now());
  if (tokens_ >= 1) return absl::ZeroDuration();
  return absl::Seconds((1 - tokens_) / qps_);
}

}  // namespace trimaran::kube
