#include "scheduler/plugins/helper/resource_allocation.h"

#include <utility>

#include "kube/api/resource_list.h"

namespace trimaran::sched::plugins::helper {

AllocationResource ClassifyResource(std::string name) {
  ResourceKind kind = ResourceKind::kOther;
  if (name == kube::kResourceCPU) {
    kind = ResourceKind::kCpu;
  } else if (name == kube::kResourceMemory) {
    kind = ResourceKind::kMemory;
  } else if (name == kube::kResourceEphemeralStorage) {
    kind = ResourceKind::kEphemeralStorage;
  }
  const bool scalar = kube::IsScalarResourceName(name);
  return AllocationResource{std::move(name), kind, scalar};
}

}  // namespace trimaran::sched::plugins::helper
