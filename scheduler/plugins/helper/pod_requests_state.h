#pragma once
// The pod's requests of a resource-scoring plugin's scoring resources, computed once per
// cycle (NodeResourcesFit and NodeResourcesBalancedAllocation; upstream's
// resource_allocation.go preScoreState.podRequests): PreScore writes them under the
// plugin's key as a PodRequestsState, and Score reads them back with ReadScoringRequests,
// which computes them itself when no PreScore ran (a profile that lists the plugin at
// score only).
//
// Thread-safety: PodRequestsState is immutable once written (Score reads it from
// several workers); ReadScoringRequests only reads the cycle state.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/status.h"

namespace trimaran::sched::plugins::helper {

// One request per scoring resource, in configuration order.
class PodRequestsState final : public StateData {
 public:
  explicit PodRequestsState(std::vector<int64_t> requests) : requests_(std::move(requests)) {}
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PodRequestsState>(requests_);
  }
  const std::vector<int64_t>& requests() const { return requests_; }

 private:
  std::vector<int64_t> requests_;
};

// The requests PreScore wrote under `key`, or, when there are none, `compute()`'s, kept
// in `fallback` (which the span then points into). nullopt when their count is not
// `resources`, the number of scoring resources (Score fails with
// RequestsMismatchError). Inline: Score calls it once per node.
inline std::optional<std::span<const int64_t>> ReadScoringRequests(
    const CycleState& state, absl::string_view key, size_t resources,
    std::vector<int64_t>& fallback, absl::FunctionRef<std::vector<int64_t>()> compute) {
  std::span<const int64_t> requests;
  if (const auto s = state.Read<PodRequestsState>(key); s.ok()) {
    requests = (*s)->requests();
  } else {
    fallback = compute();
    requests = fallback;
  }
  if (requests.size() != resources) return std::nullopt;
  return requests;
}

// The Score error of plugin `plugin` when ReadScoringRequests is nullopt.
Status RequestsMismatchError(absl::string_view plugin);

}  // namespace trimaran::sched::plugins::helper
