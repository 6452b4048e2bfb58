#include "scheduler/plugins/node_resources_balanced_allocation/node_resources_balanced_allocation.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "common/check.h"
#include "common/status_macros.h"
#include "kube/api/pod_resources.h"
#include "scheduler/plugins/helper/pod_requests_state.h"

namespace trimaran::sched::plugins {

absl::StatusOr<std::unique_ptr<Plugin>> NodeResourcesBalancedAllocation::New(const PluginArgs& args,
                                                                             Handle& /*handle*/) {
  TRIMARAN_ASSIGN_OR_RETURN(NodeResourcesBalancedAllocationArgs typed,
                            DecodeNodeResourcesBalancedAllocationArgs(args));
  return std::make_unique<NodeResourcesBalancedAllocation>(std::move(typed));
}

PluginDescriptor NodeResourcesBalancedAllocation::Descriptor() {
  PluginDescriptor descriptor = DescriptorFor<NodeResourcesBalancedAllocation>();
  descriptor.validate_args = ArgsValidatorFrom(&DecodeNodeResourcesBalancedAllocationArgs);
  return descriptor;
}

NodeResourcesBalancedAllocation::NodeResourcesBalancedAllocation(
    NodeResourcesBalancedAllocationArgs args)
    : args_(std::move(args)) {
  const absl::Status valid = ValidateNodeResourcesBalancedAllocationArgs(args_, "");
  TRIMARAN_CHECK(valid.ok()) << "NodeResourcesBalancedAllocation: invalid args: "
                             << valid.message();
  for (const ResourceSpec& spec : args_.resources) {
    resources_.push_back(helper::ClassifyResource(spec.name));
  }
}

std::vector<int64_t> NodeResourcesBalancedAllocation::PodRequests(const kube::Pod& pod) const {
  const kube::Resource request = kube::ComputePodRequests(pod);  // actual, no defaults
  std::vector<int64_t> requests;
  requests.reserve(resources_.size());
  for (const helper::AllocationResource& r : resources_) requests.push_back(request.Get(r.name));
  return requests;
}

Status NodeResourcesBalancedAllocation::PreScore(CycleState& state, const kube::Pod& pod,
                                                 std::span<const NodeInfo* const> /*nodes*/) {
  std::vector<int64_t> requests = PodRequests(pod);
  if (std::all_of(requests.begin(), requests.end(), [](int64_t r) { return r == 0; })) {
    return Status::Skip();
  }
  state.Write(kPreScoreStateKey, std::make_unique<helper::PodRequestsState>(std::move(requests)));
  return Status();
}

ScoreResult NodeResourcesBalancedAllocation::Score(const CycleState& state, const kube::Pod& pod,
                                                   const NodeInfo& node_info) const {
  std::vector<int64_t> fallback;
  const std::optional<std::span<const int64_t>> stored = helper::ReadScoringRequests(
      state, kPreScoreStateKey, resources_.size(), fallback, [&] { return PodRequests(pod); });
  if (!stored.has_value()) return ScoreResult::Failed(helper::RequestsMismatchError(kName));
  const std::span<const int64_t> pod_requests = *stored;

  // Calls fn(F_i) for every resource that counts, in configuration order.
  auto for_each_fraction = [&](auto&& fn) {
    for (size_t i = 0; i < resources_.size(); ++i) {
      const helper::AllocationResource& r = resources_[i];
      const int64_t pod_request = pod_requests[i];
      if (pod_request == 0 && r.scalar) continue;
      // cpu and memory usage: the pods' actual requests, no non-zero defaults.
      const std::optional<helper::NodeResourceAllocation> a =
          helper::NodeAllocation(node_info, r, helper::CpuMemoryUsage::kRequested);
      if (!a.has_value()) continue;
      // In double: the sum of two int64 cannot overflow here.
      const double fraction = (static_cast<double>(a->used) + static_cast<double>(pod_request)) /
                              static_cast<double>(a->capacity);
      fn(std::min(fraction, 1.0));
    }
  };

  int n = 0;
  double total = 0;
  double first = 0;
  double second = 0;
  for_each_fraction([&](double f) {
    if (n == 0) first = f;
    if (n == 1) second = f;
    total += f;
    ++n;
  });
  double std_dev = 0;
  if (n == 2) {
    std_dev = std::abs((first - second) / 2);
  } else if (n > 2) {
    const double mean = total / n;
    double sum = 0;
    for_each_fraction([&](double f) { sum += (f - mean) * (f - mean); });
    std_dev = std::sqrt(sum / n);
  }
  const double exact = (1 - std_dev) * static_cast<double>(kMaxNodeScore);
  return ScoreResult::Of(
      static_cast<int64_t>(exact),
      std::clamp(exact, static_cast<double>(kMinNodeScore), static_cast<double>(kMaxNodeScore)));
}

}  // namespace trimaran::sched::plugins
