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
  const absl::Status status = handle_.client().Bind(binding, handle_.binding_call_options());
  if (status.ok()) return Status();
  if (absl::IsAborted(status) || absl::IsAlreadyExists(status)) {
    // 409: the POST is retried on 5xx, so when the first attempt committed and only its
    // response was lost, the retry finds the pod bound. Bound to the node we chose (the
    // same pod, by UID) is our binding: success.
    absl::StatusOr<kube::Pod> current =
        handle_.client().GetPod(pod.metadata.namespace_name, pod.metadata.name);
    if (current.ok() && current->spec.node_name == node_name &&
        (pod.metadata.uid.empty() || current->metadata.uid == pod.metadata.uid)) {
      Log(Component::kBinder)
          .info(
              "pod already bound to the chosen node (an earlier attempt committed) pod={}/{} "
              "node={}",
              pod.metadata.namespace_name, pod.metadata.name, node_name);
      return Status();
    }
  }
  return Status::FromAbsl(status).WithPlugin(kName);
}

}  // namespace trimaran::sched::plugins
