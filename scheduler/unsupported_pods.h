#pragma once
// Pods trimaran-scheduler refuses to place because they need a scheduling feature it does
// not implement, so that such a pod is never bound blind to a node where it cannot start
// (docs/configuration.md, "Differences from kube-scheduler"):
//
//   spec.resourceClaims     Dynamic Resource Allocation (resource.k8s.io/v1, GA in 1.34):
//                           kube-scheduler's DynamicResources plugin allocates the claims
//                           on a node; trimaran does not implement it.
//   spec.schedulingGroup    the Workload API's gang scheduling (scheduling.k8s.io, 1.36+,
//                           GenericWorkload): kube-scheduler places the group together;
//                           trimaran's gang scheduling is Coscheduling with PodGroups of
//                           scheduling.x-k8s.io, not this API.
//
// The refusal is UnschedulableAndUnresolvable from the pseudo-plugin named below, before
// PreFilter (no node is examined, no preemption is tried): the pod gets the usual
// FailedScheduling event and PodScheduled=False condition with a message that says which
// field and what to do instead, and stays pending (the fields are immutable; a retry at
// the queue's periodic flush refuses it again). Counted by the daemon in
// trimaran_unsupported_pods_total{feature}.
//
// Thread-safety: pure functions.

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/status.h"

namespace trimaran::sched {

struct UnsupportedPod {
  absl::string_view feature;  // the metric's label: "dynamic_resources" or "workload"
  Status status;              // UnschedulableAndUnresolvable, with the plugin and message
};

inline constexpr char kDynamicResourcesPlugin[] = "DynamicResources";
inline constexpr char kWorkloadSchedulingPlugin[] = "GangScheduling";

// Why `pod` is refused, or nullopt when trimaran can place it.
std::optional<UnsupportedPod> RefuseUnsupported(const kube::Pod& pod);

}  // namespace trimaran::sched
