#pragma once
// The in-tree plugin registry: the ONE list of every plugin compiled into Trimaran,
// name -> factory (upstream's NewInTreeRegistry). Adding an in-tree plugin means adding
// its folder and one line in registry.cc; nothing registers itself at static
// initialization (see docs/architecture.md: static libraries drop unreferenced
// self-registering objects).
//
//   sched::Registry registry;
//   TRIMARAN_RETURN_IF_ERROR(plugins::RegisterInTreePlugins(registry));
//
// Thread-safety: call once at start-up, before the registry is shared.

#include "absl/status/status.h"
#include "scheduler/config/validate.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

// Registers every in-tree plugin into `registry`. AlreadyExists when one of the names
// is already registered there (e.g. an out-of-tree plugin reusing an in-tree name).
absl::Status RegisterInTreePlugins(Registry& registry);

// The configuration catalog of the in-tree plugins (config/validate.h): the builtin
// names and extension points, plus an args validator for every plugin that takes args
// (each decodes the args exactly as the plugin's factory will, so a configuration that
// validates also builds). Used by the daemon and trimaranctl before anything starts.
config::PluginCatalog InTreeCatalog();

}  // namespace trimaran::sched::plugins
