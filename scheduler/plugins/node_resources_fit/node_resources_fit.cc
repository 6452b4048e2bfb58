#include "scheduler/plugins/node_resources_fit/node_resources_fit.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/status_macros.h"
#include "kube/api/pod_resources.h"
#include "kube/api/resource_list.h"
#include "scheduler/plugins/helper/pod_requests_state.h"

namespace trimaran::sched::plugins {
namespace {

// Bits of the fixed Filter checks, in upstream's order.
constexpr unsigned kPodsBit = 1u << 0;
constexpr unsigned kCpuBit = 1u << 1;
constexpr unsigned kMemoryBit = 1u << 2;
constexpr unsigned kEphemeralStorageBit = 1u << 3;
constexpr absl::string_view kFixedReasons[] = {
    "Too many pods",
    "Insufficient cpu",
    "Insufficient memory",
    "Insufficient ephemeral-storage",
};

// MaxNodeScore / MaxCustomPriorityScore: shape scores 0..10 -> node scores 0..100.
constexpr int64_t kShapeScoreScale = kMaxNodeScore / 10;

// What PreFilter computed for Filter. Immutable once written.
class PreFilterState final : public StateData {
 public:
  // A scalar resource Filter checks: requested (> 0) and not ignored.
  struct ScalarCheck {
    std::string name;
    int64_t quantity;
  };

  PreFilterState(kube::Resource request, std::vector<ScalarCheck> scalars)
      : request_(std::move(request)), scalars_(std::move(scalars)) {}
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(request_, scalars_);
  }

  const kube::Resource& request() const { return request_; }
  // Sorted by name (deterministic reason order).
  const std::vector<ScalarCheck>& scalars() const { return scalars_; }

 private:
  kube::Resource request_;
  std::vector<ScalarCheck> scalars_;
};

int64_t ScalarOf(const kube::Resource& r, const std::string& name) {
  const auto it = r.scalar.find(name);
  return it == r.scalar.end() ? 0 : it->second;
}

// Some resource `request` asks for (or the pod count) grew from `old_node` to `new_node`
// (upstream's haveAnyRequestedResourcesIncreased).
bool AnyRequestedResourceIncreased(const kube::Resource& request, const kube::Node& old_node,
                                   const kube::Node& new_node) {
  const kube::Resource before = kube::Resource::FromResourceList(old_node.status.allocatable);
  const kube::Resource after = kube::Resource::FromResourceList(new_node.status.allocatable);
  if (after.allowed_pod_number > before.allowed_pod_number) return true;
  if ((request.milli_cpu > 0 && after.milli_cpu > before.milli_cpu) ||
      (request.memory > 0 && after.memory > before.memory) ||
      (request.ephemeral_storage > 0 && after.ephemeral_storage > before.ephemeral_storage)) {
    return true;
  }
  for (const auto& [name, quantity] : request.scalar) {
    if (quantity > 0 && after.Get(name) > before.Get(name)) return true;
  }
  return false;
}

// A resource `request` asks for shrank from `old_pod` to `new_pod`, an assigned pod
// (upstream's haveEnoughRelevantResourcesDecreased).
bool AnyRequestedResourceDecreased(const kube::Resource& request, const kube::Pod& old_pod,
                                   const kube::Pod& new_pod) {
  if (new_pod.spec.node_name.empty()) return false;
  const kube::Resource before = kube::ComputePodRequests(old_pod);
  const kube::Resource after = kube::ComputePodRequests(new_pod);
  if ((request.milli_cpu > 0 && before.milli_cpu > after.milli_cpu) ||
      (request.memory > 0 && before.memory > after.memory) ||
      (request.ephemeral_storage > 0 && before.ephemeral_storage > after.ephemeral_storage)) {
    return true;
  }
  for (const auto& [name, quantity] : request.scalar) {
    if (quantity > 0 && before.Get(name) > after.Get(name)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> NodeResourcesFit::New(const PluginArgs& args,
                                                              Handle& /*handle*/) {
  TRIMARAN_ASSIGN_OR_RETURN(NodeResourcesFitArgs typed, DecodeNodeResourcesFitArgs(args));
  return std::make_unique<NodeResourcesFit>(std::move(typed));
}

PluginDescriptor NodeResourcesFit::Descriptor() {
  PluginDescriptor descriptor = DescriptorFor<NodeResourcesFit>();
  descriptor.validate_args = ArgsValidatorFrom(&DecodeNodeResourcesFitArgs);
  // MostAllocated and RequestedToCapacityRatio pack; LeastAllocated (the default) spreads.
  descriptor.packing = [](const PluginArgs& args) {
    absl::StatusOr<NodeResourcesFitArgs> decoded = DecodeNodeResourcesFitArgs(args);
    return decoded.ok() && decoded->scoring_strategy.type != ScoringStrategyType::kLeastAllocated;
  };
  return descriptor;
}

NodeResourcesFit::NodeResourcesFit(NodeResourcesFitArgs args) : args_(std::move(args)) {
  const absl::Status valid = ValidateNodeResourcesFitArgs(args_, "");
  TRIMARAN_CHECK(valid.ok()) << "NodeResourcesFit: invalid args: " << valid.message();

  ignored_resources_.insert(args_.ignored_resources.begin(), args_.ignored_resources.end());
  ignored_groups_.insert(args_.ignored_resource_groups.begin(),
                         args_.ignored_resource_groups.end());

  for (const ResourceSpec& spec : args_.scoring_strategy.resources) {
    resources_.push_back({helper::ClassifyResource(spec.name), spec.weight});
  }
  if (args_.scoring_strategy.requested_to_capacity_ratio.has_value()) {
    for (const UtilizationShapePoint& p :
         args_.scoring_strategy.requested_to_capacity_ratio->shape) {
      shape_.push_back({p.utilization, p.score * kShapeScoreScale});
    }
  }

  for (int unresolvable = 0; unresolvable < 2; ++unresolvable) {
    for (unsigned mask = 1; mask < 16; ++mask) {
      std::vector<std::string> reasons;
      for (unsigned bit = 0; bit < 4; ++bit) {
        if (mask & (1u << bit)) reasons.emplace_back(kFixedReasons[bit]);
      }
      rejections_[unresolvable][mask] =
          Status(unresolvable ? Code::kUnschedulableAndUnresolvable : Code::kUnschedulable,
                 std::move(reasons))
              .WithPlugin(kName);
    }
  }
}

bool NodeResourcesFit::IsIgnored(absl::string_view name) const {
  // Only extended resources may be ignored; hugepages and kubernetes.io resources never.
  if (!kube::IsExtendedResourceName(std::string_view(name.data(), name.size()))) return false;
  if (ignored_resources_.contains(name)) return true;
  if (ignored_groups_.empty()) return false;
  const size_t slash = name.find('/');
  return ignored_groups_.contains(name.substr(0, slash));
}

bool NodeResourcesFit::FitsEmptyNode(const kube::Resource& request, const kube::Node& node) const {
  const kube::Resource alloc = kube::Resource::FromResourceList(node.status.allocatable);
  if (alloc.allowed_pod_number < 1) return false;
  if (request.milli_cpu > alloc.milli_cpu || request.memory > alloc.memory ||
      request.ephemeral_storage > alloc.ephemeral_storage) {
    return false;
  }
  for (const auto& [name, quantity] : request.scalar) {
    if (quantity > 0 && !IsIgnored(name) && quantity > alloc.Get(name)) return false;
  }
  return true;
}

absl::StatusOr<QueueingHint> NodeResourcesFit::Hint(const kube::Pod& pod, const ClusterEvent& event,
                                                    const EventObjects& objects) const {
  const auto queue_if = [](bool b) { return b ? QueueingHint::kQueue : QueueingHint::kQueueSkip; };
  if (event.resource == EventResource::kPod) {
    if (Any(event.action & ActionType::kDelete)) {
      const kube::Pod* deleted = objects.old_pod;
      return queue_if(deleted == nullptr || !deleted->spec.node_name.empty() ||
                      !deleted->status.nominated_node_name.empty());
    }
    if (objects.old_pod == nullptr || objects.new_pod == nullptr) return QueueingHint::kQueue;
    return queue_if(AnyRequestedResourceDecreased(kube::ComputePodRequests(pod), *objects.old_pod,
                                                  *objects.new_pod));
  }
  if (event.resource != EventResource::kNode || objects.new_node == nullptr) {
    return QueueingHint::kQueue;
  }
  const kube::Resource request = kube::ComputePodRequests(pod);
  if (!FitsEmptyNode(request, *objects.new_node)) return QueueingHint::kQueueSkip;
  if (objects.old_node == nullptr) return QueueingHint::kQueue;  // added
  return queue_if(AnyRequestedResourceIncreased(request, *objects.old_node, *objects.new_node));
}

// ---- Filter ----

Status NodeResourcesFit::PreFilter(CycleState& state, const kube::Pod& pod,
                                   std::span<const NodeInfo* const> /*nodes*/,
                                   PreFilterResult& /*result*/) {
  kube::Resource request = kube::ComputePodRequests(pod);
  std::vector<PreFilterState::ScalarCheck> scalars;
  for (const auto& [name, quantity] : request.scalar) {
    if (quantity <= 0 || IsIgnored(name)) continue;
    scalars.push_back({name, quantity});
  }
  std::sort(scalars.begin(), scalars.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  state.Write(kPreFilterStateKey,
              std::make_unique<PreFilterState>(std::move(request), std::move(scalars)));
  return Status();
}

Status NodeResourcesFit::Filter(const CycleState& state, const kube::Pod& /*pod*/,
                                const NodeInfo& node_info) const {
  const absl::StatusOr<const PreFilterState*> s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (!s.ok()) return Status::FromAbsl(s.status()).WithPlugin(kName);
  const kube::Resource& request = (*s)->request();
  const kube::Resource& alloc = node_info.allocatable();
  const kube::Resource& used = node_info.requested();

  unsigned mask = 0;
  bool unresolvable = false;
  if (static_cast<int64_t>(node_info.pods().size()) + 1 > alloc.allowed_pod_number) {
    mask |= kPodsBit;
  }
  if (request.milli_cpu == 0 && request.memory == 0 && request.ephemeral_storage == 0 &&
      request.scalar.empty()) {
    return mask == 0 ? Status() : rejections_[0][mask];
  }
  // Both operands are non-negative, so alloc − used cannot overflow.
  auto check = [&](int64_t want, int64_t allocatable, int64_t requested, unsigned bit) {
    if (want > 0 && want > allocatable - requested) {
      mask |= bit;
      if (want > allocatable) unresolvable = true;
    }
  };
  check(request.milli_cpu, alloc.milli_cpu, used.milli_cpu, kCpuBit);
  check(request.memory, alloc.memory, used.memory, kMemoryBit);
  check(request.ephemeral_storage, alloc.ephemeral_storage, used.ephemeral_storage,
        kEphemeralStorageBit);

  bool scalar_failed = false;
  for (const PreFilterState::ScalarCheck& c : (*s)->scalars()) {
    const int64_t allocatable = ScalarOf(alloc, c.name);
    if (c.quantity > allocatable - ScalarOf(used, c.name)) {
      scalar_failed = true;
      if (c.quantity > allocatable) unresolvable = true;
    }
  }
  if (!scalar_failed) return mask == 0 ? Status() : rejections_[unresolvable ? 1 : 0][mask];

  // Rare: a scalar resource is short. Build the status (allocates).
  std::vector<std::string> reasons;
  for (unsigned bit = 0; bit < 4; ++bit) {
    if (mask & (1u << bit)) reasons.emplace_back(kFixedReasons[bit]);
  }
  for (const PreFilterState::ScalarCheck& c : (*s)->scalars()) {
    if (c.quantity > ScalarOf(alloc, c.name) - ScalarOf(used, c.name)) {
      reasons.push_back(absl::StrCat("Insufficient ", c.name));
    }
  }
  return Status(unresolvable ? Code::kUnschedulableAndUnresolvable : Code::kUnschedulable,
                std::move(reasons))
      .WithPlugin(kName);
}

// ---- Score ----

std::vector<int64_t> NodeResourcesFit::ScoringRequests(const kube::Pod& pod) const {
  // Non-zero defaults apply to cpu and memory only; other resources are unaffected.
  const kube::Resource request = kube::ComputePodRequests(pod, {.non_zero = true});
  std::vector<int64_t> requests;
  requests.reserve(resources_.size());
  for (const ScoredResource& r : resources_) requests.push_back(request.Get(r.resource.name));
  return requests;
}

Status NodeResourcesFit::PreScore(CycleState& state, const kube::Pod& pod,
                                  std::span<const NodeInfo* const> /*nodes*/) {
  state.Write(kPreScoreStateKey, std::make_unique<helper::PodRequestsState>(ScoringRequests(pod)));
  return Status();
}

int64_t NodeResourcesFit::ShapeScore(int64_t utilization) const {
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (utilization <= shape_[i].utilization) {
      if (i == 0) return shape_[0].score;
      const ShapePoint& lo = shape_[i - 1];
      const ShapePoint& hi = shape_[i];
      // Truncates toward zero, as Go's (matters for decreasing shapes).
      return lo.score + (hi.score - lo.score) * (utilization - lo.utilization) /
                            (hi.utilization - lo.utilization);
    }
  }
  return shape_.back().score;
}

double NodeResourcesFit::ShapeScoreExact(double utilization) const {
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (utilization <= static_cast<double>(shape_[i].utilization)) {
      if (i == 0) return static_cast<double>(shape_[0].score);
      const ShapePoint& lo = shape_[i - 1];
      const ShapePoint& hi = shape_[i];
      return static_cast<double>(lo.score) +
             static_cast<double>(hi.score - lo.score) *
                 (utilization - static_cast<double>(lo.utilization)) /
                 static_cast<double>(hi.utilization - lo.utilization);
    }
  }
  return static_cast<double>(shape_.back().score);
}

ScoreResult NodeResourcesFit::Score(const CycleState& state, const kube::Pod& pod,
                                    const NodeInfo& node_info) const {
  std::vector<int64_t> fallback;
  const std::optional<std::span<const int64_t>> stored = helper::ReadScoringRequests(
      state, kPreScoreStateKey, resources_.size(), fallback, [&] { return ScoringRequests(pod); });
  if (!stored.has_value()) return ScoreResult::Failed(helper::RequestsMismatchError(kName));
  const std::span<const int64_t> pod_requests = *stored;

  const ScoringStrategyType type = args_.scoring_strategy.type;
  int64_t node_score = 0;
  int64_t weight_sum = 0;
  double exact_sum = 0;
  for (size_t i = 0; i < resources_.size(); ++i) {
    const ScoredResource& r = resources_[i];
    const int64_t pod_request = pod_requests[i];
    // A scalar resource the pod does not request is not scored.
    if (pod_request == 0 && r.resource.scalar) continue;
    // cpu and memory usage with the non-zero defaults (spec §2.5).
    const std::optional<helper::NodeResourceAllocation> a =
        helper::NodeAllocation(node_info, r.resource, helper::CpuMemoryUsage::kNonZeroRequested);
    if (!a.has_value()) continue;
    // The node's usage with the pod; 128 bits: sums cannot overflow.
    const __int128 used = static_cast<__int128>(a->used) + pod_request;
    const __int128 cap = a->capacity;
    const double cap_d = static_cast<double>(a->capacity);

    switch (type) {
      case ScoringStrategyType::kLeastAllocated: {
        // (capacity − used)·100 / capacity, 0 when over-committed.
        const bool over = used > cap;
        const int64_t s = over ? 0 : static_cast<int64_t>((cap - used) * kMaxNodeScore / cap);
        const double e = over ? 0.0 : static_cast<double>(cap - used) * 100.0 / cap_d;
        node_score += s * r.weight;
        exact_sum += e * static_cast<double>(r.weight);
        weight_sum += r.weight;
        break;
      }
      case ScoringStrategyType::kMostAllocated: {
        // min(used, capacity)·100 / capacity.
        const __int128 m = std::min(used, cap);
        node_score += static_cast<int64_t>(m * kMaxNodeScore / cap) * r.weight;
        exact_sum += static_cast<double>(m) * 100.0 / cap_d * static_cast<double>(r.weight);
        weight_sum += r.weight;
        break;
      }
      case ScoringStrategyType::kRequestedToCapacityRatio: {
        const bool over = used > cap;
        const int64_t u = over ? 100 : static_cast<int64_t>(used * 100 / cap);
        const int64_t f = ShapeScore(u);
        // The quirk: only resources with a positive shape score count, in the numerator
        // and in the weights. The exact value uses the same resources.
        if (f > 0) {
          const double u_exact = over ? 100.0 : static_cast<double>(used) * 100.0 / cap_d;
          node_score += f * r.weight;
          exact_sum += ShapeScoreExact(u_exact) * static_cast<double>(r.weight);
          weight_sum += r.weight;
        }
        break;
      }
    }
  }
  if (weight_sum == 0) return ScoreResult::Of(0, 0.0);
  const double weights = static_cast<double>(weight_sum);
  const double exact = std::clamp(exact_sum / weights, static_cast<double>(kMinNodeScore),
                                  static_cast<double>(kMaxNodeScore));
  if (type == ScoringStrategyType::kRequestedToCapacityRatio) {
    // Go's math.Round: half away from zero, as std::round.
    return ScoreResult::Of(
        static_cast<int64_t>(std::round(static_cast<double>(node_score) / weights)), exact);
  }
  return ScoreResult::Of(node_score / weight_sum, exact);
}

std::vector<ClusterEvent> NodeResourcesFit::EventsToRegister() const {
  return {
      ClusterEvent{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeAllocatable,
                   "NodeAdd|NodeAllocatableChange"},
      ClusterEvent{EventResource::kPod, ActionType::kDelete | ActionType::kUpdatePodScaleDown,
                   "AssignedPodDelete|AssignedPodScaleDown"},
  };
}

}  // namespace trimaran::sched::plugins
