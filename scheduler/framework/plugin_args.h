#pragma once
// PluginArgs: a plugin's raw `pluginConfig[].args`, kept as the yaml-cpp tree the config
// file was parsed into (KubeSchedulerConfiguration is YAML; JSON is YAML too), with the
// field path it came from. Each plugin decodes and validates its own typed args from it
// (its folder's args.h), returning InvalidArgument that lists *every* field error with
// its path.
//
// Thread-safety: a plain copyable value. YAML::Node copies share their tree; treat the
// tree as immutable once the configuration is loaded.

#include <string>

#include "yaml-cpp/yaml.h"

namespace trimaran::sched {

struct PluginArgs {
  // The `args` mapping of the plugin's pluginConfig entry, after the config's own
  // defaulting; a Null node when the config has none (use the defaults).
  YAML::Node args;
  // Where `args` sits in the config file, prefixed to field errors:
  // "profiles[0].pluginConfig[1].args". Empty when the args were not from a file.
  std::string path;
};

}  // namespace trimaran::sched
