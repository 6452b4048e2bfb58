#include "scheduler/plugins/registry.h"

#include "common/status_macros.h"
#include "scheduler/plugins/default_binder/default_binder.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"
#include "scheduler/plugins/node_name/node_name.h"
#include "scheduler/plugins/node_ports/node_ports.h"
#include "scheduler/plugins/node_resources_balanced_allocation/node_resources_balanced_allocation.h"
#include "scheduler/plugins/node_resources_fit/node_resources_fit.h"
#include "scheduler/plugins/node_unschedulable/node_unschedulable.h"
#include "scheduler/plugins/queue_sort/priority_sort.h"
#include "scheduler/plugins/taint_toleration/taint_toleration.h"
#include "scheduler/plugins/unsupported_constraints/unsupported_constraints.h"

namespace trimaran::sched::plugins {

absl::Status RegisterInTreePlugins(Registry& registry) {
  // Sorted by name.
  TRIMARAN_RETURN_IF_ERROR(registry.Register(DefaultBinder::kName, &DefaultBinder::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodeAffinity::kName, &NodeAffinity::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodeName::kName, &NodeName::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodePorts::kName, &NodePorts::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodeResourcesBalancedAllocation::kName,
                                             &NodeResourcesBalancedAllocation::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodeResourcesFit::kName, &NodeResourcesFit::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodeUnschedulable::kName, &NodeUnschedulable::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(PrioritySort::kName, &PrioritySort::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(TaintToleration::kName, &TaintToleration::New));
  TRIMARAN_RETURN_IF_ERROR(
      registry.Register(UnsupportedPodConstraints::kName, &UnsupportedPodConstraints::New));
  return absl::OkStatus();
}

}  // namespace trimaran::sched::plugins
