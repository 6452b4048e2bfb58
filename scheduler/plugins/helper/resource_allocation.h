#pragma once
// Per-resource node allocation for the resource-scoring plugins (NodeResourcesFit and
// NodeResourcesBalancedAllocation Score; upstream's resourceAllocationScorer,
// calculateResourceAllocatableRequest). One definition of "how much of resource r can
// this node hold, and how much of it do its pods already use":
//
//   resource            capacity                 used
//   cpu, memory         allocatable              requested or non-zero requested
//                                                (CpuMemoryUsage, chosen by the caller)
//   ephemeral-storage   allocatable              requested
//   any other name      allocatable scalar entry requested scalar entry (0 if absent)
//
// NodeAllocation returns nullopt when the resource does not count on the node: another
// name with no allocatable entry, or a capacity ≤ 0. `used` excludes the pod being
// scored; callers add its request in the width they need (128-bit or double).
//
// A scoring resource is classified once, at plugin construction (ClassifyResource), so
// NodeAllocation is a switch on the precomputed kind. It is inline and allocation-free;
// only resources of kind kOther cost hash lookups, by the stored name (no copies).
//
// Thread-safety: pure functions of their arguments; AllocationResource is a value.
// Ownership: NodeAllocation borrows its arguments for the call only.

#include <cstdint>
#include <optional>
#include <string>

#include "kube/api/pod_resources.h"
#include "scheduler/framework/node_info.h"

namespace trimaran::sched::plugins::helper {

enum class ResourceKind : uint8_t { kCpu, kMemory, kEphemeralStorage, kOther };

// Which of the node's figures counts as its cpu and memory usage.
enum class CpuMemoryUsage : uint8_t {
  kRequested,         // NodeInfo::requested(): the pods' actual requests
  kNonZeroRequested,  // NodeInfo::non_zero_requested(): with the non-zero defaults
};

// A scoring resource, classified once.
struct AllocationResource {
  std::string name;
  ResourceKind kind = ResourceKind::kOther;
  bool scalar = false;  // kube::IsScalarResourceName(name)
};

// Classifies `name` (cpu, memory, ephemeral-storage or other; scalar or not).
AllocationResource ClassifyResource(std::string name);

struct NodeResourceAllocation {
  int64_t capacity = 0;  // > 0
  int64_t used = 0;      // by the node's pods, without the pod being scored
};

// The node's capacity and usage of `resource`; nullopt when it does not count (see
// above). `usage` selects the cpu/memory figure; other resources ignore it.
inline std::optional<NodeResourceAllocation> NodeAllocation(const NodeInfo& node_info,
                                                            const AllocationResource& resource,
                                                            CpuMemoryUsage usage) {
  const kube::Resource& alloc = node_info.allocatable();
  const kube::Resource& requested = node_info.requested();
  const kube::Resource& cpu_memory =
      usage == CpuMemoryUsage::kNonZeroRequested ? node_info.non_zero_requested() : requested;
  NodeResourceAllocation out;
  switch (resource.kind) {
    case ResourceKind::kCpu:
      out = {alloc.milli_cpu, cpu_memory.milli_cpu};
      break;
    case ResourceKind::kMemory:
      out = {alloc.memory, cpu_memory.memory};
      break;
    case ResourceKind::kEphemeralStorage:
      out = {alloc.ephemeral_storage, requested.ephemeral_storage};
      break;
    case ResourceKind::kOther: {
      const auto a = alloc.scalar.find(resource.name);
      if (a == alloc.scalar.end()) return std::nullopt;
      const auto r = requested.scalar.find(resource.name);
      out = {a->second, r == requested.scalar.end() ? 0 : r->second};
      break;
    }
  }
  if (out.capacity <= 0) return std::nullopt;
  return out;
}

}  // namespace trimaran::sched::plugins::helper
