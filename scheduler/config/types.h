#pragma once
// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1, spec §1) as plain C++
// values, in namespace trimaran::sched::config.
//
// Life cycle: ParseConfig/LoadConfigFile (load.h) decode YAML strictly into a
// SchedulerConfig whose scalar members start at their upstream defaults (so "unset" and
// "default" coincide wherever upstream's defaulting is "nil -> default"); SetDefaults
// (defaults.h; called by the loader) fills the rest and merges the default plugin sets;
// Validate (validate.h) lists every error; ExpandProfiles (expand.h) turns each profile
// into ordered per-extension-point plugin lists for the framework runtime;
// WriteConfigYaml (write.h) prints the effective configuration.
//
// Invariants after SetDefaults: profiles is non-empty, enable_contention_profiling and
// percentage_of_nodes_to_score are engaged, qps/burst/content_type are non-zero/non-empty.
//
// Extenders (spec §7) are not implemented yet: a non-empty `extenders` list is refused by
// the loader with a "not supported" error, so there is no typed Extender here.
//
// Thread-safety: plain copyable values; no internal synchronization.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "scheduler/framework/extension_point.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::config {

inline constexpr absl::string_view kApiVersionV1 = "kubescheduler.config.k8s.io/v1";
inline constexpr absl::string_view kApiVersionV1beta3 = "kubescheduler.config.k8s.io/v1beta3";
inline constexpr absl::string_view kApiVersionV1beta2 = "kubescheduler.config.k8s.io/v1beta2";
inline constexpr absl::string_view kApiVersionV1beta1 = "kubescheduler.config.k8s.io/v1beta1";
inline constexpr absl::string_view kKind = "KubeSchedulerConfiguration";
inline constexpr absl::string_view kDefaultSchedulerName = "default-scheduler";

// The accepted API versions. They differ only in their default plugin sets (§1.9).
enum class ApiVersion { kV1, kV1beta3, kV1beta2 };
absl::string_view ApiVersionString(ApiVersion version);

// The framework's extension points (scheduler/framework/extension_point.h; multiPoint
// is not one: it is a way of listing plugins, expanded by expand.h).
using ::trimaran::sched::ExtensionPoint;
using ::trimaran::sched::ExtensionPointName;
using ::trimaran::sched::kAllExtensionPoints;
using ::trimaran::sched::kNumExtensionPoints;
// "preFilter", "score", ... (the JSON field of Plugins).
absl::string_view ExtensionPointField(ExtensionPoint point);

struct LeaderElection {
  bool leader_elect = true;
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);
  std::string resource_lock = "leases";
  std::string resource_name = "kube-scheduler";
  std::string resource_namespace = "kube-system";
};

struct ClientConnection {
  std::string kubeconfig;
  std::string accept_content_types;
  // "" -> application/vnd.kubernetes.protobuf, 0 -> 50 / 100 (SetDefaults).
  std::string content_type;
  float qps = 0;
  int32_t burst = 0;
};

// One plugin of a PluginSet. weight 0 means unset (1 at expansion); only meaningful for
// score plugins.
struct Plugin {
  std::string name;
  int32_t weight = 0;

  friend bool operator==(const Plugin&, const Plugin&) = default;
};

struct PluginSet {
  std::vector<Plugin> enabled;
  // Names; "*" disables every default of the set.
  std::vector<std::string> disabled;

  bool DisablesAll() const;
  bool IsDisabled(absl::string_view name) const;
  bool empty() const { return enabled.empty() && disabled.empty(); }
  friend bool operator==(const PluginSet&, const PluginSet&) = default;
};

struct Plugins {
  PluginSet multi_point;
  PluginSet pre_enqueue;
  PluginSet queue_sort;
  PluginSet pre_filter;
  PluginSet filter;
  PluginSet post_filter;
  PluginSet pre_score;
  PluginSet score;
  PluginSet reserve;
  PluginSet permit;
  PluginSet pre_bind;
  PluginSet bind;
  PluginSet post_bind;

  PluginSet& At(ExtensionPoint point);
  const PluginSet& At(ExtensionPoint point) const;
  friend bool operator==(const Plugins&, const Plugins&) = default;
};

struct PluginConfig {
  std::string name;
  // The raw `args` mapping (Null when absent). Decoded by the plugin itself.
  YAML::Node args;
};

struct Profile {
  std::string scheduler_name;
  std::optional<int32_t> percentage_of_nodes_to_score;
  Plugins plugins;
  std::vector<PluginConfig> plugin_config;
};

struct SchedulerConfig {
  ApiVersion api_version = ApiVersion::kV1;
  int32_t parallelism = 16;
  LeaderElection leader_election;
  ClientConnection client_connection;
  bool enable_profiling = true;
  // Unset -> enable_profiling (SetDefaults).
  std::optional<bool> enable_contention_profiling;
  // Unset -> 0 (adaptive, spec §4.3) (SetDefaults).
  std::optional<int32_t> percentage_of_nodes_to_score;
  int64_t pod_initial_backoff_seconds = 1;
  int64_t pod_max_backoff_seconds = 10;
  std::vector<Profile> profiles;
  bool delay_cache_until_active = false;
};

}  // namespace trimaran::sched::config
