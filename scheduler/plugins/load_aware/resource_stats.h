#pragma once
// The shared resource math of LoadVariationRiskBalancing and LowRiskOverCommitment
// (spec §1.2, §1.4, §1.5; upstream pkg/trimaran/resourcestats.go). TargetLoadPacking
// does NOT use it (it predicts per container, see target_load_packing.h).
//
//   PodRequests: cpu millicores and memory bytes of kube::ComputePodRequests, the
//     effective request kube-scheduler 1.37 computes (sidecars, pod-level resources, the
//     in-place resize status). Upstream Trimaran sums spec.containers, max'ed with each
//     init container, plus overhead: the same for every pod without sidecars, pod-level
//     resources or a resize, and an under-count for sidecars (which run the pod's whole
//     life) that this fixes.
//   PodLimits (§1.2): cpu millicores and memory bytes of the limits summed over
//     spec.containers, then max'ed with EACH init container on its own (no sidecar
//     special case), then plus spec.overhead, as upstream. An absent limit counts 0.
//   SetMaxLimits: limit = max(limit, request) per resource.
//   CreateResourceStats (§1.4): capacity from node.status.ALLOCATABLE (cpu millicores,
//     memory MiB = bytes × 2^-20), UsedAvg = avg% × Capacity / 100, UsedStdev likewise.
//   MuSigma: (clamp((UsedAvg + Req)/Capacity, 0, 1), clamp(UsedStdev/Capacity, 0, 1));
//     (0, 0) when Capacity <= 0.
//   NodeRequestsAndLimits (§1.5): sums over the node's pods (NodeInfo: bound and
//     assumed) with SetMaxLimits per pod, the totals before the pending pod, then the
//     pending pod added; requests (not limits) clamped to allocatable.
//
// Float evaluation order follows the spec (the plugins' targets build with
// -ffp-contract=off). Thread-safety: pure functions.

#include <cstdint>

#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/plugins/load_aware/metrics_view.h"

namespace trimaran::sched::plugins::load_aware {

struct CpuMem {
  int64_t milli_cpu = 0;
  int64_t memory = 0;  // bytes

  friend bool operator==(const CpuMem&, const CpuMem&) = default;
};

CpuMem PodRequests(const kube::Pod& pod);
CpuMem PodLimits(const kube::Pod& pod);
void SetMaxLimits(const CpuMem& requests, CpuMem& limits);

enum class StatsResource { kCpu, kMemory };

struct ResourceStats {
  double capacity = 0;    // cpu millicores or memory MiB
  double req = 0;         // same unit
  double used_avg = 0;    // same unit
  double used_stdev = 0;  // same unit
};

// Spec §1.4. `request` is the pod's request in the resource's base unit (millicores or
// bytes). The caller checks data.valid first.
ResourceStats CreateResourceStats(const ResourceData& data, const kube::Node& node, int64_t request,
                                  StatsResource resource);
// The same with the node's allocatable already converted (Allocatable(node)): what a
// per-node record keeps so that Score does no Quantity conversion.
ResourceStats CreateResourceStats(const ResourceData& data, const CpuMem& allocatable,
                                  int64_t request, StatsResource resource);

struct MuSigma {
  double mu = 0;
  double sigma = 0;
};
MuSigma GetMuSigma(const ResourceStats& stats);

struct NodeTotals {
  CpuMem request;            // with the pod, clamped to capacity
  CpuMem limit;              // with the pod, not clamped
  CpuMem request_minus_pod;  // clamped to capacity
  CpuMem limit_minus_pod;    // not clamped
  CpuMem capacity;           // allocatable
};
NodeTotals NodeRequestsAndLimits(const NodeInfo& node_info, const CpuMem& pod_requests,
                                 const CpuMem& pod_limits);
// The same with the node's allocatable already converted (Allocatable(node), or zero
// without a node).
NodeTotals NodeRequestsAndLimits(const NodeInfo& node_info, const CpuMem& allocatable,
                                 const CpuMem& pod_requests, const CpuMem& pod_limits);

// node.status.allocatable cpu (millicores) and memory (bytes); 0 when absent.
CpuMem Allocatable(const kube::Node& node);

}  // namespace trimaran::sched::plugins::load_aware
