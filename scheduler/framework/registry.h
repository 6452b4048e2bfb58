#pragma once
// Registry: plugin name -> PluginDescriptor (plugin_descriptor.h), the one place a
// plugin is described. The runtime builds each profile's plugins from its factories;
// the configuration (scheduler/config) reads the same object for multiPoint expansion,
// validation (known names, extension points, args validators) and the packing flag;
// trimaranctl takes it too. There is exactly one file that registers every in-tree
// plugin (scheduler/plugins/registry.cc, upstream's NewInTreeRegistry), one line per
// plugin; out-of-tree sets are added with Merge. Nothing registers itself at
// static-initialization time.
//
//   Registry registry;
//   TRIMARAN_RETURN_IF_ERROR(registry.Register(MyPlugin::kName, MyPlugin::Descriptor()));
//
// A plugin's factory decodes its typed args from PluginArgs (plugin_args.h):
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
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/extension_point.h"
#include "scheduler/framework/plugin_args.h"
#include "scheduler/framework/plugin_descriptor.h"

namespace trimaran::sched {

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = default;
  Registry& operator=(const Registry&) = default;
  Registry(Registry&&) = default;
  Registry& operator=(Registry&&) = default;

  // AlreadyExists when `name` is registered; InvalidArgument for an empty name or a
  // descriptor without a factory.
  absl::Status Register(absl::string_view name, PluginDescriptor descriptor);
  // A plugin known by its factory only (a descriptor with no extension points, args
  // validator or packing predicate): the runtime builds it when a ProfileConfig names
  // it, but multiPoint never expands to it and Validate refuses it at every extension
  // point. For runtime tests; plugins the configuration can name register a descriptor.
  absl::Status Register(absl::string_view name, PluginFactory factory);
  // NotFound when `name` is not registered.
  absl::Status Unregister(absl::string_view name);
  // Registers every entry of `other`. AlreadyExists (naming the plugin) on the first
  // name both have; entries before it stay registered, as upstream.
  absl::Status Merge(const Registry& other);

  // The descriptor of `name`, or nullptr.
  const PluginDescriptor* Find(absl::string_view name) const;
  bool Contains(absl::string_view name) const { return Find(name) != nullptr; }
  // True when `name` is registered and its descriptor lists `point`.
  bool Implements(absl::string_view name, ExtensionPoint point) const;
  // Registered names, sorted.
  std::vector<std::string> Names() const;
  size_t size() const { return descriptors_.size(); }

 private:
  // Ordered: deterministic Names() and Merge order.
  std::map<std::string, PluginDescriptor, std::less<>> descriptors_;
};

}  // namespace trimaran::sched
