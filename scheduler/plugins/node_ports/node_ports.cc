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

absl::StatusOr<QueueingHint> NodePorts::Hint(const kube::Pod& pod, const ClusterEvent& event,
                                             const EventObjects& objects) const {
  if (event.resource != EventResource::kPod) return QueueingHint::kQueue;
  const kube::Pod* deleted = objects.old_pod;
  if (deleted == nullptr) return QueueingHint::kQueue;
  if (deleted->spec.node_name.empty() && deleted->status.nominated_node_name.empty()) {
    return QueueingHint::kQueueSkip;
  }
  const std::vector<kube::ContainerPort> freed = GetHostPorts(*deleted);
  if (freed.empty()) return QueueingHint::kQueueSkip;
  HostPortInfo in_use;
  for (const kube::ContainerPort& p : freed) in_use.Add(p.host_ip, p.protocol, p.host_port);
  for (const kube::ContainerPort& p : GetHostPorts(pod)) {
    if (in_use.CheckConflict(p.host_ip, p.protocol, p.host_port)) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

}  // namespace trimaran::sched::plugins
