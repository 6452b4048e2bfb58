#include "scheduler/plugins/registry.h"

#include <utility>

#include "absl/strings/string_view.h"
#include "common/check.h"
#include "common/status_macros.h"
#include "scheduler/plugins/coscheduling/coscheduling.h"
#include "scheduler/plugins/default_binder/default_binder.h"
#include "scheduler/plugins/default_preemption/default_preemption.h"
#include "scheduler/plugins/image_locality/image_locality.h"
#include "scheduler/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "scheduler/plugins/load_variation_risk_balancing/load_variation_risk_balancing.h"
#include "scheduler/plugins/low_risk_over_commitment/low_risk_over_commitment.h"
#include "scheduler/plugins/node_affinity/node_affinity.h"
#include "scheduler/plugins/node_name/node_name.h"
#include "scheduler/plugins/node_ports/node_ports.h"
#include "scheduler/plugins/node_resources_balanced_allocation/node_resources_balanced_allocation.h"
#include "scheduler/plugins/node_resources_fit/node_resources_fit.h"
#include "scheduler/plugins/node_unschedulable/node_unschedulable.h"
#include "scheduler/plugins/node_volume_limits/node_volume_limits.h"
#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"
#include "scheduler/plugins/queue_sort/priority_sort.h"
#include "scheduler/plugins/scheduling_gates/scheduling_gates.h"
#include "scheduler/plugins/taint_toleration/taint_toleration.h"
#include "scheduler/plugins/target_load_packing/target_load_packing.h"
#include "scheduler/plugins/volume_binding/volume_binding.h"
#include "scheduler/plugins/volume_restrictions/volume_restrictions.h"
#include "scheduler/plugins/volume_zone/volume_zone.h"

namespace trimaran::sched::plugins {

absl::Status RegisterInTreePlugins(Registry& registry) {
  // One line per plugin, sorted by name; each describes itself in its own folder.
  const std::pair<absl::string_view, PluginDescriptor (*)()> kInTree[] = {
      {Coscheduling::kName, &Coscheduling::Descriptor},
      {DefaultBinder::kName, &DefaultBinder::Descriptor},
      {DefaultPreemption::kName, &DefaultPreemption::Descriptor},
      {ImageLocality::kName, &ImageLocality::Descriptor},
      {InterPodAffinity::kName, &InterPodAffinity::Descriptor},
      {LoadVariationRiskBalancing::kName, &LoadVariationRiskBalancing::Descriptor},
      {LowRiskOverCommitment::kName, &LowRiskOverCommitment::Descriptor},
      {NodeAffinity::kName, &NodeAffinity::Descriptor},
      {NodeName::kName, &NodeName::Descriptor},
      {NodePorts::kName, &NodePorts::Descriptor},
      {NodeResourcesBalancedAllocation::kName, &NodeResourcesBalancedAllocation::Descriptor},
      {NodeResourcesFit::kName, &NodeResourcesFit::Descriptor},
      {NodeUnschedulable::kName, &NodeUnschedulable::Descriptor},
      {NodeVolumeLimits::kName, &NodeVolumeLimits::Descriptor},
      {PodTopologySpread::kName, &PodTopologySpread::Descriptor},
      {PrioritySort::kName, &PrioritySort::Descriptor},
      {SchedulingGates::kName, &SchedulingGates::Descriptor},
      {TaintToleration::kName, &TaintToleration::Descriptor},
      {TargetLoadPacking::kName, &TargetLoadPacking::Descriptor},
      {VolumeBinding::kName, &VolumeBinding::Descriptor},
      {VolumeRestrictions::kName, &VolumeRestrictions::Descriptor},
      {VolumeZone::kName, &VolumeZone::Descriptor},
  };
  for (const auto& [name, descriptor] : kInTree) {
    TRIMARAN_RETURN_IF_ERROR(registry.Register(name, descriptor()));
  }
  return absl::OkStatus();
}

Registry InTreeRegistry() {
  Registry registry;
  const absl::Status status = RegisterInTreePlugins(registry);
  // Only distinct in-tree names can make this fail.
  TRIMARAN_CHECK(status.ok()) << status;
  return registry;
}

}  // namespace trimaran::sched::plugins
