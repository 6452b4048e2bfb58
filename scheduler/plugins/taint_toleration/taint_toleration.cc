#include "scheduler/plugins/taint_toleration/taint_toleration.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/plugins/helper/normalize_score.h"
#include "scheduler/plugins/helper/taints.h"

namespace trimaran::sched::plugins {
namespace {

// The pod's tolerations that can tolerate a PreferNoSchedule taint.
class PreScoreState final : public StateData {
 public:
  explicit PreScoreState(std::vector<kube::Toleration> t) : tolerations(std::move(t)) {}
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreScoreState>(tolerations);
  }
  std::vector<kube::Toleration> tolerations;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> TaintToleration::New(const PluginArgs& /*args*/,
                                                             Handle& /*handle*/) {
  return std::make_unique<TaintToleration>();
}

PluginDescriptor TaintToleration::Descriptor() { return DescriptorFor<TaintToleration>(); }

Status TaintToleration::Filter(const CycleState& /*state*/, const kube::Pod& pod,
                               const NodeInfo& node_info) const {
  const kube::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  const kube::Taint* taint = helper::FindMatchingUntoleratedTaint(
      node->spec.taints, pod.spec.tolerations, helper::IsDoNotScheduleTaint);
  if (taint == nullptr) return Status::Success();
  return rejected_;
}

Status TaintToleration::PreScore(CycleState& state, const kube::Pod& pod,
                                 std::span<const NodeInfo* const> nodes) {
  if (nodes.empty()) return Status::Success();
  std::vector<kube::Toleration> tolerations;
  for (const kube::Toleration& t : pod.spec.tolerations) {
    if (t.effect == kube::TaintEffect::kAll || t.effect == kube::TaintEffect::kPreferNoSchedule) {
      tolerations.push_back(t);
    }
  }
  state.Write(kPreScoreStateKey, std::make_unique<PreScoreState>(std::move(tolerations)));
  return Status::Success();
}

ScoreResult TaintToleration::Score(const CycleState& state, const kube::Pod& pod,
                                   const NodeInfo& node_info) const {
  const kube::Node* node = node_info.node();
  if (node == nullptr) return ScoreResult::Failed(Status::Error("node not found"));
  // Without PreScore's state the pod's own tolerations give the same count:
  // ToleratesTaint already requires an empty or equal effect.
  std::span<const kube::Toleration> tolerations = pod.spec.tolerations;
  if (const auto* s = dynamic_cast<const PreScoreState*>(state.Get(kPreScoreStateKey))) {
    tolerations = s->tolerations;
  }
  int64_t count = 0;
  for (const kube::Taint& taint : node->spec.taints) {
    if (taint.effect != kube::TaintEffect::kPreferNoSchedule) continue;
    if (!helper::TolerationsTolerateTaint(tolerations, taint)) ++count;
  }
  return ScoreResult::Of(count);
}

Status TaintToleration::NormalizeScore(const CycleState& /*state*/, const kube::Pod& /*pod*/,
                                       NodeScoreList& scores) const {
  helper::DefaultNormalizeScore(kMaxNodeScore, /*reverse=*/true, scores);
  return Status::Success();
}

std::vector<ClusterEvent> TaintToleration::EventsToRegister() const {
  return {ClusterEvent{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint,
                       "NodeAddOrTaintChange"}};
}

absl::StatusOr<QueueingHint> TaintToleration::Hint(const kube::Pod& pod,
                                                   const ClusterEvent& /*event*/,
                                                   const EventObjects& objects) const {
  const kube::Node* modified = objects.new_node;
  if (modified == nullptr) return QueueingHint::kQueue;
  auto untolerated = [&](const kube::Node& node) {
    return helper::FindMatchingUntoleratedTaint(node.spec.taints, pod.spec.tolerations,
                                                helper::IsDoNotScheduleTaint) != nullptr;
  };
  const bool was_untolerated = objects.old_node == nullptr || untolerated(*objects.old_node);
  return was_untolerated && !untolerated(*modified) ? QueueingHint::kQueue
                                                    : QueueingHint::kQueueSkip;
}

}  // namespace trimaran::sched::plugins
