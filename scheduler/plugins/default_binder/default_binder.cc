#include "scheduler/plugins/default_binder/default_binder.h"

#include <string>

#include "absl/status/status.h"
#include "common/logging.h"
#include "kube/api/binding.h"

namespace trimaran::sched::plugins {

absl::StatusOr<std::unique_ptr<Plugin>> DefaultBinder::New(const PluginArgs& /*args*/,
                                                           Handle& handle) {
  return std::make_unique<DefaultBinder>(handle);
}

PluginDescriptor DefaultBinder::Descriptor() { return DescriptorFor<DefaultBinder>(); }

Status DefaultBinder::Bind(CycleState& /*state*/, const kube::Pod& pod,
                           absl::string_view node_name) {
  Log(Component::kBinder)
      .debug("Attempting to bind pod to node pod={}/{} node={}", pod.metadata.namespace_name,
             pod.metadata.name, node_name);
  const kube::Binding binding = kube::MakeBinding(pod.metadata, std::string(node_name));
  const absl::Status status = handle_.client().Bind(binding);
  if (!status.ok()) return Status::FromAbsl(status).WithPlugin(kName);
  return Status();
}

}  // namespace trimaran::sched::plugins
