#pragma once
// Pod request computation: the one function every plugin and the node cache use to
// know what a pod asks for (kube-scheduler spec §2.1), plus the "non-zero" variant used
// only for scoring (§2.5).
//
//   podRequest(r) = max(Σ containers(r) + Σ sidecars(r), max_i initUsage_i(r)) + overhead(r)
//
// where a sidecar is an init container with restartPolicy Always, the init-phase usage of
// a regular init container is its request plus the requests of the sidecars declared
// before it, and that of a sidecar is the sum of the sidecars up to and including it.
// Pod-level requests (spec.resources.requests) for cpu, memory and hugepages-* replace
// the container aggregate for that resource; overhead is still added.
//
// In-place resize, as kube-scheduler 1.37 counts it (InPlacePodVerticalScaling GA,
// InPlacePodLevelResourcesVerticalScaling beta and on): each container sum above is taken
// three times, over the spec, over status.containerStatuses[].allocatedResources and over
// .resources.requests (what runs), and a pod holds the per-resource max of the three, so
// a shrink frees nothing until the kubelet has applied it and a growth counts at once.
// When the resize is Infeasible (condition PodResizePending, reason Infeasible) the spec
// is left out of the max. The pod-level status.allocatedResources/resources replace the
// two status sums when both are reported, and enter the pod-level max likewise.
//
// Resource is the compact, allocation-free-for-common-pods form used on the hot path
// (upstream's framework.Resource): cpu in millicores, everything else in base units
// (bytes, counts); extended resources, hugepages and other scalar resources in `scalar`.
//
// Thread-safety: Resource is a value; the functions are pure and safe for concurrent use.

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "kube/api/pod.h"
#include "kube/api/resource_list.h"

namespace trimaran::kube {

// Non-zero defaults applied per container, for scoring only (§2.5).
inline constexpr int64_t kDefaultMilliCPURequest = 100;                // 0.1 core
inline constexpr int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;  // 200 MiB

struct Resource {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  // From "pods": a node's pod capacity (meaningless in a pod's requests).
  int64_t allowed_pod_number = 0;
  // Extended ("nvidia.com/gpu"), hugepages-*, and other scalar resources.
  absl::flat_hash_map<std::string, int64_t> scalar;

  // Converts a ResourceList: cpu -> milli_cpu (MilliValue), memory/ephemeral-storage/pods
  // (Value, rounded up), scalar resources (IsScalarResourceName) into `scalar`; other
  // names are ignored. Values saturate rather than overflow.
  static Resource FromResourceList(const ResourceList& list);

  // this += other (saturating).
  void Add(const Resource& other);
  // this -= other (saturating); used when a pod leaves a node.
  void Sub(const Resource& other);
  // this = max(this, other), field by field (scalar resources by name).
  void SetMaxResource(const Resource& other);
  // Adds one ResourceList entry.
  void AddResource(std::string_view name, const Quantity& quantity);

  // The amount of `name` (cpu in millicores), 0 if absent.
  int64_t Get(std::string_view name) const;
  void Set(std::string_view name, int64_t value);

  // Everything is zero (scalar entries with value 0 count as zero).
  bool IsZero() const;

  friend bool operator==(const Resource& a, const Resource& b);
  // "cpu=500m memory=1073741824 nvidia.com/gpu=1", for logs and test failures.
  std::string DebugString() const;
};

struct PodRequestOptions {
  // Apply the per-container non-zero cpu/memory defaults (scoring only).
  bool non_zero = false;
  // Leave out spec.overhead.
  bool exclude_overhead = false;
};

// The effective request of `pod` (§2.1, and §2.5 when options.non_zero).
Resource ComputePodRequests(const Pod& pod, PodRequestOptions options = {});

// True for resources that spec.resources.requests (pod-level) may set: cpu, memory and
// hugepages-*.
bool IsSupportedPodLevelResource(std::string_view name);

// The pod's PodResizePending condition has reason Infeasible (upstream's
// IsPodResizeInfeasible).
bool IsPodResizeInfeasible(const Pod& pod);

}  // namespace trimaran::kube
