#pragma once
// NodeUnschedulable: the Filter that keeps pods off cordoned nodes (spec
// kube-scheduler.md §3.2; upstream plugins/nodeunschedulable). A node with
// spec.unschedulable = true is rejected as UnschedulableAndUnresolvable with reason
// "node(s) were unschedulable", unless the pod tolerates the taint
// {key: node.kubernetes.io/unschedulable, effect: NoSchedule} (DaemonSet pods do).
// Node Ready conditions are not looked at (the node lifecycle controller turns them
// into taints, which TaintToleration enforces).
//
// Events: a node being added, or its taints/unschedulable flag changing; the hint queues
// only a node that is (now) schedulable.
//
// Thread-safety: stateless after construction; Filter is safe to call concurrently.
// Filter never allocates (the rejection status is prebuilt and shared).

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/api/taint.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

class NodeUnschedulable final : public FilterPlugin, public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "NodeUnschedulable";
  static constexpr absl::string_view kErrReason = "node(s) were unschedulable";

  // A PluginFactory. No args (any given are ignored, as upstream).
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New and the extension points of its
  // interfaces.
  static PluginDescriptor Descriptor();

  NodeUnschedulable();

  absl::string_view Name() const override { return kName; }
  Status Filter(const CycleState& state, const kube::Pod& pod,
                const NodeInfo& node_info) const override;
  std::vector<ClusterEvent> EventsToRegister() const override;
  // Upstream's isSchedulableAfterNodeChange: queue when a node is added schedulable or
  // goes from unschedulable to schedulable.
  absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                    const EventObjects& objects) const override;

 private:
  const kube::Taint unschedulable_taint_;
  const Status rejected_;
};

}  // namespace trimaran::sched::plugins
