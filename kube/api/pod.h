#pragma once
// Pod (core/v1), reduced to what a scheduler reads (spec: containers and their requests,
// placement constraints, priority; status: phase, conditions, nomination) and what it
// writes back (PodScheduled condition, nominatedNodeName).
//
// Defaults applied by the decoder exactly as the apiserver would have applied them to
// a stored object: schedulerName "default-scheduler", toleration operator Equal,
// container port protocol TCP, phase Pending. Other missing fields are zero/empty.
//
// Thread-safety: plain values; const access is safe for concurrent use, mutation is
// externally synchronized. Informers hand out shared immutable pods.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "kube/api/affinity.h"
#include "kube/api/condition_status.h"
#include "kube/api/object_meta.h"
#include "kube/api/resource_list.h"
#include "kube/api/taint.h"
#include "kube/api/topology_spread_constraint.h"
#include "kube/api/unrecognized.h"
#include "kube/api/volume.h"

namespace trimaran::kube {

inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";
// The condition the scheduler reports failures with (status False).
inline constexpr std::string_view kPodScheduled = "PodScheduled";
// PodScheduled=False reasons.
inline constexpr std::string_view kPodReasonUnschedulable = "Unschedulable";
inline constexpr std::string_view kPodReasonSchedulerError = "SchedulerError";
inline constexpr std::string_view kPodReasonSchedulingGated = "SchedulingGated";

enum class Protocol {
  kTCP,
  kUDP,
  kSCTP,
  kUnrecognized,  // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(Protocol p) {
  switch (p) {
    case Protocol::kTCP:
      return "TCP";
    case Protocol::kUDP:
      return "UDP";
    case Protocol::kSCTP:
      return "SCTP";
    case Protocol::kUnrecognized:
      return kUnrecognizedEnumValue;
  }
  return "";
}

struct ContainerPort {
  std::string name;
  int32_t container_port = 0;
  // 0 = no host port. NodePorts only considers ports with host_port > 0.
  int32_t host_port = 0;
  Protocol protocol = Protocol::kTCP;
  std::string host_ip;

  bool operator==(const ContainerPort&) const = default;
};

struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;  // carried for fidelity; the scheduler ignores limits

  bool operator==(const ResourceRequirements&) const = default;
};

enum class ContainerRestartPolicy {
  kUnset,  // JSON missing: a regular (init) container
  // On an init container: a sidecar that keeps running next to the app containers, so
  // its requests count for the whole pod lifetime.
  kAlways,
  kOnFailure,
  kNever,
  kUnrecognized,  // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(ContainerRestartPolicy p) {
  switch (p) {
    case ContainerRestartPolicy::kUnset:
      return "";
    case ContainerRestartPolicy::kAlways:
      return "Always";
    case ContainerRestartPolicy::kOnFailure:
      return "OnFailure";
    case ContainerRestartPolicy::kNever:
      return "Never";
    case ContainerRestartPolicy::kUnrecognized:
      return kUnrecognizedEnumValue;
  }
  return "";
}

struct Container {
  std::string name;
  std::string image;
  ResourceRequirements resources;
  std::vector<ContainerPort> ports;
  ContainerRestartPolicy restart_policy = ContainerRestartPolicy::kUnset;

  bool operator==(const Container&) const = default;
};

// True for an init container that is a sidecar (restartPolicy: Always).
inline bool IsRestartableInitContainer(const Container& c) {
  return c.restart_policy == ContainerRestartPolicy::kAlways;
}

enum class PreemptionPolicy {
  kPreemptLowerPriority,  // default: may evict lower-priority pods to fit
  kNever,                 // never preempts; waits in the queue instead
  kUnrecognized,          // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(PreemptionPolicy p) {
  if (p == PreemptionPolicy::kUnrecognized) return kUnrecognizedEnumValue;
  return p == PreemptionPolicy::kNever ? "Never" : "PreemptLowerPriority";
}

struct PodSchedulingGate {
  std::string name;

  bool operator==(const PodSchedulingGate&) const = default;
};

// spec.resourceClaims[] (Dynamic Resource Allocation, resource.k8s.io/v1, GA in 1.34):
// the claims the pod's containers use. Trimaran does not implement DynamicResources;
// it decodes them so that such a pod is refused, never bound blind
// (scheduler/runtime/unsupported_pods.h).
struct PodResourceClaim {
  std::string name;
  std::string resource_claim_name;           // an existing ResourceClaim, or
  std::string resource_claim_template_name;  // a template a claim is made from

  bool operator==(const PodResourceClaim&) const = default;
};

// spec.schedulingGroup (the Workload API's gang scheduling, GenericWorkload, 1.36+; it
// replaced 1.35's workloadRef): the PodGroup (scheduling.k8s.io) the pod is scheduled
// with. Refused as resourceClaims are.
struct PodSchedulingGroup {
  std::string pod_group_name;

  bool operator==(const PodSchedulingGroup&) const = default;
};

struct PodSpec {
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  // RuntimeClass overhead, added on top of the containers' requests.
  ResourceList overhead;
  std::string node_name;
  std::string scheduler_name = std::string(kDefaultSchedulerName);
  StringMap node_selector;
  std::optional<Affinity> affinity;
  std::vector<Toleration> tolerations;
  // Resolved from priorityClassName by admission; unset reads as 0 (see PodPriority).
  std::optional<int32_t> priority;
  std::string priority_class_name;
  std::optional<PreemptionPolicy> preemption_policy;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  // While non-empty the pod is not schedulable (it stays gated in the queue).
  std::vector<PodSchedulingGate> scheduling_gates;
  // Pod-level resources (PodLevelResources feature); replace the container aggregate.
  std::optional<ResourceRequirements> resources;
  bool host_network = false;
  // spec.volumes (kube/api/volume.h): what the volume plugins read.
  std::vector<Volume> volumes;
  std::vector<PodResourceClaim> resource_claims;
  std::optional<PodSchedulingGroup> scheduling_group;

  bool operator==(const PodSpec&) const = default;
};

enum class PodPhase {
  kPending,
  kRunning,
  kSucceeded,  // terminal
  kFailed,     // terminal
  kUnknown,
  kUnrecognized,  // any other string (kube/api/unrecognized.h)
};

constexpr std::string_view ToString(PodPhase p) {
  switch (p) {
    case PodPhase::kPending:
      return "Pending";
    case PodPhase::kRunning:
      return "Running";
    case PodPhase::kSucceeded:
      return "Succeeded";
    case PodPhase::kFailed:
      return "Failed";
    case PodPhase::kUnknown:
      return "Unknown";
    case PodPhase::kUnrecognized:
      return kUnrecognizedEnumValue;
  }
  return "";
}

struct PodCondition {
  std::string type;  // "PodScheduled", "Ready", "Initialized", "ContainersReady", ...
  ConditionStatus status = ConditionStatus::kUnknown;
  std::optional<int64_t> observed_generation;
  std::optional<absl::Time> last_probe_time;
  std::optional<absl::Time> last_transition_time;
  std::string reason;
  std::string message;

  bool operator==(const PodCondition&) const = default;
};

// What in-place pod resize (GA in 1.35) reports of one container in
// status.containerStatuses[] / status.initContainerStatuses[]; the rest of a container
// status (state, image, restarts, ...) is not decoded.
struct ContainerStatus {
  std::string name;
  // allocatedResources: what the kubelet admitted for the container; nullopt when absent.
  std::optional<ResourceList> allocated_resources;
  // resources: what the container runtime applied; nullopt when absent.
  std::optional<ResourceRequirements> resources;

  bool operator==(const ContainerStatus&) const = default;
};

// The PodResizePending condition's type and its reasons (core/v1).
inline constexpr std::string_view kPodResizePending = "PodResizePending";
inline constexpr std::string_view kPodResizeInProgress = "PodResizeInProgress";
inline constexpr std::string_view kPodReasonInfeasible = "Infeasible";
inline constexpr std::string_view kPodReasonDeferred = "Deferred";

struct PodStatus {
  PodPhase phase = PodPhase::kPending;
  std::vector<PodCondition> conditions;
  std::string nominated_node_name;
  std::optional<absl::Time> start_time;
  std::vector<ContainerStatus> container_statuses;
  std::vector<ContainerStatus> init_container_statuses;
  // Pod-level in-place resize (InPlacePodLevelResourcesVerticalScaling, beta and on in
  // 1.36): status.allocatedResources and status.resources, nullopt when absent.
  std::optional<ResourceList> allocated_resources;
  std::optional<ResourceRequirements> resources;

  bool operator==(const PodStatus&) const = default;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;

  bool operator==(const Pod&) const = default;
};

// "namespace/name".
inline std::string NamespacedName(const Pod& pod) { return NamespacedName(pod.metadata); }

// Succeeded or Failed: the pod no longer uses node resources.
bool IsTerminal(const Pod& pod);
// spec.nodeName is set (bound, or being bound).
inline bool IsAssigned(const Pod& pod) { return !pod.spec.node_name.empty(); }
// metadata.deletionTimestamp is set.
inline bool IsTerminating(const Pod& pod) { return pod.metadata.deletion_timestamp.has_value(); }
// spec.priority, or 0 when unset (as upstream's corev1helpers.PodPriority).
inline int32_t PodPriority(const Pod& pod) { return pod.spec.priority.value_or(0); }
// The condition of `type`, or nullptr.
const PodCondition* FindCondition(const PodStatus& status, std::string_view type);

}  // namespace trimaran::kube
