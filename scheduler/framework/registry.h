#pragma once
// Registry: plugin name -> factory. The runtime builds each profile's plugins from it.
// There is exactly one file that registers every in-tree plugin
// (scheduler/plugins/registry.cc, upstream's NewInTreeRegistry); out-of-tree sets are
// added with Merge. Nothing registers itself at static-initialization time.
//
// PluginArgs is a plugin's raw `pluginConfig[].args`, kept as the yaml-cpp tree the
// config file was parsed into (KubeSchedulerConfiguration is YAML; JSON is YAML too).
// Each plugin decodes and validates its own typed args from it (its folder's args.h),
// returning InvalidArgument that lists *every* field error with its path:
//
//   absl::StatusOr<std::unique_ptr<Plugin>> TargetLoadPacking::New(const PluginArgs& args,
//                                                                  Handle& handle) {
//     TRIMARAN_ASSIGN_OR_RETURN(TargetLoadPackingArgs typed, DecodeArgs(args));
//     ...
//   }
//
// Thread-safety: a Registry is built at start-up and then only read; externally
// synchronized. Factories are called from one thread while profiles are built.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
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

using PluginFactory =
    std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const PluginArgs& args, Handle& handle)>;

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = default;
  Registry& operator=(const Registry&) = default;
  Registry(Registry&&) = default;
  Registry& operator=(Registry&&) = default;

  // AlreadyExists when `name` is registered; InvalidArgument for an empty name or
  // factory.
  absl::Status Register(absl::string_view name, PluginFactory factory);
  // NotFound when `name` is not registered.
  absl::Status Unregister(absl::string_view name);
  // Registers every entry of `other`. AlreadyExists (naming the plugin) on the first
  // name both have; entries before it stay registered, as upstream.
  absl::Status Merge(const Registry& other);

  // The factory for `name`, or nullptr.
  const PluginFactory* Find(absl::string_view name) const;
  bool Contains(absl::string_view name) const { return Find(name) != nullptr; }
  // Registered names, sorted.
  std::vector<std::string> Names() const;
  size_t size() const { return factories_.size(); }

 private:
  // Ordered: deterministic Names() and Merge order.
  std::map<std::string, PluginFactory, std::less<>> factories_;
};

}  // namespace trimaran::sched
