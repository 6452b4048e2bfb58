#pragma once
// The in-tree plugin registry: the ONE list of every plugin compiled into Trimaran,
// name -> PluginDescriptor (upstream's NewInTreeRegistry). Each plugin describes itself
// in its own folder (`static PluginDescriptor Descriptor()`: factory, extension points
// from its interfaces, args validator, packing predicate; see
// scheduler/framework/plugin_descriptor.h); registry.cc lists each plugin on one line.
// Everything else reads this one object: the runtime builds plugins from it, the
// configuration expands multiPoint, validates and sets the packing flag with it
// (scheduler/config/expand.h, validate.h), and trimaranctl runs with it.
//
// Adding an in-tree plugin means adding its folder (with a CMakeLists.txt declaring
// trimaran::plugin_<folder>, which plugins/CMakeLists.txt adds and links into this
// registry) and one line in registry.cc. Nothing registers itself at static
// initialization (see docs/architecture.md: static libraries drop unreferenced
// self-registering objects).
//
//   const sched::Registry registry = plugins::InTreeRegistry();
//   TRIMARAN_RETURN_IF_ERROR(config::Validate(cfg, registry));
//   TRIMARAN_ASSIGN_OR_RETURN(auto profiles, config::ExpandProfiles(cfg, registry));
//
// Thread-safety: call at start-up; the returned/filled Registry is then only read.

#include "absl/status/status.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

// Registers every in-tree plugin into `registry`. AlreadyExists when one of the names
// is already registered there (e.g. an out-of-tree plugin reusing an in-tree name).
absl::Status RegisterInTreePlugins(Registry& registry);

// A new Registry holding exactly the in-tree plugins.
Registry InTreeRegistry();

}  // namespace trimaran::sched::plugins
