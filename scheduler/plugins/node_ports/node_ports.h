#pragma once
// NodePorts: rejects nodes where a host port the pod asks for is already in use
// (upstream's nodeports.NodePorts, spec §3.5).
//
// PreFilter collects the pod's host ports once (sched::GetHostPorts: container and init
// container ports with hostPort > 0) into the CycleState; a pod without host ports is
// Skipped, so Filter does not run for it. Filter checks each wanted (hostIP, protocol,
// hostPort) against NodeInfo::used_ports() with HostPortInfo's conflict rule (same
// protocol and port, and equal IPs or either side 0.0.0.0/empty) and rejects with
// kUnschedulable "node(s) didn't have free ports for the requested pod ports".
//
// Thread-safety: PreFilter runs on the scheduling thread; Filter only reads the
// CycleState and the NodeInfo and is safe for concurrent use across nodes. Filter does
// not allocate (the rejection is prebuilt).
// Ownership: the plugin owns its prebuilt rejection; the CycleState owns the ports.

#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cluster_event.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"

namespace trimaran::sched::plugins {

class NodePorts final : public PreFilterPlugin, public FilterPlugin, public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "NodePorts";
  // The CycleState key PreFilter writes.
  static constexpr absl::string_view kPreFilterStateKey = "PreFilterNodePorts";
  // Upstream's ErrReason.
  static constexpr absl::string_view kErrReason =
      "node(s) didn't have free ports for the requested pod ports";

  // Factory for Registry::Register. The plugin takes no args (any given are ignored).
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New and the extension points of its
  // interfaces.
  static PluginDescriptor Descriptor();

  NodePorts();

  absl::string_view Name() const override { return kName; }

  // Skip when the pod claims no host port; otherwise stores the ports and succeeds.
  Status PreFilter(CycleState& state, const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                   PreFilterResult& result) override;
  // kUnschedulable (kErrReason) on a conflict; kError when PreFilter's state is missing.
  Status Filter(const CycleState& state, const kube::Pod& pod,
                const NodeInfo& node_info) const override;
  // An assigned pod deleted (frees its ports); a node added. Node label/taint updates
  // are registered too, as upstream, because a node added while the event handlers
  // could not yet see it may surface as an update.
  std::vector<ClusterEvent> EventsToRegister() const override;
  // Upstream's isSchedulableAfterAssignedPodDeleted: queue a deletion only of a pod that
  // was bound or nominated and used a host port this pod wants; a node add always queues.
  absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                    const EventObjects& objects) const override;

 private:
  Status conflict_;
};

}  // namespace trimaran::sched::plugins
