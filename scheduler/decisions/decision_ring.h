#pragma once
// DecisionRing: the last N scheduling decisions (decision.h), for /debug/decisions and
// `trimaranctl explain` ("why did my pod land there?" for the decision that actually
// happened, not a replay).
//
//   DecisionRing ring(1000);                 // the daemon's --decisions-capacity
//   ring.Record(std::move(decision));        // scheduling / binding threads
//   ring.List("default/web-1", 10);          // admin server threads: newest first
//
// Bounded: a fixed array of `capacity` slots; recording into a full ring replaces the
// oldest decision. Memory: capacity x one Decision (at most 5 top nodes x the profile's
// Score plugins, 8 fallback lines, a 1 KiB message: typically 1-2 KiB each; the default
// 1000 is about 1-2 MiB).
//
// Cost: Record is O(1): one short critical section that moves a pointer into a slot (the
// replaced decision is freed after the lock is released). List copies at most
// `capacity` shared pointers under the lock and filters and serializes outside it, so a
// reader never holds up the scheduling thread for longer than that copy.
//
// Thread-safety: safe for concurrent use (one absl::Mutex).

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/decisions/decision.h"

namespace trimaran::sched::decisions {

class DecisionRing {
 public:
  // `capacity` > 0 (the daemon does not create a ring for --decisions-capacity=0).
  explicit DecisionRing(size_t capacity);
  DecisionRing(const DecisionRing&) = delete;
  DecisionRing& operator=(const DecisionRing&) = delete;

  size_t capacity() const { return capacity_; }

  // Keeps `decision`, replacing the oldest when full.
  void Record(Decision decision) ABSL_LOCKS_EXCLUDED(mu_);

  // Decisions newest first: only those of `pod` ("namespace/name") when it is not empty,
  // at most `limit` of them (0: no limit).
  std::vector<std::shared_ptr<const Decision>> List(absl::string_view pod, size_t limit) const
      ABSL_LOCKS_EXCLUDED(mu_);

  // Decisions recorded since construction (including those replaced since).
  uint64_t recorded() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::vector<std::shared_ptr<const Decision>> slots_ ABSL_GUARDED_BY(mu_);
  uint64_t next_ ABSL_GUARDED_BY(mu_) = 0;  // decisions recorded; next slot = next_ % N
};

}  // namespace trimaran::sched::decisions
