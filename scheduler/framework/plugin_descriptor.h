#pragma once
// PluginDescriptor: everything Trimaran knows about one plugin, registered once under
// its name in a Registry (registry.h). From it the runtime builds the plugin (factory),
// and the configuration (scheduler/config) expands multiPoint and checks where a plugin
// may be listed (extension_points), validates pluginConfig args before anything starts
// (validate_args) and sets a profile's packing flag (packing). Nothing else describes a
// plugin.
//
// Each plugin declares its descriptor in its own folder, next to the plugin:
//
//   PluginDescriptor NodeResourcesFit::Descriptor() {
//     PluginDescriptor d = DescriptorFor<NodeResourcesFit>();  // &New + its interfaces
//     d.validate_args = ArgsValidatorFrom(&DecodeNodeResourcesFitArgs);
//     d.packing = &PacksWith;  // MostAllocated / RequestedToCapacityRatio
//     return d;
//   }
//
// DescriptorFor<T> derives the extension points from the interfaces T inherits
// (interface.h), as upstream derives them from the built plugin, so the list cannot
// drift from the code that implements them.
//
// Thread-safety: a plain copyable value. Its functions are called from one thread at a
// time (the runtime while profiles are built; Validate and the expansion on their
// caller's thread) and must not keep state between calls.

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_replace.h"
#include "scheduler/framework/extension_point.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/plugin_args.h"

namespace trimaran::sched {

// Builds the plugin from its args. InvalidArgument (field errors with their paths) for
// bad args.
using PluginFactory =
    std::function<absl::StatusOr<std::unique_ptr<Plugin>>(const PluginArgs& args, Handle& handle)>;

// Checks a plugin's args exactly as its factory will decode them (defaults applied,
// every field validated) without building it. OK, or InvalidArgument listing every
// field error, one per line, each prefixed with args.path.
using ArgsValidator = std::function<absl::Status(const PluginArgs& args)>;

// True when a profile that scores with the plugin, configured with `args` (a Null node
// when the profile has no pluginConfig for it), packs pods (ProfileConfig::packing).
using PackingPredicate = std::function<bool(const PluginArgs& args)>;

struct PluginDescriptor {
  // Required.
  PluginFactory factory;
  // The extension points the plugin implements, in kAllExtensionPoints order: multiPoint
  // expands to these, and the configuration may list the plugin only at these.
  std::vector<ExtensionPoint> extension_points;
  // Empty: the configuration accepts any args (the factory may still refuse them).
  ArgsValidator validate_args;
  // Empty: the plugin never makes a profile a packing one.
  PackingPredicate packing;

  bool Implements(ExtensionPoint point) const {
    return std::find(extension_points.begin(), extension_points.end(), point) !=
           extension_points.end();
  }
};

// The extension points plugin class T implements, from its interfaces, in
// kAllExtensionPoints order.
template <typename T>
std::vector<ExtensionPoint> ExtensionPointsOf() {
  static_assert(std::is_base_of_v<Plugin, T>, "T must be a Plugin");
  std::vector<ExtensionPoint> points;
  auto add = [&points](bool implements, ExtensionPoint point) {
    if (implements) points.push_back(point);
  };
  add(std::is_base_of_v<PreEnqueuePlugin, T>, ExtensionPoint::kPreEnqueue);
  add(std::is_base_of_v<QueueSortPlugin, T>, ExtensionPoint::kQueueSort);
  add(std::is_base_of_v<PreFilterPlugin, T>, ExtensionPoint::kPreFilter);
  add(std::is_base_of_v<FilterPlugin, T>, ExtensionPoint::kFilter);
  add(std::is_base_of_v<PostFilterPlugin, T>, ExtensionPoint::kPostFilter);
  add(std::is_base_of_v<PreScorePlugin, T>, ExtensionPoint::kPreScore);
  add(std::is_base_of_v<ScorePlugin, T>, ExtensionPoint::kScore);
  add(std::is_base_of_v<ReservePlugin, T>, ExtensionPoint::kReserve);
  add(std::is_base_of_v<PermitPlugin, T>, ExtensionPoint::kPermit);
  add(std::is_base_of_v<PreBindPlugin, T>, ExtensionPoint::kPreBind);
  add(std::is_base_of_v<BindPlugin, T>, ExtensionPoint::kBind);
  add(std::is_base_of_v<PostBindPlugin, T>, ExtensionPoint::kPostBind);
  return points;
}

// A descriptor whose factory is T::New and whose extension points are T's interfaces;
// no args validator, never packing.
template <typename T>
PluginDescriptor DescriptorFor() {
  return PluginDescriptor{.factory = &T::New, .extension_points = ExtensionPointsOf<T>()};
}

// An ArgsValidator from a plugin's args decoder (absl::StatusOr<Args>(const PluginArgs&),
// the function its factory decodes with). The decoders join their field errors with
// "; "; the validator lists them one per line.
template <typename Decode>
ArgsValidator ArgsValidatorFrom(Decode decode) {
  return [decode = std::move(decode)](const PluginArgs& args) -> absl::Status {
    auto decoded = decode(args);
    if (decoded.ok()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrReplaceAll(decoded.status().message(), {{"; ", "\n"}}));
  };
}

}  // namespace trimaran::sched
