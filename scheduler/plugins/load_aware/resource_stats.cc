#include "scheduler/plugins/load_aware/resource_stats.h"

#include <algorithm>

#include "kube/api/pod_resources.h"
#include "kube/api/resource_list.h"

namespace trimaran::sched::plugins::load_aware {
namespace {

int64_t MilliCpu(const kube::ResourceList& list) {
  auto it = list.find(kube::kResourceCPU);
  return it == list.end() ? 0 : it->second.MilliValue();
}
int64_t Bytes(const kube::ResourceList& list) {
  auto it = list.find(kube::kResourceMemory);
  return it == list.end() ? 0 : it->second.Value();
}

// Upstream Trimaran's sum of limits: containers, max with each init container, overhead.
CpuMem Aggregate(const kube::Pod& pod, bool limits) {
  auto of = [limits](const kube::Container& c) -> const kube::ResourceList& {
    return limits ? c.resources.limits : c.resources.requests;
  };
  CpuMem sum;
  for (const kube::Container& c : pod.spec.containers) {
    sum.milli_cpu += MilliCpu(of(c));
    sum.memory += Bytes(of(c));
  }
  for (const kube::Container& c : pod.spec.init_containers) {
    sum.milli_cpu = std::max(sum.milli_cpu, MilliCpu(of(c)));
    sum.memory = std::max(sum.memory, Bytes(of(c)));
  }
  if (!pod.spec.overhead.empty()) {
    sum.milli_cpu += MilliCpu(pod.spec.overhead);
    sum.memory += Bytes(pod.spec.overhead);
  }
  return sum;
}

void Add(CpuMem& a, const CpuMem& b) {
  a.milli_cpu += b.milli_cpu;
  a.memory += b.memory;
}

}  // namespace

CpuMem PodRequests(const kube::Pod& pod) {
  const kube::Resource r = kube::ComputePodRequests(pod);
  return CpuMem{r.milli_cpu, r.memory};
}
CpuMem PodLimits(const kube::Pod& pod) { return Aggregate(pod, /*limits=*/true); }

void SetMaxLimits(const CpuMem& requests, CpuMem& limits) {
  limits.milli_cpu = std::max(limits.milli_cpu, requests.milli_cpu);
  limits.memory = std::max(limits.memory, requests.memory);
}

CpuMem Allocatable(const kube::Node& node) {
  return CpuMem{MilliCpu(node.status.allocatable), Bytes(node.status.allocatable)};
}

ResourceStats CreateResourceStats(const ResourceData& data, const kube::Node& node, int64_t request,
                                  StatsResource resource) {
  return CreateResourceStats(data, Allocatable(node), request, resource);
}

ResourceStats CreateResourceStats(const ResourceData& data, const CpuMem& allocatable,
                                  int64_t request, StatsResource resource) {
  constexpr double kMiB = 1.0 / 1048576.0;  // 2^-20, exact
  ResourceStats s;
  if (resource == StatsResource::kCpu) {
    s.capacity = static_cast<double>(allocatable.milli_cpu);
    s.req = static_cast<double>(request);
  } else {
    s.capacity = static_cast<double>(allocatable.memory) * kMiB;
    s.req = static_cast<double>(request) * kMiB;
  }
  s.used_avg = data.avg * s.capacity / 100;
  s.used_stdev = data.std * s.capacity / 100;
  return s;
}

MuSigma GetMuSigma(const ResourceStats& stats) {
  if (stats.capacity <= 0) return {};
  MuSigma ms;
  ms.mu = std::clamp((stats.used_avg + stats.req) / stats.capacity, 0.0, 1.0);
  ms.sigma = std::clamp(stats.used_stdev / stats.capacity, 0.0, 1.0);
  return ms;
}

NodeTotals NodeRequestsAndLimits(const NodeInfo& node_info, const CpuMem& pod_requests,
                                 const CpuMem& pod_limits) {
  return NodeRequestsAndLimits(
      node_info, node_info.node() != nullptr ? Allocatable(*node_info.node()) : CpuMem{},
      pod_requests, pod_limits);
}

NodeTotals NodeRequestsAndLimits(const NodeInfo& node_info, const CpuMem& allocatable,
                                 const CpuMem& pod_requests, const CpuMem& pod_limits) {
  NodeTotals t;
  t.capacity = allocatable;
  for (const PodInfo& p : node_info.pods()) {
    const CpuMem req = PodRequests(*p.pod);
    CpuMem lim = PodLimits(*p.pod);
    SetMaxLimits(req, lim);
    Add(t.request, req);
    Add(t.limit, lim);
  }
  t.request_minus_pod = t.request;
  t.limit_minus_pod = t.limit;
  Add(t.request, pod_requests);
  Add(t.limit, pod_limits);
  t.request.milli_cpu = std::min(t.request.milli_cpu, t.capacity.milli_cpu);
  t.request.memory = std::min(t.request.memory, t.capacity.memory);
  t.request_minus_pod.milli_cpu = std::min(t.request_minus_pod.milli_cpu, t.capacity.milli_cpu);
  t.request_minus_pod.memory = std::min(t.request_minus_pod.memory, t.capacity.memory);
  return t;
}

}  // namespace trimaran::sched::plugins::load_aware
