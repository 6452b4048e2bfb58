#pragma once
// UnsupportedPodConstraints: a stop-gap PreFilter that refuses pods whose *hard*
// constraints this scheduler cannot evaluate yet, so such a pod is never placed against
// them. It goes away when InterPodAffinity and PodTopologySpread exist (issue 4: "a pod
// that requires either is refused with an unschedulable reason naming the unsupported
// field"). Not an upstream plugin; enabled in Trimaran's default profile.
//
// PreFilter rejects (UnschedulableAndUnresolvable, which ends the cycle at once) a pod
// with any of
//   spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution
//   spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution
//   spec.topologySpreadConstraints[i] with whenUnsatisfiable: DoNotSchedule
// with one reason per offending field, e.g.
//   "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution is
//    not supported by this scheduler yet".
// Soft constraints (preferredDuringScheduling terms, ScheduleAnyway spread
// constraints) are accepted and ignored: they only influence scores upstream, so
// ignoring them never places a pod against a requirement.
//
// Events: none. Only an update of the pod itself can lift the rejection (and those
// fields are immutable), so no cluster event requeues the pod; the queue's periodic
// flush still retries it.
//
// Thread-safety: stateless; PreFilter runs on the scheduling thread.

#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

class UnsupportedPodConstraints final : public PreFilterPlugin, public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "UnsupportedPodConstraints";

  // A PluginFactory. No args.
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New and the extension points of its
  // interfaces.
  static PluginDescriptor Descriptor();

  absl::string_view Name() const override { return kName; }
  Status PreFilter(CycleState& state, const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                   PreFilterResult& result) override;
  std::vector<ClusterEvent> EventsToRegister() const override { return {}; }
};

}  // namespace trimaran::sched::plugins
