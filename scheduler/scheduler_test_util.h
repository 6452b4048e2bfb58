#pragma once
// Test-only helpers of the scheduler's test and benchmark: profiles built from
// KubeSchedulerConfiguration YAML through the real config pipeline (ParseConfig →
// SetDefaults → ExpandProfiles), and the YAML of the profiles the tests use.
//
// Thread-safety: pure functions.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/expand.h"
#include "scheduler/config/load.h"
#include "scheduler/framework/profile_config.h"
#include "scheduler/plugins/registry.h"

namespace trimaran::sched::scheduler_testing {

// One profile with the v1 default plugins.
inline std::string DefaultProfileYaml(absl::string_view scheduler_name = "default-scheduler") {
  return absl::StrCat(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "  - schedulerName: ",
      scheduler_name, "\n");
}

// The EKS bin-packing profile: NodeResourcesFit MostAllocated (cpu 1, memory 1) as the
// only scorer.
inline std::string MostAllocatedProfileYaml(absl::string_view scheduler_name) {
  return absl::StrCat(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "  - schedulerName: ",
      scheduler_name,
      "\n"
      "    pluginConfig:\n"
      "      - name: NodeResourcesFit\n"
      "        args:\n"
      "          scoringStrategy:\n"
      "            type: MostAllocated\n"
      "            resources:\n"
      "              - {name: cpu, weight: 1}\n"
      "              - {name: memory, weight: 1}\n"
      "    plugins:\n"
      "      score:\n"
      "        disabled:\n"
      "          - name: \"*\"\n"
      "        enabled:\n"
      "          - name: NodeResourcesFit\n"
      "            weight: 1\n");
}

// The runtime ProfileConfigs of a configuration file's text, expanded with the in-tree
// plugins.
inline absl::StatusOr<std::vector<ProfileConfig>> ProfilesFromYaml(absl::string_view yaml) {
  TRIMARAN_ASSIGN_OR_RETURN(config::SchedulerConfig cfg, config::ParseConfig(yaml, "test"));
  config::SetDefaults(cfg);
  return config::ExpandProfiles(cfg, plugins::InTreeRegistry());
}

}  // namespace trimaran::sched::scheduler_testing
