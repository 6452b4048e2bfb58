#include "scheduler/plugins/node_unschedulable/node_unschedulable.h"

#include <string>

#include "scheduler/plugins/helper/taints.h"

namespace trimaran::sched::plugins {

absl::StatusOr<std::unique_ptr<Plugin>> NodeUnschedulable::New(const PluginArgs& /*args*/,
                                                               Handle& /*handle*/) {
  return std::make_unique<NodeUnschedulable>();
}

PluginDescriptor NodeUnschedulable::Descriptor() { return DescriptorFor<NodeUnschedulable>(); }

NodeUnschedulable::NodeUnschedulable()
    : unschedulable_taint_{std::string(kube::kTaintNodeUnschedulable), "",
                           kube::TaintEffect::kNoSchedule, std::nullopt},
      rejected_(Status::UnschedulableAndUnresolvable(kErrReason).WithPlugin(kName)) {}

Status NodeUnschedulable::Filter(const CycleState& /*state*/, const kube::Pod& pod,
                                 const NodeInfo& node_info) const {
  const kube::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  if (!node->spec.unschedulable) return Status::Success();
  if (helper::TolerationsTolerateTaint(pod.spec.tolerations, unschedulable_taint_)) {
    return Status::Success();
  }
  return rejected_;
}

std::vector<ClusterEvent> NodeUnschedulable::EventsToRegister() const {
  return {ClusterEvent{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeTaint,
                       "NodeAddOrTaintChange"}};
}

absl::StatusOr<QueueingHint> NodeUnschedulable::Hint(const kube::Pod& /*pod*/,
                                                     const ClusterEvent& /*event*/,
                                                     const EventObjects& objects) const {
  const kube::Node* modified = objects.new_node;
  if (modified == nullptr) return QueueingHint::kQueue;
  const kube::Node* original = objects.old_node;
  const bool now_schedulable = !modified->spec.unschedulable;
  if (now_schedulable && (original == nullptr || original->spec.unschedulable)) {
    return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

}  // namespace trimaran::sched::plugins
