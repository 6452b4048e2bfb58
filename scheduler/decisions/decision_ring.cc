#include "scheduler/decisions/decision_ring.h"

#include <algorithm>
#include <utility>

namespace trimaran::sched::decisions {

DecisionRing::DecisionRing(size_t capacity)
    : capacity_(std::max<size_t>(capacity, 1)), slots_(capacity_) {}

void DecisionRing::Record(Decision decision) {
  std::shared_ptr<const Decision> fresh = std::make_shared<const Decision>(std::move(decision));
  {
    absl::MutexLock lock(&mu_);
    std::swap(slots_[next_ % capacity_], fresh);
    ++next_;
  }
  // `fresh` now holds the replaced decision: freed here, outside the lock.
}

std::vector<std::shared_ptr<const Decision>> DecisionRing::List(absl::string_view pod,
                                                                size_t limit) const {
  std::vector<std::shared_ptr<const Decision>> newest_first;
  {
    absl::MutexLock lock(&mu_);
    const uint64_t n = std::min<uint64_t>(next_, capacity_);
    newest_first.reserve(n);
    for (uint64_t i = 1; i <= n; ++i) newest_first.push_back(slots_[(next_ - i) % capacity_]);
  }
  std::vector<std::shared_ptr<const Decision>> out;
  for (std::shared_ptr<const Decision>& d : newest_first) {
    if (limit != 0 && out.size() >= limit) break;
    if (!pod.empty() && d->pod != pod) continue;
    out.push_back(std::move(d));
  }
  return out;
}

uint64_t DecisionRing::recorded() const {
  absl::MutexLock lock(&mu_);
  return next_;
}

}  // namespace trimaran::sched::decisions
