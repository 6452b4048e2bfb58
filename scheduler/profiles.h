#pragma once
// Turning a KubeSchedulerConfiguration into the runtime's ProfileConfigs: the one place
// where config::ExpandedProfile (expand.h) becomes a runtime ProfileConfig
// (runtime/framework.h). Used by the daemon, trimaranctl and the tests.
//
// Thread-safety: pure functions over values.

#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/types.h"
#include "scheduler/runtime/framework.h"

namespace trimaran::sched {

// The runtime configuration of one expanded profile (plugin lists, args with their
// config paths, percentageOfNodesToScore, the packing flag).
ProfileConfig ToProfileConfig(const config::ExpandedProfile& expanded);

// Expands every profile of a defaulted configuration (config::SetDefaults) with
// `implements` (default: the built-in plugin table) and converts them.
// InvalidArgument listing every expansion error.
absl::StatusOr<std::vector<ProfileConfig>> ProfilesFromConfig(
    const config::SchedulerConfig& config,
    const config::ImplementsFn& implements = config::BuiltinImplements);

}  // namespace trimaran::sched
