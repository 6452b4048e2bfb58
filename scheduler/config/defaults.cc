#include "scheduler/config/defaults.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "common/logging.h"

namespace trimaran::sched::config {
namespace {

constexpr absl::string_view kUnsupported[] = {
    "DynamicResources",
    "SelectorSpread",
    "NodePreferAvoidPods",
};

// The in-tree volume limit plugins upstream deprecated in 1.31 and deleted in 1.32
// (NodeVolumeLimits counts those volumes through CSI migration). Old configurations
// naming them are accepted with a warning; they are never run.
constexpr absl::string_view kDeprecatedInTreeLimits[] = {
    "EBSLimits",
    "GCEPDLimits",
    "AzureDiskLimits",
    "CinderLimits",
};

PluginSet Names(std::initializer_list<absl::string_view> names) {
  PluginSet set;
  for (absl::string_view n : names) set.enabled.push_back(Plugin{std::string(n), 0});
  return set;
}

Plugins DefaultV1() {
  Plugins p;
  p.multi_point.enabled = {
      {"SchedulingGates", 0},    {"PrioritySort", 0},
      {"NodeUnschedulable", 0},  {"NodeName", 0},
      {"TaintToleration", 3},    {"NodeAffinity", 2},
      {"NodePorts", 0},          {"NodeResourcesFit", 1},
      {"VolumeRestrictions", 0}, {"NodeVolumeLimits", 0},
      {"VolumeBinding", 0},      {"VolumeZone", 0},
      {"PodTopologySpread", 2},  {"InterPodAffinity", 2},
      {"DefaultPreemption", 0},  {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1},      {"DefaultBinder", 0},
  };
  return p;
}

Plugins DefaultV1beta2() {
  Plugins p;
  p.queue_sort = Names({"PrioritySort"});
  p.pre_filter = Names({"NodeResourcesFit", "NodePorts", "VolumeRestrictions", "PodTopologySpread",
                        "InterPodAffinity", "VolumeBinding", "NodeAffinity"});
  p.filter = Names({"NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts",
                    "NodeResourcesFit", "VolumeRestrictions", "EBSLimits", "GCEPDLimits",
                    "NodeVolumeLimits", "AzureDiskLimits", "VolumeBinding", "VolumeZone",
                    "PodTopologySpread", "InterPodAffinity"});
  p.post_filter = Names({"DefaultPreemption"});
  p.pre_score = Names({"InterPodAffinity", "PodTopologySpread", "TaintToleration", "NodeAffinity",
                       "NodeResourcesFit", "NodeResourcesBalancedAllocation"});
  p.score.enabled = {
      {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1},
      {"InterPodAffinity", 1},
      {"NodeResourcesFit", 1},
      {"NodeAffinity", 1},
      {"PodTopologySpread", 2},
      {"TaintToleration", 1},
  };
  p.reserve = Names({"VolumeBinding"});
  p.pre_bind = Names({"VolumeBinding"});
  p.bind = Names({"DefaultBinder"});
  return p;
}

// Merges one set and drops the unsupported plugins that only the defaults brought in.
void MergeAndPrune(const PluginSet& defaults, PluginSet& user, absl::string_view profile,
                   absl::string_view set_name) {
  std::vector<bool> from_default;
  PluginSet merged = MergePluginSet(defaults, user, &from_default);
  PluginSet pruned;
  pruned.disabled = std::move(merged.disabled);
  std::vector<std::string> dropped;
  for (size_t i = 0; i < merged.enabled.size(); ++i) {
    if (IsDeprecatedInTreeVolumeLimit(merged.enabled[i].name)) {
      if (!from_default[i]) {
        Log(Component::kConfig)
            .warn(
                "profile {}: plugin {} in {} is deprecated (upstream removed it in 1.32; "
                "NodeVolumeLimits counts these volumes through CSI migration) and is ignored",
                profile, merged.enabled[i].name, set_name);
      }
      continue;
    }
    if (from_default[i] && IsUnsupportedUpstreamPlugin(merged.enabled[i].name)) {
      dropped.push_back(merged.enabled[i].name);
      continue;
    }
    pruned.enabled.push_back(std::move(merged.enabled[i]));
  }
  if (!dropped.empty()) {
    Log(Component::kConfig)
        .info(
            "profile {}: default {} plugins not implemented by trimaran-scheduler yet, "
            "dropped: {}",
            profile, set_name, absl::StrJoin(dropped, ","));
  }
  user = std::move(pruned);
}

}  // namespace

bool IsDeprecatedInTreeVolumeLimit(absl::string_view name) {
  return std::find(std::begin(kDeprecatedInTreeLimits), std::end(kDeprecatedInTreeLimits), name) !=
         std::end(kDeprecatedInTreeLimits);
}

bool IsUnsupportedUpstreamPlugin(absl::string_view name) {
  return std::find(std::begin(kUnsupported), std::end(kUnsupported), name) !=
         std::end(kUnsupported);
}

Plugins DefaultPlugins(ApiVersion version) {
  return version == ApiVersion::kV1beta2 ? DefaultV1beta2() : DefaultV1();
}

PluginSet MergePluginSet(const PluginSet& defaults, const PluginSet& user,
                         std::vector<bool>* from_default) {
  PluginSet out;
  out.disabled = defaults.disabled;
  for (const std::string& d : user.disabled) {
    if (std::find(out.disabled.begin(), out.disabled.end(), d) == out.disabled.end()) {
      out.disabled.push_back(d);
    }
  }
  if (from_default != nullptr) from_default->clear();
  std::vector<bool> replaced(user.enabled.size(), false);
  if (!out.DisablesAll()) {
    for (const Plugin& def : defaults.enabled) {
      if (out.IsDisabled(def.name)) continue;
      bool by_user = false;
      for (size_t i = 0; i < user.enabled.size(); ++i) {
        if (!replaced[i] && user.enabled[i].name == def.name) {
          out.enabled.push_back(user.enabled[i]);
          replaced[i] = true;
          by_user = true;
          break;
        }
      }
      if (!by_user) out.enabled.push_back(def);
      if (from_default != nullptr) from_default->push_back(!by_user);
    }
  }
  for (size_t i = 0; i < user.enabled.size(); ++i) {
    if (replaced[i]) continue;
    out.enabled.push_back(user.enabled[i]);
    if (from_default != nullptr) from_default->push_back(false);
  }
  return out;
}

void SetDefaults(SchedulerConfig& config) {
  if (config.profiles.empty()) config.profiles.emplace_back();
  if (config.profiles.size() == 1 && config.profiles[0].scheduler_name.empty()) {
    config.profiles[0].scheduler_name = std::string(kDefaultSchedulerName);
  }
  const Plugins defaults = DefaultPlugins(config.api_version);
  for (Profile& profile : config.profiles) {
    MergeAndPrune(defaults.multi_point, profile.plugins.multi_point, profile.scheduler_name,
                  "multiPoint");
    for (ExtensionPoint ep : kAllExtensionPoints) {
      MergeAndPrune(defaults.At(ep), profile.plugins.At(ep), profile.scheduler_name,
                    ExtensionPointField(ep));
    }
  }
  if (!config.percentage_of_nodes_to_score.has_value()) {
    config.percentage_of_nodes_to_score = 0;
  }
  ClientConnection& cc = config.client_connection;
  if (cc.content_type.empty()) cc.content_type = "application/vnd.kubernetes.protobuf";
  if (cc.qps == 0) cc.qps = 50;
  if (cc.burst == 0) cc.burst = 100;
  if (!config.enable_contention_profiling.has_value()) {
    config.enable_contention_profiling = config.enable_profiling;
  }
}

}  // namespace trimaran::sched::config
