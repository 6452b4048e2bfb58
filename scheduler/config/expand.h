#pragma once
// multiPoint expansion (spec §1.7): a defaulted Profile -> ordered plugin names per
// extension point with final score weights, the input of the framework runtime
// (ExpandedProfile mirrors sched::ProfileConfig in scheduler/runtime/framework.h field
// by field; the daemon copies it over, so this library does not depend on the runtime).
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
// Which points a plugin implements comes from an ImplementsFn: the daemon builds it from
// plugin instances; BuiltinImplements is the static table of the plugins Trimaran
// knows: PrioritySort, NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
// NodePorts, NodeResourcesFit, NodeResourcesBalancedAllocation, DefaultBinder,
// UnsupportedPodConstraints, and Trimaran's TargetLoadPacking (PreScore, Score,
// Reserve), LoadVariationRiskBalancing (PreScore, Score, Reserve) and
// LowRiskOverCommitment (PreScore, Score). Unsupported
// upstream plugins implement nothing there (they were dropped by SetDefaults or are
// rejected by Validate).
//
// `packing` is set when the profile scores with NodeResourcesFit whose pluginConfig
// scoringStrategy.type is MostAllocated or RequestedToCapacityRatio, or with
// TargetLoadPacking (see ProfileConfig::packing).
//
// Thread-safety: pure functions.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/config/types.h"

namespace trimaran::sched::config {

using ImplementsFn = std::function<bool(absl::string_view plugin, ExtensionPoint point)>;

// The static table described above.
bool BuiltinImplements(absl::string_view plugin, ExtensionPoint point);
// The plugin names of that table, sorted.
std::vector<std::string> BuiltinPluginNames();

struct WeightedPlugin {
  std::string name;
  int32_t weight = 1;  // Final: never 0.

  friend bool operator==(const WeightedPlugin&, const WeightedPlugin&) = default;
};

struct ExpandedProfile {
  std::string scheduler_name;
  std::vector<std::string> pre_enqueue;
  std::vector<std::string> queue_sort;
  std::vector<std::string> pre_filter;
  std::vector<std::string> filter;
  std::vector<std::string> post_filter;
  std::vector<std::string> pre_score;
  std::vector<WeightedPlugin> score;
  std::vector<std::string> reserve;
  std::vector<std::string> permit;
  std::vector<std::string> pre_bind;
  std::vector<std::string> bind;
  std::vector<std::string> post_bind;
  // pluginConfig args by name, and their paths ("profiles[0].pluginConfig[1].args").
  std::map<std::string, YAML::Node, std::less<>> plugin_args;
  std::map<std::string, std::string, std::less<>> plugin_args_path;
  // The profile's value, else the global one (0 = adaptive).
  std::optional<int32_t> percentage_of_nodes_to_score;
  bool packing = false;

  // The names at `point` (score: names only, in order).
  std::vector<std::string> Names(ExtensionPoint point) const;
};

// Expands profiles[index] of a defaulted config. InvalidArgument listing every error,
// one per line, with field paths.
absl::StatusOr<ExpandedProfile> ExpandProfile(const SchedulerConfig& config, size_t index,
                                              const ImplementsFn& implements);
absl::StatusOr<std::vector<ExpandedProfile>> ExpandProfiles(const SchedulerConfig& config,
                                                            const ImplementsFn& implements);

// As ExpandProfile, appending the errors to `errors` (used by Validate).
ExpandedProfile ExpandProfileCollect(const SchedulerConfig& config, size_t index,
                                     const ImplementsFn& implements,
                                     std::vector<std::string>& errors);

}  // namespace trimaran::sched::config
