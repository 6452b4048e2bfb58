#include "sim/simulate_configs.h"

#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/config/validate.h"
#include "sim/pod_file_reader.h"
#include "sim/trace_files.h"

namespace trimaran::sim {
namespace {

// One profile over the trace: the loaded pods, or a new stream of the file.
absl::StatusOr<ProfileResult> SimulateProfile(const TracePods& pods, const ClusterSpec& cluster,
                                              const sched::ProfileConfig& profile,
                                              const sched::Registry& registry,
                                              const SimOptions& options) {
  if (pods.loaded.has_value()) return Simulate(*pods.loaded, cluster, profile, registry, options);
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<PodFileReader> reader, PodFileReader::Open(pods.file));
  return Simulate(*reader, cluster, profile, registry, options);
}

}  // namespace

absl::StatusOr<std::vector<sched::ProfileConfig>> LoadProfilesFile(
    const std::string& path, const sched::Registry& registry) {
  namespace config = sched::config;
  TRIMARAN_ASSIGN_OR_RETURN(std::string text, ReadTraceFile(path));
  absl::StatusOr<config::SchedulerConfig> cfg = config::ParseConfig(text, path);
  if (!cfg.ok())
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", cfg.status().message()));
  if (absl::Status s = config::Validate(*cfg, registry); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", s.message()));
  }
  absl::StatusOr<std::vector<sched::ProfileConfig>> profiles =
      config::ExpandProfiles(*cfg, registry);
  if (!profiles.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", profiles.status().message()));
  }
  return profiles;
}

absl::Status SimulateConfigs(const std::vector<std::string>& configs, const TracePods& pods,
                             const sched::Registry& registry, const SimOptions& options,
                             SimReportInput& report) {
  std::set<std::string> names;
  for (const std::string& config : configs) {
    TRIMARAN_ASSIGN_OR_RETURN(std::vector<sched::ProfileConfig> profiles,
                              LoadProfilesFile(config, registry));
    for (const sched::ProfileConfig& profile : profiles) {
      absl::StatusOr<ProfileResult> result =
          SimulateProfile(pods, *report.cluster, profile, registry, options);
      if (!result.ok()) {
        return absl::Status(result.status().code(),
                            absl::StrCat(config, ": profile ", profile.scheduler_name, ": ",
                                         result.status().message()));
      }
      if (!names.insert(result->profile).second) {
        result->profile = absl::StrCat(config, ":", result->profile);
      }
      report.profiles.push_back(*std::move(result));
    }
  }
  return absl::OkStatus();
}

std::string FormatSimSummary(const SimReportInput& report, const std::string& output) {
  std::string out;
  for (const ProfileResult& r : report.profiles) {
    absl::StrAppendFormat(&out,
                          "%-24s node-hours %9.1f  cost $%9.2f  peak %4d nodes  efficiency %.3f  ",
                          r.profile, r.node_hours, r.cost, r.peak_nodes, r.packing_efficiency);
    // One node group: node-hours over the L1 node-hour lower bound.
    if (r.lower_bound_node_hours > 0) {
      absl::StrAppendFormat(&out, "node-hours/LB %.3f  ", r.node_hours_over_lower_bound);
    }
    absl::StrAppendFormat(&out,
                          "pending p99 %6.0fs  never scheduled %d  >100%% CPU %.0f node-min  "
                          "compacted/actual p50 %.3f (%d instants, %.1f s CPU)\n",
                          r.pending_p99, r.never_scheduled, r.above_100_cpu_node_minutes,
                          r.compaction.ratio.p50, static_cast<int>(r.compaction.instants.size()),
                          r.compaction.cpu_seconds);
  }
  absl::StrAppend(&out, "report: ", output, "\n");
  return out;
}

}  // namespace trimaran::sim
