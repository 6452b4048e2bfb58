#include "scheduler/plugins/node_affinity/node_affinity.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/status_macros.h"
#include "scheduler/plugins/helper/normalize_score.h"

namespace trimaran::sched::plugins {
namespace {

// Parsed once per cycle; immutable afterwards, so Clone shares it.
class PreFilterState final : public StateData {
 public:
  explicit PreFilterState(std::shared_ptr<const helper::RequiredNodeAffinity> r)
      : required(std::move(r)) {}
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(required);
  }
  std::shared_ptr<const helper::RequiredNodeAffinity> required;
};

class PreScoreState final : public StateData {
 public:
  explicit PreScoreState(std::shared_ptr<const helper::PreferredSchedulingTerms> p)
      : preferred(std::move(p)) {}
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreScoreState>(preferred);
  }
  std::shared_ptr<const helper::PreferredSchedulingTerms> preferred;
};

const kube::NodeSelector* RequiredSelector(const kube::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  if (!affinity.has_value() || !affinity->node_affinity.has_value() ||
      !affinity->node_affinity->required.has_value()) {
    return nullptr;
  }
  return &*affinity->node_affinity->required;
}

std::span<const kube::PreferredSchedulingTerm> PreferredTerms(const kube::Pod& pod) {
  const auto& affinity = pod.spec.affinity;
  if (!affinity.has_value() || !affinity->node_affinity.has_value()) return {};
  return affinity->node_affinity->preferred;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> NodeAffinity::New(const PluginArgs& args,
                                                          Handle& /*handle*/) {
  TRIMARAN_ASSIGN_OR_RETURN(NodeAffinityArgs typed, DecodeNodeAffinityArgs(args));
  return std::make_unique<NodeAffinity>(typed);
}

PluginDescriptor NodeAffinity::Descriptor() {
  PluginDescriptor descriptor = DescriptorFor<NodeAffinity>();
  descriptor.validate_args = ArgsValidatorFrom(&DecodeNodeAffinityArgs);
  return descriptor;
}

NodeAffinity::NodeAffinity(const NodeAffinityArgs& args)
    : rejected_pod_(Status::UnschedulableAndUnresolvable(kErrReasonPod).WithPlugin(kName)),
      rejected_enforced_(
          Status::UnschedulableAndUnresolvable(kErrReasonEnforced).WithPlugin(kName)) {
  if (args.added_affinity.has_value()) {
    if (args.added_affinity->required.has_value()) {
      added_required_.emplace(*args.added_affinity->required);
    }
    added_preferred_ = helper::PreferredSchedulingTerms(args.added_affinity->preferred);
  }
}

Status NodeAffinity::PreFilter(CycleState& state, const kube::Pod& pod,
                               std::span<const NodeInfo* const> /*nodes*/,
                               PreFilterResult& result) {
  const kube::NodeSelector* required = RequiredSelector(pod);
  if (required == nullptr && !added_required_.has_value() && pod.spec.node_selector.empty()) {
    return Status::Skip();
  }
  state.Write(kPreFilterStateKey, std::make_unique<PreFilterState>(
                                      std::make_shared<const helper::RequiredNodeAffinity>(pod)));
  if (required == nullptr || required->node_selector_terms.empty()) return Status::Success();

  // Pinned node names: only when every term pins some (the terms are ORed).
  absl::flat_hash_set<std::string> names;
  for (const kube::NodeSelectorTerm& term : required->node_selector_terms) {
    std::optional<std::vector<std::string>> pinned =
        helper::NodeSelectorTermMatcher::PinnedNodeNames(term);
    if (!pinned.has_value()) return Status::Success();
    names.insert(pinned->begin(), pinned->end());
  }
  if (names.empty()) {
    return Status::UnschedulableAndUnresolvable(kErrReasonConflict).WithPlugin(kName);
  }
  result.node_names = std::move(names);
  return Status::Success();
}

Status NodeAffinity::Filter(const CycleState& state, const kube::Pod& pod,
                            const NodeInfo& node_info) const {
  const kube::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  if (added_required_.has_value() && !added_required_->Matches(*node)) return rejected_enforced_;
  bool match = false;
  if (const auto* s = dynamic_cast<const PreFilterState*>(state.Get(kPreFilterStateKey))) {
    match = s->required->Matches(*node);
  } else {
    match = helper::RequiredNodeAffinity(pod).Matches(*node);  // PreFilter disabled
  }
  return match ? Status::Success() : rejected_pod_;
}

Status NodeAffinity::PreScore(CycleState& state, const kube::Pod& pod,
                              std::span<const NodeInfo* const> nodes) {
  if (nodes.empty()) return Status::Success();
  auto preferred = std::make_shared<const helper::PreferredSchedulingTerms>(PreferredTerms(pod));
  if (preferred->empty() && added_preferred_.empty()) return Status::Skip();
  state.Write(kPreScoreStateKey, std::make_unique<PreScoreState>(std::move(preferred)));
  return Status::Success();
}

ScoreResult NodeAffinity::Score(const CycleState& state, const kube::Pod& pod,
                                const NodeInfo& node_info) const {
  const kube::Node* node = node_info.node();
  if (node == nullptr) return ScoreResult::Failed(Status::Error("node not found"));
  int64_t score = added_preferred_.Score(*node);
  if (const auto* s = dynamic_cast<const PreScoreState*>(state.Get(kPreScoreStateKey))) {
    score += s->preferred->Score(*node);
  } else {
    score += helper::PreferredSchedulingTerms(PreferredTerms(pod)).Score(*node);  // no PreScore
  }
  return ScoreResult::Of(score);
}

Status NodeAffinity::NormalizeScore(const CycleState& /*state*/, const kube::Pod& /*pod*/,
                                    NodeScoreList& scores) const {
  helper::DefaultNormalizeScore(kMaxNodeScore, /*reverse=*/false, scores);
  return Status::Success();
}

std::vector<ClusterEvent> NodeAffinity::EventsToRegister() const {
  return {ClusterEvent{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeLabel,
                       "NodeAddOrLabelChange"}};
}

absl::StatusOr<QueueingHint> NodeAffinity::Hint(const kube::Pod& pod, const ClusterEvent& /*event*/,
                                                const EventObjects& objects) const {
  const kube::Node* modified = objects.new_node;
  if (modified == nullptr) return QueueingHint::kQueue;
  if (added_required_.has_value() && !added_required_->Matches(*modified)) {
    return QueueingHint::kQueueSkip;
  }
  const helper::RequiredNodeAffinity required(pod);
  if (!required.Matches(*modified)) return QueueingHint::kQueueSkip;
  if (objects.old_node == nullptr) return QueueingHint::kQueue;  // added
  // An update: only one that made the node match.
  return required.Matches(*objects.old_node) ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
}

}  // namespace trimaran::sched::plugins
