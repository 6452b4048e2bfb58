#pragma once
// multiPoint expansion (spec §1.7): a defaulted Profile -> the runtime's ProfileConfig
// (scheduler/framework/profile_config.h): ordered plugin names per extension point with
// final score weights, pluginConfig args with their paths, percentageOfNodesToScore and
// the packing flag.
//
// Per extension point E:
//   * E.disabled has "*": E uses only its explicit enabled list;
//   * otherwise: (a) plugins of E.enabled that are also in multiPoint, in E.enabled
//     order ("overrides"), (b) multiPoint plugins that implement E and are neither
//     disabled at E nor listed in E.enabled, in multiPoint order, (c) the remaining
//     E.enabled plugins, in order.
// Score weights: from score.enabled first, else from multiPoint; 0/unset -> 1. The sum of
// weight x 100 (MaxNodeScore) must fit in int64. Errors: a plugin twice in multiPoint,
// a plugin twice at one extension point ("already registered"), overflow.
//
// Everything the expansion knows about a plugin comes from its registration
// (scheduler/framework/registry.h, PluginDescriptor): which points it implements
// (multiPoint expands a plugin to exactly its descriptor's extension_points; a name the
// registry does not know implements nothing), and `packing`, set when a score plugin's
// descriptor says its args pack (NodeResourcesFit with scoringStrategy MostAllocated or
// RequestedToCapacityRatio, TargetLoadPacking always; see ProfileConfig::packing).
// Unsupported upstream plugins are not registered (they were dropped by SetDefaults or
// are rejected by Validate).
//
//   TRIMARAN_ASSIGN_OR_RETURN(std::vector<ProfileConfig> profiles,
//                             config::ExpandProfiles(cfg, plugins::InTreeRegistry()));
//
// Thread-safety: pure functions (the descriptors' predicates run on the caller's thread).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/config/types.h"
#include "scheduler/framework/profile_config.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::config {

// Expands profiles[index] of a defaulted config. InvalidArgument listing every error,
// one per line, with field paths.
absl::StatusOr<ProfileConfig> ExpandProfile(const SchedulerConfig& config, size_t index,
                                            const Registry& registry);
absl::StatusOr<std::vector<ProfileConfig>> ExpandProfiles(const SchedulerConfig& config,
                                                          const Registry& registry);

// As ExpandProfile, appending the errors to `errors` (used by Validate).
ProfileConfig ExpandProfileCollect(const SchedulerConfig& config, size_t index,
                                   const Registry& registry, std::vector<std::string>& errors);

}  // namespace trimaran::sched::config
