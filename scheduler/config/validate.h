#pragma once
// Validation of a defaulted KubeSchedulerConfiguration (spec §1.1–§1.8; upstream
// pkg/scheduler/apis/config/validation). Validate returns OK or ONE InvalidArgument whose
// message lists every error, one per line, each starting with its field path:
//
//   parallelism: must be greater than 0, got 0
//   profiles[0].plugins.score.enabled[1].name: unknown plugin "Foo"
//   profiles[0].plugins.score.enabled[0].weight: must be in [0, 100], got -1 (plugin X)
//   profiles[0].pluginConfig[0].args.scoringStrategy.type: ...   (from the args hook)
//
// Checks: parallelism > 0; percentageOfNodesToScore (global and per profile) in
// [0, 100]; podInitialBackoffSeconds > 0, podMaxBackoffSeconds >= initial; when
// leaderElect: leaseDuration > renewDeadline > retryPeriod x 1.2 (all > 0), resourceLock
// "leases", resourceName/resourceNamespace non-empty; >= 1 profile; schedulerName
// non-empty and unique; every enabled plugin known (catalog.known), not an unsupported
// upstream plugin (defaults.h), and implementing the extension point it is listed at;
// weights in [0, 100] (Trimaran's rule, stricter than upstream which only rejects
// overflow: a weight above 100 lets one plugin drown all others); the expansion
// (expand.h) succeeds, with exactly one QueueSort plugin and at least one Bind plugin;
// the same QueueSort plugin and args in all profiles; pluginConfig names non-empty,
// known, not duplicated; args of every pluginConfig entry whose plugin has a validator in
// catalog.args_validators are validated by it, and its errors (split on newlines) are
// merged into the list.
//
// Indices in paths refer to the effective (merged) lists, as --write-config-to prints them:
// v1's per-extension-point sets have no defaults, so there they are the file's indices;
// in multiPoint (and v1beta2's sets) the user's entries sit after or among the defaults,
// which is why name and weight errors also name the plugin.
//
// Thread-safety: pure function; the validators are called on the caller's thread.

#include <functional>
#include <map>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/types.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::config {

// Validates a plugin's `args` (Null = none given). `path` is where they sit
// ("profiles[0].pluginConfig[1].args"); errors must be prefixed with it.
using ArgsValidator = std::function<absl::Status(const YAML::Node& args, absl::string_view path)>;

struct PluginCatalog {
  // Plugin names the scheduler can build (the registry's names).
  std::set<std::string, std::less<>> known;
  ImplementsFn implements;
  std::map<std::string, ArgsValidator, std::less<>> args_validators;
};

// The builtin table of expand.h (BuiltinPluginNames / BuiltinImplements), no validators.
PluginCatalog DefaultCatalog();

absl::Status Validate(const SchedulerConfig& config, const PluginCatalog& catalog);

}  // namespace trimaran::sched::config
