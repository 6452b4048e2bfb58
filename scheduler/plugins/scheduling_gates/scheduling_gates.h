#pragma once
// SchedulingGates: the PreEnqueue plugin that keeps a pod with `spec.schedulingGates`
// out of scheduling (spec kube-scheduler-constraints.md §8; upstream
// plugins/schedulinggates, GA in 1.30). A pod without gates passes; a gated pod is
// rejected as UnschedulableAndUnresolvable "waiting for scheduling gates: [g1 g2]" (gate
// names in Go's slice formatting) and the queue parks it as gated: no scheduling
// attempt, no FailedScheduling event, no status patch, not counted as unschedulable
// (`scheduler_pending_pods{queue="gated"}`). Any update of the pod re-runs PreEnqueue
// (PriorityQueue::Update), so removing the last gate enqueues it at once. The plugin
// registers no cluster events: cluster changes never move a gated pod.
//
// On a 1.20 apiserver the field does not exist (dropped on create), so the plugin only
// ever sees gates from 1.26+ servers, fakes and offline inputs.
//
// Thread-safety: stateless; PreEnqueue is safe to call concurrently.

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

class SchedulingGates final : public PreEnqueuePlugin {
 public:
  static constexpr absl::string_view kName = "SchedulingGates";

  // A PluginFactory. No args (any given are ignored, as upstream).
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc).
  static PluginDescriptor Descriptor();

  absl::string_view Name() const override { return kName; }
  Status PreEnqueue(const kube::Pod& pod) const override;
};

}  // namespace trimaran::sched::plugins
