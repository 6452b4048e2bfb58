#pragma once
// DefaultBinder: the default Bind plugin (upstream's defaultbinder.DefaultBinder).
// Bind POSTs a core/v1 Binding (pods/{name}/binding, spec §6.1) for the pod through
// Handle::client(), bounded by Handle::binding_call_options() (a leader that lost its
// lease abandons the POST and its retries); the apiserver then sets spec.nodeName and
// PodScheduled=True. A failed POST becomes a kError Status carrying the client's message (and the
// absl::Status itself, see Status::FromAbsl), so the runtime un-reserves, forgets the
// assumed pod and re-queues it with backoff.
//
// Thread-safety: Bind runs concurrently for different pods (binding cycles); the plugin
// has no mutable state and kube::Client is safe for concurrent use.
// Ownership: keeps a reference to the Handle, which outlives the plugin.

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"
#include "scheduler/framework/status.h"

namespace trimaran::sched::plugins {

class DefaultBinder final : public BindPlugin {
 public:
  static constexpr absl::string_view kName = "DefaultBinder";

  // Factory for Registry::Register. The plugin takes no args (any given are ignored).
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New and the extension points of its
  // interfaces.
  static PluginDescriptor Descriptor();

  explicit DefaultBinder(Handle& handle) : handle_(handle) {}

  absl::string_view Name() const override { return kName; }

  // Success once the apiserver accepted the binding; kError (with the client's message)
  // otherwise. Never Skip: this binder binds every pod.
  Status Bind(CycleState& state, const kube::Pod& pod, absl::string_view node_name) override;

 private:
  Handle& handle_;
};

}  // namespace trimaran::sched::plugins
