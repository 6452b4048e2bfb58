#include "scheduler/plugins/node_ports/node_ports.h"

#include <utility>

namespace trimaran::sched::plugins {
namespace {

// The pod's host ports, immutable after PreFilter.
class PreFilterState final : public StateData {
 public:
  explicit PreFilterState(std::vector<kube::ContainerPort> ports) : ports_(std::move(ports)) {}
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(ports_);
  }
  const std::vector<kube::ContainerPort>& ports() const { return ports_; }

 private:
  std::vector<kube::ContainerPort> ports_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> NodePorts::New(const PluginArgs& /*args*/,
                                                       Handle& /*handle*/) {
  return std::make_unique<NodePorts>();
}

PluginDescriptor NodePorts::Descriptor() { return DescriptorFor<NodePorts>(); }

NodePorts::NodePorts() : conflict_(Status::Unschedulable(kErrReason).WithPlugin(kName)) {}

Status NodePorts::PreFilter(CycleState& state, const kube::Pod& pod,
                            std::span<const NodeInfo* const> /*nodes*/,
                            PreFilterResult& /*result*/) {
  std::vector<kube::ContainerPort> ports = GetHostPorts(pod);
  if (ports.empty()) return Status::Skip();
  state.Write(kPreFilterStateKey, std::make_unique<PreFilterState>(std::move(ports)));
  return Status();
}

Status NodePorts::Filter(const CycleState& state, const kube::Pod& /*pod*/,
                         const NodeInfo& node_info) const {
  const absl::StatusOr<const PreFilterState*> s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (!s.ok()) return Status::FromAbsl(s.status()).WithPlugin(kName);
  const HostPortInfo& used = node_info.used_ports();
  if (used.empty()) return Status();
  for (const kube::ContainerPort& p : (*s)->ports()) {
    if (used.CheckConflict(p.host_ip, p.protocol, p.host_port)) return conflict_;
  }
  return Status();
}

std::vector<ClusterEvent> NodePorts::EventsToRegister() const {
  return {
      kAssignedPodDeleteEvent,
      ClusterEvent{EventResource::kNode,
                   ActionType::kAdd | ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeTaint,
                   "NodeAdd"},
  };
}

}  // namespace trimaran::sched::plugins
