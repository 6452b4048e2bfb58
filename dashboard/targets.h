#pragma once
// TargetLoadPacking's targets for the node view: the targetUtilization per resource
// ("cpu" and, when configured, "memory") that the layouts draw on the usage bars and
// that the `-o json` document and the web page carry.
//
// They come from --target-utilization (ViewOptions::target_percent) and from a
// KubeSchedulerConfiguration file (ViewOptions::scheduler_config): the first profile
// that enables the plugin (found by TargetLoadPacking::kName) in its score set; the
// flag wins per resource.
//
// Thread-safety: reentrant functions.

#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace trimaran::dashboard {

struct ViewOptions;

// Percent per resource name.
using TargetPercent = std::map<std::string, double, std::less<>>;

// The targets of the KubeSchedulerConfiguration at `path`; empty when no profile enables
// TargetLoadPacking. The file's load or args error otherwise.
absl::StatusOr<TargetPercent> TargetsFromSchedulerConfig(const std::string& path);

// options.target_percent, completed by options.scheduler_config when set.
// InvalidArgument "--scheduler-config PATH: ..." when that file does not load.
absl::StatusOr<TargetPercent> ResolveTargets(const ViewOptions& options);

}  // namespace trimaran::dashboard
