#pragma once
// NodeName: the Filter that keeps a pod whose spec.nodeName is set to that node
// (spec kube-scheduler.md §3.1; upstream plugins/nodename). A pod with an empty
// spec.nodeName passes every node; otherwise every other node is rejected as
// UnschedulableAndUnresolvable with reason "node(s) didn't match the requested node
// name". Pods with spec.nodeName set are normally already bound and never queued, so
// this mostly matters for preemption dry runs and simulation.
//
// Events: a node being added can make such a pod schedulable.
//
// Thread-safety: stateless after construction; Filter is safe to call concurrently.
// Filter never allocates (the rejection status is prebuilt and shared).

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

class NodeName final : public FilterPlugin, public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "NodeName";
  static constexpr absl::string_view kErrReason = "node(s) didn't match the requested node name";

  // A PluginFactory. NodeName takes no args (any given are ignored, as upstream).
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New and the extension points of its
  // interfaces.
  static PluginDescriptor Descriptor();

  NodeName();

  absl::string_view Name() const override { return kName; }
  Status Filter(const CycleState& state, const kube::Pod& pod,
                const NodeInfo& node_info) const override;
  std::vector<ClusterEvent> EventsToRegister() const override;

 private:
  const Status rejected_;
};

}  // namespace trimaran::sched::plugins
