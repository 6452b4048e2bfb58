#pragma once
// The informers that feed a Scheduler and their event handlers (upstream's
// addAllEventHandlers, pkg/scheduler/eventhandlers.go). The handlers themselves are the
// Scheduler's On* methods (scheduler.h, event_handlers.cc); this is the daemon's wiring
// of informers to them:
//
//   nodes                 → OnNodeAdd / OnNodeUpdate / OnNodeDelete
//   non-terminal pods     → OnPodAdd / OnPodUpdate / OnPodDelete; with
//                           `assigned_pods_only` (the extender mode: pending pods are
//                           kube-scheduler's and nothing pops the queue) only assigned
//                           pods, a pod that becomes assigned arriving as an Add
//   namespaces, services, controllers, PodDisruptionBudgets (one informer for both
//                           versions) → objects() (Apply / Remove)
//   PVs, PVCs, StorageClasses, CSINodes, CSIDrivers, CSIStorageCapacities (v1, else
//                           v1beta1, else not served: capacity tracking off)
//                         → OnStorageAdd / OnStorageUpdate / OnStorageDelete
//   PodGroups (only with `pod_groups`: a profile enables Coscheduling)
//                         → OnPodGroupAdd / OnPodGroupUpdate / OnPodGroupDelete
//
//   sched::SchedulerInformers informers = sched::AddAllEventHandlers(
//       *scheduler, client, clock, {.assigned_pods_only = extender});
//   ... start them, wait for their sync, then Scheduler::Run ...
//   informers.Stop();
//
// Nothing is started here; the owner starts the informers, names their stats and waits
// for their sync (cmd/scheduler/app.cc).
//
// Thread-safety: AddAllEventHandlers from one thread before any informer starts; the
// handlers run on the informers' threads (the Scheduler's handlers are safe for that).
// SchedulerInformers::Stop from one thread.
//
// Ownership: the Scheduler, the Client and the Clock must outlive the informers.

#include <memory>
#include <vector>

#include "common/clock.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/pod_group.h"
#include "kube/api/selector_object.h"
#include "kube/api/storage.h"
#include "kube/client.h"
#include "kube/informer.h"
#include "scheduler/scheduler.h"

namespace trimaran::sched {

struct SchedulerInformers {
  std::unique_ptr<kube::Informer<kube::Node>> nodes;
  std::unique_ptr<kube::Informer<kube::Pod>> pods;
  // Namespaces, services, replication controllers, replica sets, stateful sets and
  // PodDisruptionBudgets (whichever version is served, stored as kPodDisruptionBudgets).
  // object_resources[i] is what objects[i] feeds.
  std::vector<std::unique_ptr<kube::Informer<kube::SelectorObject>>> objects;
  std::vector<kube::SelectorResource> object_resources;
  // In kube::kAllStorageResources order.
  std::vector<std::unique_ptr<kube::Informer<kube::StorageObject>>> storage;
  // Null unless EventHandlerOptions::pod_groups.
  std::unique_ptr<kube::Informer<kube::PodGroup>> pod_groups;

  // Stops every informer: all are asked first, then joined, so their watches (each ends
  // at its next stop check, up to about a second) end together, not one by one.
  void Stop();
};

struct EventHandlerOptions {
  // Feed only assigned pods to the Scheduler (the extender mode, see above).
  bool assigned_pods_only = false;
  // Watch PodGroups (scheduling.x-k8s.io) for Coscheduling.
  bool pod_groups = false;
};

// Creates the informers over `client` (not started), each with its handlers on
// `scheduler` registered.
SchedulerInformers AddAllEventHandlers(Scheduler& scheduler, kube::Client& client,
                                       const Clock& clock, EventHandlerOptions options = {});

}  // namespace trimaran::sched
