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
// non-empty and unique; every enabled plugin not an unsupported upstream plugin
// (defaults.h), known to the registry, and implementing the extension point it is
// listed at (its descriptor's extension_points); weights in [0, 100] (Trimaran's rule,
// stricter than upstream which only rejects overflow: a weight above 100 lets one plugin
// drown all others); the expansion (expand.h) succeeds, with exactly one QueueSort plugin
// and at least one Bind plugin; the same QueueSort plugin and args in all profiles;
// pluginConfig names non-empty, known, not duplicated; the args of every pluginConfig
// entry whose descriptor has an args validator (PluginDescriptor::validate_args, which
// decodes them exactly as the plugin's factory will) are validated by it, and its
// errors (one per line) are merged into the list.
//
// Indices in paths refer to the effective (merged) lists, as --write-config-to prints them:
// v1's per-extension-point sets have no defaults, so there they are the file's indices;
// in multiPoint (and v1beta2's sets) the user's entries sit after or among the defaults,
// which is why name and weight errors also name the plugin.
//
// Thread-safety: pure function; the validators are called on the caller's thread.

#include "absl/status/status.h"
#include "scheduler/config/types.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::config {

// `registry` is the one registry the scheduler builds its plugins from (the daemon and
// trimaranctl: plugins::InTreeRegistry()).
absl::Status Validate(const SchedulerConfig& config, const Registry& registry);

}  // namespace trimaran::sched::config
