#pragma once
// PodDeletionListener: optional, for plugins that keep per-pod state beyond a scheduling
// cycle and must drop it when a placed pod is deleted (the load-aware plugins' record of
// recently placed pods: a pod evicted by preemption, or deleted by its owner, no longer
// loads its node). The runtime discovers it next to a plugin's other interfaces
// (Framework::RunPodDeletionListeners); the scheduler calls it for every assigned or
// assumed pod its informer reports deleted.
//
// Thread-safety: called from the informer's thread, concurrently with the scheduling and
// binding cycles: implementations synchronize their state.

#include "kube/api/pod.h"

namespace trimaran::sched {

class PodDeletionListener {
 public:
  virtual ~PodDeletionListener() = default;
  // `pod` (bound or assumed) was deleted. Idempotent; must not fail.
  virtual void OnAssignedPodDeleted(const kube::Pod& pod) = 0;
};

}  // namespace trimaran::sched
