#include "scheduler/plugins/registry.h"

#include "absl/strings/str_replace.h"
#include "common/status_macros.h"
#include "scheduler/plugins/node_affinity/args.h"
#include "scheduler/plugins/node_resources_balanced_allocation/args.h"
#include "scheduler/plugins/node_resources_fit/args.h"
#include "scheduler/plugins/default_binder/default_binder.h"
#include "scheduler/plugins/load_variation_risk_balancing/args.h"
#include "scheduler/plugins/load_variation_risk_balancing/load_variation_risk_balancing.h"
#include "scheduler/plugins/low_risk_over_commitment/args.h"
#include "scheduler/plugins/low_risk_over_commitment/low_risk_over_commitment.h"
#include "scheduler/plugins/target_load_packing/args.h"
#include "scheduler/plugins/target_load_packing/target_load_packing.h"
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
  TRIMARAN_RETURN_IF_ERROR(
      registry.Register(LoadVariationRiskBalancing::kName, &LoadVariationRiskBalancing::New));
  TRIMARAN_RETURN_IF_ERROR(
      registry.Register(LowRiskOverCommitment::kName, &LowRiskOverCommitment::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodeAffinity::kName, &NodeAffinity::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodeName::kName, &NodeName::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodePorts::kName, &NodePorts::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodeResourcesBalancedAllocation::kName,
                                             &NodeResourcesBalancedAllocation::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodeResourcesFit::kName, &NodeResourcesFit::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(NodeUnschedulable::kName, &NodeUnschedulable::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(PrioritySort::kName, &PrioritySort::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(TaintToleration::kName, &TaintToleration::New));
  TRIMARAN_RETURN_IF_ERROR(registry.Register(TargetLoadPacking::kName, &TargetLoadPacking::New));
  TRIMARAN_RETURN_IF_ERROR(
      registry.Register(UnsupportedPodConstraints::kName, &UnsupportedPodConstraints::New));
  return absl::OkStatus();
}

namespace {

// Wraps a plugin's Decode*Args as a catalog validator: the decoders join their field
// errors with "; ", Validate lists errors one per line.
template <typename Decode>
config::ArgsValidator ValidatorFrom(Decode decode) {
  return [decode](const YAML::Node& args, absl::string_view path) -> absl::Status {
    auto decoded = decode(PluginArgs{args, std::string(path)});
    if (decoded.ok()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrReplaceAll(decoded.status().message(), {{"; ", "\n"}}));
  };
}

}  // namespace

config::PluginCatalog InTreeCatalog() {
  config::PluginCatalog catalog = config::DefaultCatalog();
  catalog.args_validators[std::string(NodeAffinity::kName)] =
      ValidatorFrom(&DecodeNodeAffinityArgs);
  catalog.args_validators[std::string(NodeResourcesBalancedAllocation::kName)] =
      ValidatorFrom(&DecodeNodeResourcesBalancedAllocationArgs);
  catalog.args_validators[std::string(NodeResourcesFit::kName)] =
      ValidatorFrom(&DecodeNodeResourcesFitArgs);
  catalog.args_validators[std::string(TargetLoadPacking::kName)] =
      ValidatorFrom(&DecodeTargetLoadPackingArgs);
  catalog.args_validators[std::string(LoadVariationRiskBalancing::kName)] =
      ValidatorFrom(&DecodeLoadVariationRiskBalancingArgs);
  catalog.args_validators[std::string(LowRiskOverCommitment::kName)] =
      ValidatorFrom(&DecodeLowRiskOverCommitmentArgs);
  return catalog;
}

}  // namespace trimaran::sched::plugins
