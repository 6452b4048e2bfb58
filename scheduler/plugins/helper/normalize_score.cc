#include "scheduler/plugins/helper/normalize_score.h"

#include <algorithm>

namespace trimaran::sched::plugins::helper {

void DefaultNormalizeScore(int64_t max_priority, bool reverse, NodeScoreList& scores) {
  int64_t max_count = 0;
  for (const NodeScore& s : scores) max_count = std::max(max_count, s.score);
  const double max_d = static_cast<double>(max_priority);
  if (max_count == 0) {
    const int64_t value = reverse ? max_priority : 0;
    for (NodeScore& s : scores) {
      s.score = value;
      s.exact = static_cast<double>(value);
    }
    return;
  }
  for (NodeScore& s : scores) {
    const double raw_exact = s.exact.value_or(static_cast<double>(s.score));
    double exact = max_d * raw_exact / static_cast<double>(max_count);
    int64_t score = max_priority * s.score / max_count;
    if (reverse) {
      score = max_priority - score;
      exact = max_d - exact;
    }
    s.score = score;
    s.exact = std::clamp(exact, 0.0, max_d);
  }
}

}  // namespace trimaran::sched::plugins::helper
