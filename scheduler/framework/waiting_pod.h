#pragma once
// WaitingPodHandle: what a Permit plugin may do with a pod that some Permit plugin asked
// to hold (upstream's framework.WaitingPod): read it, allow it on behalf of a plugin, or
// reject it. Plugins reach the profile's waiting pods through
// Handle::IterateOverWaitingPods (handle.h); the runtime's WaitingPod
// (scheduler/runtime/waiting_pods.h) implements this interface.
//
// Thread-safety: implementations are safe for concurrent use; Allow and Reject after the
// pod was resolved are no-ops.

#include "absl/strings/string_view.h"
#include "kube/api/pod.h"

namespace trimaran::sched {

class WaitingPodHandle {
 public:
  virtual ~WaitingPodHandle() = default;
  virtual const kube::Pod& pod() const = 0;
  // `plugin` no longer holds the pod; once no plugin does, its binding cycle proceeds.
  virtual void Allow(absl::string_view plugin) = 0;
  // Rejects the pod (kUnschedulable with `message`, attributed to `plugin`).
  virtual void Reject(absl::string_view plugin, absl::string_view message) = 0;
};

}  // namespace trimaran::sched
