#include "scheduler/plugins/default_preemption/pick_node.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

namespace trimaran::sched::plugins {

std::optional<absl::Time> EarliestStartTimeOfMostImportant(const Victims& victims, absl::Time now) {
  if (victims.pods.empty()) return std::nullopt;
  absl::Time earliest = PodStartTime(*victims.pods[0], now);
  int32_t max_priority = kube::PodPriority(*victims.pods[0]);
  for (const auto& p : victims.pods) {
    const int32_t priority = kube::PodPriority(*p);
    if (priority == max_priority) {
      earliest = std::min(earliest, PodStartTime(*p, now));
    } else if (priority > max_priority) {
      max_priority = priority;
      earliest = PodStartTime(*p, now);
    }
  }
  return earliest;
}

int PickOneNodeForPreemption(std::span<const Candidate> candidates, absl::Time now) {
  if (candidates.empty()) return -1;
  // Each criterion as a score: higher is better.
  const std::function<int64_t(const Victims&)> criteria[] = {
      [](const Victims& v) { return -v.num_pdb_violations; },
      [](const Victims& v) { return -static_cast<int64_t>(kube::PodPriority(*v.pods[0])); },
      [](const Victims& v) {
        int64_t sum = 0;
        for (const auto& p : v.pods) {
          sum += static_cast<int64_t>(kube::PodPriority(*p)) +
                 static_cast<int64_t>(std::numeric_limits<int32_t>::max()) + 1;
        }
        return -sum;
      },
      [](const Victims& v) { return -static_cast<int64_t>(v.pods.size()); },
      [now](const Victims& v) {
        const std::optional<absl::Time> t = EarliestStartTimeOfMostImportant(v, now);
        return t.has_value() ? absl::ToUnixNanos(*t) : std::numeric_limits<int64_t>::min();
      },
  };
  std::vector<int> remaining(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) remaining[i] = static_cast<int>(i);
  for (const auto& score : criteria) {
    std::vector<int> best;
    int64_t best_score = std::numeric_limits<int64_t>::min();
    for (int i : remaining) {
      const int64_t s = score(candidates[i].victims);
      if (s > best_score) {
        best_score = s;
        best.clear();
      }
      if (s == best_score) best.push_back(i);
    }
    if (best.size() == 1) return best[0];
    remaining = std::move(best);
  }
  return remaining[0];
}

}  // namespace trimaran::sched::plugins
