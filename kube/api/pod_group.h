#pragma once
// PodGroup (scheduling.x-k8s.io/v1alpha1, the CRD of kubernetes-sigs/scheduler-plugins'
// Coscheduling): a gang of pods that join it with the label
// `scheduling.x-k8s.io/pod-group: <name>` in the PodGroup's namespace. The spec says how
// many must be placed together (minMember), optionally how much they need in total
// (minResources) and how long members may wait at Permit (scheduleTimeoutSeconds); the
// status is written by the scheduler (deploy/components/coscheduling, docs/plugins.md).
//
// Decoding is as lenient as the rest of kube/api: an unknown phase reads as
// PodGroupPhase::kUnrecognized, missing fields as zero.
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "kube/api/list.h"
#include "kube/api/object_meta.h"
#include "kube/api/pod.h"
#include "kube/api/resource_list.h"

namespace trimaran::kube {

// The label that makes a pod a member of the PodGroup of that name (same namespace).
inline constexpr std::string_view kPodGroupLabel = "scheduling.x-k8s.io/pod-group";
inline constexpr std::string_view kPodGroupApiVersion = "scheduling.x-k8s.io/v1alpha1";

// status.phase; kNone is the empty string (a PodGroup nobody has looked at yet).
enum class PodGroupPhase {
  kNone,
  kPending,     // fewer than minMember pods exist
  kScheduling,  // enough pods exist; not yet minMember scheduled
  kScheduled,   // minMember pods have a node
  kRunning,     // minMember pods are running (or succeeded)
  kFinished,    // minMember pods succeeded
  kFailed,      // a pod failed and the group cannot reach minMember any more
  kUnrecognized,
};

// "Pending", ..., "" for kNone, "<unrecognized>" for kUnrecognized.
std::string_view PodGroupPhaseName(PodGroupPhase phase);
// The inverse; kUnrecognized for any other string.
PodGroupPhase ParsePodGroupPhase(std::string_view name);

struct PodGroupSpec {
  int32_t min_member = 0;
  // Total resources the group needs; "pods" is always minMember (upstream's rule).
  std::optional<ResourceList> min_resources;
  std::optional<int32_t> schedule_timeout_seconds;

  bool operator==(const PodGroupSpec&) const = default;
};

struct PodGroupStatus {
  PodGroupPhase phase = PodGroupPhase::kNone;
  std::string occupied_by;  // "namespace/ownerName" of the first member's owner
  int32_t scheduled = 0;
  int32_t running = 0;
  int32_t succeeded = 0;
  int32_t failed = 0;
  std::optional<absl::Time> schedule_start_time;

  bool operator==(const PodGroupStatus&) const = default;
};

struct PodGroup {
  ObjectMeta metadata;
  PodGroupSpec spec;
  PodGroupStatus status;

  bool operator==(const PodGroup&) const = default;
};

using PodGroupList = List<PodGroup>;

// The PodGroup name `pod` belongs to ("" when it has no pod-group label).
std::string_view PodGroupNameOf(const Pod& pod);
// "namespace/group" of `pod` ("" when it has no pod-group label).
std::string PodGroupFullNameOf(const Pod& pod);

}  // namespace trimaran::kube
