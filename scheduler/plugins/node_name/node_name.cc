#include "scheduler/plugins/node_name/node_name.h"

namespace trimaran::sched::plugins {

absl::StatusOr<std::unique_ptr<Plugin>> NodeName::New(const PluginArgs& /*args*/,
                                                      Handle& /*handle*/) {
  return std::make_unique<NodeName>();
}

PluginDescriptor NodeName::Descriptor() { return DescriptorFor<NodeName>(); }

NodeName::NodeName()
    : rejected_(Status::UnschedulableAndUnresolvable(kErrReason).WithPlugin(kName)) {}

Status NodeName::Filter(const CycleState& /*state*/, const kube::Pod& pod,
                        const NodeInfo& node_info) const {
  if (node_info.node() == nullptr) return Status::Error("node not found");
  if (pod.spec.node_name.empty() || pod.spec.node_name == node_info.name()) {
    return Status::Success();
  }
  return rejected_;
}

std::vector<ClusterEvent> NodeName::EventsToRegister() const { return {kNodeAddEvent}; }

}  // namespace trimaran::sched::plugins
