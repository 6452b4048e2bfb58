#pragma once
// NodeResourcesBalancedAllocationArgs (kubescheduler.config.k8s.io/v1, spec §1.8): the
// resources whose utilisation the plugin balances.
//
//   args:
//     resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
//
// Defaults: empty resources -> [cpu:1, memory:1]; weight 0 -> 1. Validation (every
// error reported with its path): names non-empty and unique; every weight exactly 1
// (the formula ignores weights; upstream insists on 1).
//
// ResourceSpec is the one shared with NodeResourcesFitArgs (upstream's
// config.ResourceSpec), hence the dependency on node_resources_fit/args.h.
//
// Thread-safety: plain values and pure functions.

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/node_resources_fit/args.h"

namespace trimaran::sched::plugins {

struct NodeResourcesBalancedAllocationArgs {
  std::vector<ResourceSpec> resources;

  friend bool operator==(const NodeResourcesBalancedAllocationArgs&,
                         const NodeResourcesBalancedAllocationArgs&) = default;
};

// resources = [cpu:1, memory:1].
NodeResourcesBalancedAllocationArgs DefaultNodeResourcesBalancedAllocationArgs();

// Upstream's defaulting, in place (empty resources, zero weights).
void SetDefaults(NodeResourcesBalancedAllocationArgs& args);

// OK, or InvalidArgument listing every field error ("<path>.resources[1].weight: must
// be 1, got 2"), joined with "; ".
absl::Status ValidateNodeResourcesBalancedAllocationArgs(
    const NodeResourcesBalancedAllocationArgs& args, absl::string_view path);

// Decodes `args.args` strictly (a Null node means the defaults; `apiVersion` accepted,
// `kind` must be "NodeResourcesBalancedAllocationArgs" when present), applies
// SetDefaults and validates; all errors together as InvalidArgument.
absl::StatusOr<NodeResourcesBalancedAllocationArgs> DecodeNodeResourcesBalancedAllocationArgs(
    const PluginArgs& args);

}  // namespace trimaran::sched::plugins
