#include "dashboard/targets.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "dashboard/view_options.h"
#include "scheduler/config/load.h"
#include "scheduler/plugins/target_load_packing/args.h"
#include "scheduler/plugins/target_load_packing/target_load_packing.h"

namespace trimaran::dashboard {
namespace {

using sched::plugins::TargetLoadPacking;

bool ScoresWithTargetLoadPacking(const sched::config::Profile& profile) {
  for (const sched::config::Plugin& plugin : profile.plugins.score.enabled) {
    if (plugin.name == TargetLoadPacking::kName) return true;
  }
  return false;
}

// The profile's TargetLoadPacking args (the last pluginConfig entry naming it), with
// their path for error messages; empty args when there is none.
sched::PluginArgs TargetLoadPackingArgsOf(const sched::config::Profile& profile,
                                          size_t profile_index) {
  sched::PluginArgs args;
  for (size_t i = 0; i < profile.plugin_config.size(); ++i) {
    if (profile.plugin_config[i].name == TargetLoadPacking::kName) {
      args.args = profile.plugin_config[i].args;
      args.path = absl::StrCat("profiles[", profile_index, "].pluginConfig[", i, "].args");
    }
  }
  return args;
}

}  // namespace

absl::StatusOr<TargetPercent> TargetsFromSchedulerConfig(const std::string& path) {
  TRIMARAN_ASSIGN_OR_RETURN(sched::config::SchedulerConfig config,
                            sched::config::LoadConfigFile(path));
  TargetPercent targets;
  for (size_t p = 0; p < config.profiles.size(); ++p) {
    const sched::config::Profile& profile = config.profiles[p];
    if (!ScoresWithTargetLoadPacking(profile)) continue;
    TRIMARAN_ASSIGN_OR_RETURN(
        sched::plugins::TargetLoadPackingArgs tlp,
        sched::plugins::DecodeTargetLoadPackingArgs(TargetLoadPackingArgsOf(profile, p)));
    for (const sched::plugins::TargetLoadPackingResource& r : tlp.resources) {
      targets[r.name] = static_cast<double>(r.target_utilization);
    }
    break;
  }
  return targets;
}

absl::StatusOr<TargetPercent> ResolveTargets(const ViewOptions& options) {
  TargetPercent targets = options.target_percent;
  if (options.scheduler_config.empty()) return targets;
  absl::StatusOr<TargetPercent> from_config = TargetsFromSchedulerConfig(options.scheduler_config);
  if (!from_config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--scheduler-config ", options.scheduler_config,
                                                   ": ", from_config.status().message()));
  }
  // --target-utilization wins.
  for (const auto& [resource, percent] : *from_config) targets.try_emplace(resource, percent);
  return targets;
}

}  // namespace trimaran::dashboard
