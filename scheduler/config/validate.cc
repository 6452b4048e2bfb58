#include "scheduler/config/validate.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "scheduler/config/defaults.h"
#include "scheduler/config/expand.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::config {
namespace {

std::string EmitNode(const YAML::Node& node) {
  if (!node || node.IsNull()) return "";
  YAML::Emitter e;
  e << node;
  return e.c_str();
}

void ValidateLeaderElection(const LeaderElection& le, std::vector<std::string>& errors) {
  if (!le.leader_elect) return;
  const absl::Duration zero = absl::ZeroDuration();
  if (le.lease_duration <= zero) {
    errors.push_back(absl::StrCat("leaderElection.leaseDuration: must be greater than zero, got ",
                                  absl::FormatDuration(le.lease_duration)));
  }
  if (le.renew_deadline <= zero) {
    errors.push_back(absl::StrCat("leaderElection.renewDeadline: must be greater than zero, got ",
                                  absl::FormatDuration(le.renew_deadline)));
  }
  if (le.retry_period <= zero) {
    errors.push_back(absl::StrCat("leaderElection.retryPeriod: must be greater than zero, got ",
                                  absl::FormatDuration(le.retry_period)));
  }
  if (le.lease_duration <= le.renew_deadline) {
    errors.push_back(
        absl::StrCat("leaderElection.leaseDuration: must be greater than "
                     "renewDeadline (",
                     absl::FormatDuration(le.renew_deadline), "), got ",
                     absl::FormatDuration(le.lease_duration)));
  }
  if (le.renew_deadline <= le.retry_period * 1.2) {
    errors.push_back(
        absl::StrCat("leaderElection.renewDeadline: must be greater than "
                     "retryPeriod*1.2 (",
                     absl::FormatDuration(le.retry_period * 1.2), "), got ",
                     absl::FormatDuration(le.renew_deadline)));
  }
  if (le.resource_lock != "leases") {
    errors.push_back(absl::StrCat("leaderElection.resourceLock: must be \"leases\", got \"",
                                  le.resource_lock, "\""));
  }
  if (le.resource_name.empty()) {
    errors.push_back("leaderElection.resourceName: must not be empty");
  }
  if (le.resource_namespace.empty()) {
    errors.push_back("leaderElection.resourceNamespace: must not be empty");
  }
}

void ValidatePluginName(absl::string_view name, absl::string_view path, const Registry& registry,
                        std::vector<std::string>& errors) {
  if (name.empty()) {
    errors.push_back(absl::StrCat(path, ": must not be empty"));
  } else if (name == "UnsupportedPodConstraints") {
    // Trimaran's stop-gap until InterPodAffinity and PodTopologySpread existed.
    errors.push_back(absl::StrCat(
        path,
        ": plugin UnsupportedPodConstraints was removed: InterPodAffinity and "
        "PodTopologySpread (in the default profile) now evaluate those constraints; remove it "
        "from the configuration"));
  } else if (IsDeprecatedInTreeVolumeLimit(name)) {
    // Accepted (SetDefaults dropped it from the enabled lists with a warning).
  } else if (IsUnsupportedUpstreamPlugin(name)) {
    errors.push_back(
        absl::StrCat(path, ": plugin ", name, " is not supported by trimaran-scheduler yet"));
  } else if (!registry.Contains(name)) {
    errors.push_back(absl::StrCat(path, ": unknown plugin \"", name, "\""));
  }
}

void ValidatePluginSet(const PluginSet& set, absl::string_view path,
                       std::optional<ExtensionPoint> point, const Registry& registry,
                       std::vector<std::string>& errors) {
  for (size_t i = 0; i < set.enabled.size(); ++i) {
    const Plugin& p = set.enabled[i];
    const std::string ip = absl::StrCat(path, ".enabled[", i, "]");
    const size_t before = errors.size();
    ValidatePluginName(p.name, absl::StrCat(ip, ".name"), registry, errors);
    if (errors.size() == before && point.has_value() && !registry.Implements(p.name, *point)) {
      errors.push_back(absl::StrCat(ip, ".name: plugin \"", p.name, "\" does not implement ",
                                    ExtensionPointName(*point)));
    }
    if (p.weight < 0 || p.weight > 100) {
      errors.push_back(absl::StrCat(ip, ".weight: must be in [0, 100], got ", p.weight, " (plugin ",
                                    p.name, ")"));
    }
  }
}

}  // namespace

absl::Status Validate(const SchedulerConfig& config, const Registry& registry) {
  std::vector<std::string> errors;
  if (config.parallelism <= 0) {
    errors.push_back(absl::StrCat("parallelism: must be greater than 0, got ", config.parallelism));
  }
  if (config.percentage_of_nodes_to_score.has_value() &&
      (*config.percentage_of_nodes_to_score < 0 || *config.percentage_of_nodes_to_score > 100)) {
    errors.push_back(absl::StrCat("percentageOfNodesToScore: must be in [0, 100], got ",
                                  *config.percentage_of_nodes_to_score));
  }
  if (config.pod_initial_backoff_seconds <= 0) {
    errors.push_back(absl::StrCat("podInitialBackoffSeconds: must be greater than 0, got ",
                                  config.pod_initial_backoff_seconds));
  }
  if (config.pod_max_backoff_seconds < config.pod_initial_backoff_seconds) {
    errors.push_back(absl::StrCat(
        "podMaxBackoffSeconds: must be greater than or equal to podInitialBackoffSeconds (",
        config.pod_initial_backoff_seconds, "), got ", config.pod_max_backoff_seconds));
  }
  ValidateLeaderElection(config.leader_election, errors);
  if (config.profiles.empty()) errors.push_back("profiles: must have at least one profile");

  std::map<std::string, size_t, std::less<>> names;
  std::optional<size_t> first_queue_sort_profile;
  std::string first_queue_sort;
  std::string first_queue_sort_args;
  for (size_t i = 0; i < config.profiles.size(); ++i) {
    const Profile& profile = config.profiles[i];
    const std::string path = absl::StrCat("profiles[", i, "]");
    if (profile.scheduler_name.empty()) {
      errors.push_back(absl::StrCat(path, ".schedulerName: must not be empty"));
    } else if (auto [it, inserted] = names.emplace(profile.scheduler_name, i); !inserted) {
      errors.push_back(absl::StrCat(path, ".schedulerName: duplicate value \"",
                                    profile.scheduler_name, "\" (also profiles[", it->second,
                                    "])"));
    }
    if (profile.percentage_of_nodes_to_score.has_value() &&
        (*profile.percentage_of_nodes_to_score < 0 ||
         *profile.percentage_of_nodes_to_score > 100)) {
      errors.push_back(absl::StrCat(path, ".percentageOfNodesToScore: must be in [0, 100], got ",
                                    *profile.percentage_of_nodes_to_score));
    }
    const size_t before_plugins = errors.size();
    ValidatePluginSet(profile.plugins.multi_point, absl::StrCat(path, ".plugins.multiPoint"),
                      std::nullopt, registry, errors);
    for (ExtensionPoint ep : kAllExtensionPoints) {
      ValidatePluginSet(profile.plugins.At(ep),
                        absl::StrCat(path, ".plugins.", ExtensionPointField(ep)), ep, registry,
                        errors);
    }
    // pluginConfig.
    std::map<std::string, size_t, std::less<>> configured;
    for (size_t j = 0; j < profile.plugin_config.size(); ++j) {
      const PluginConfig& pc = profile.plugin_config[j];
      const std::string pcp = absl::StrCat(path, ".pluginConfig[", j, "]");
      const size_t before = errors.size();
      ValidatePluginName(pc.name, absl::StrCat(pcp, ".name"), registry, errors);
      if (errors.size() != before) continue;
      if (auto [it, inserted] = configured.emplace(pc.name, j); !inserted) {
        errors.push_back(absl::StrCat(pcp, ".name: duplicate plugin config \"", pc.name,
                                      "\" (also pluginConfig[", it->second, "])"));
        continue;
      }
      const PluginDescriptor* descriptor = registry.Find(pc.name);
      if (descriptor == nullptr || !descriptor->validate_args) continue;
      absl::Status st = descriptor->validate_args(PluginArgs{pc.args, absl::StrCat(pcp, ".args")});
      if (!st.ok()) {
        for (absl::string_view line : absl::StrSplit(st.message(), '\n', absl::SkipEmpty())) {
          errors.emplace_back(line);
        }
      }
    }
    // Expansion-level checks only when the plugin names are sound (else they repeat).
    if (errors.size() != before_plugins) continue;
    const ProfileConfig expanded = ExpandProfileCollect(config, i, registry, errors);
    if (expanded.queue_sort.size() != 1) {
      errors.push_back(absl::StrCat(path,
                                    ".plugins.queueSort: exactly one queue sort plugin is "
                                    "required, got ",
                                    expanded.queue_sort.size(), " [",
                                    absl::StrJoin(expanded.queue_sort, ", "), "]"));
    } else {
      auto args_it = expanded.plugin_args.find(expanded.queue_sort[0]);
      const std::string args =
          args_it == expanded.plugin_args.end() ? "" : EmitNode(args_it->second.args);
      if (!first_queue_sort_profile.has_value()) {
        first_queue_sort_profile = i;
        first_queue_sort = expanded.queue_sort[0];
        first_queue_sort_args = args;
      } else if (first_queue_sort != expanded.queue_sort[0]) {
        errors.push_back(absl::StrCat(path,
                                      ".plugins.queueSort: must be the same for all profiles "
                                      "(profiles[",
                                      *first_queue_sort_profile, "] uses ", first_queue_sort,
                                      "), got ", expanded.queue_sort[0]));
      } else if (first_queue_sort_args != args) {
        errors.push_back(absl::StrCat(
            path, ".pluginConfig: args of queue sort plugin ", first_queue_sort,
            " must be the same for all profiles (see profiles[", *first_queue_sort_profile, "])"));
      }
    }
    if (expanded.bind.empty()) {
      errors.push_back(absl::StrCat(path, ".plugins.bind: at least one bind plugin is required"));
    }
  }
  if (errors.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(errors, "\n"));
}

}  // namespace trimaran::sched::config
