#include "scheduler/extender/score_mapping.h"

#include <algorithm>

#include "scheduler/extender/extender_types.h"

namespace trimaran::sched::extender {

int64_t ToExtenderPriority(int64_t total, int64_t max_total) {
  if (max_total <= 0 || total <= 0) return kMinExtenderPriority;
  if (total >= max_total) return kMaxExtenderPriority;
  // round(10 × total / max_total) in integers; total < max_total <= 100 × Σ int32 weights,
  // so 20 × total cannot overflow.
  const int64_t p = (2 * kMaxExtenderPriority * total + max_total) / (2 * max_total);
  return std::clamp(p, kMinExtenderPriority, kMaxExtenderPriority);
}

}  // namespace trimaran::sched::extender
