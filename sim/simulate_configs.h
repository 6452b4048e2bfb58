#pragma once
// `trimaranctl simulate`'s runs (docs/simulator.md): every profile of every
// KubeSchedulerConfiguration file simulated over one trace, into one report, and the
// one line per profile the command prints beside a report file.
//
//   TRIMARAN_ASSIGN_OR_RETURN(std::vector<sched::ProfileConfig> profiles,
//                             LoadProfilesFile("binpack.yaml", registry));
//   SimReportInput report = ...;   // trace, node groups, seed, cluster
//   TRIMARAN_RETURN_IF_ERROR(SimulateConfigs(configs, pods, registry, options, report));
//   std::cout << FormatSimReportJson(report);
//
// Thread-safety: reentrant (each call builds its own frameworks).

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/framework/profile_config.h"
#include "scheduler/framework/registry.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/trace.h"

namespace trimaran::sim {

// A KubeSchedulerConfiguration file loaded as the daemon loads it: parsed, defaulted,
// validated and expanded with `registry`. InvalidArgument "PATH: <the loader's message>".
absl::StatusOr<std::vector<sched::ProfileConfig>> LoadProfilesFile(const std::string& path,
                                                                   const sched::Registry& registry);

// The pods to replay: a pods file streamed for each profile (PodFileReader), or, when
// `loaded` is set, those pods (a file that is not sorted by creation_time, read whole).
struct TracePods {
  std::string file;
  std::optional<std::vector<TracePod>> loaded;
};

// Simulates every profile of every file of `configs` on `*report.cluster` and appends
// each result to report.profiles, in order; a profile name seen before is prefixed with
// its file ("b.yaml:trimaran"). The first error stops, named "FILE: profile NAME: ...".
absl::Status SimulateConfigs(const std::vector<std::string>& configs, const TracePods& pods,
                             const sched::Registry& registry, const SimOptions& options,
                             SimReportInput& report);

// One line per profile (node-hours, cost, peak nodes, efficiency, node-hours over the
// lower bound for one node group, pending p99, never scheduled, hot node-minutes,
// compaction), then "report: OUTPUT".
std::string FormatSimSummary(const SimReportInput& report, const std::string& output);

}  // namespace trimaran::sim
