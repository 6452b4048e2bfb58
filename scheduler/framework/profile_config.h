#pragma once
// ProfileConfig: one scheduling profile as the runtime runs it — ordered plugin names
// per extension point (multiPoint already expanded, defaults already merged, spec
// §1.6–§1.7), score weights, pluginConfig args with their paths, and the profile's
// node-sampling settings. scheduler/config produces it (ExpandProfiles, expand.h);
// scheduler/runtime's Framework::Create consumes it; tests may also write one by hand.
//
// Thread-safety: plain copyable values; no internal synchronization.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scheduler/framework/plugin_args.h"

namespace trimaran::sched {

// A score plugin with its weight. 0 means unset: the runtime uses 1. Configuration
// expansion always resolves it (never 0 there).
struct WeightedPlugin {
  std::string name;
  int32_t weight = 0;

  friend bool operator==(const WeightedPlugin&, const WeightedPlugin&) = default;
};

struct ProfileConfig {
  // Matches pod.spec.schedulerName; the `profile` metric label.
  std::string scheduler_name = "default-scheduler";

  // The ordered plugin names per extension point.
  std::vector<std::string> queue_sort;
  std::vector<std::string> pre_enqueue;
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

  // pluginConfig[].args by plugin name, with their paths
  // ("profiles[0].pluginConfig[1].args"); a plugin without an entry gets a Null node.
  std::map<std::string, PluginArgs, std::less<>> plugin_args;

  // The profile's percentageOfNodesToScore, already resolved against the global value
  // by the expansion; nullopt or 0 means adaptive (spec §4.3).
  std::optional<int32_t> percentage_of_nodes_to_score;

  // Among nodes whose weighted integer totals tie, prefer the higher weighted exact
  // total (ScoreResult::exact) before picking at random. See types.h, ScoreResult.
  bool exact_tie_break = true;

  // A bin-packing profile (MostAllocated, RequestedToCapacityRatio, TargetLoadPacking):
  // adaptive node sampling would score only a rotating window of the nodes and the
  // fullest node would usually be outside it, which spreads pods. So when `packing` is
  // set and percentage_of_nodes_to_score is unset or 0, every feasible node is scored.
  // An explicit percentage is honoured (the operator chose speed over packing). The
  // expansion sets it when a score plugin's descriptor says its args pack
  // (PluginDescriptor::packing).
  bool packing = false;
};

}  // namespace trimaran::sched
