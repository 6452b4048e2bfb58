#pragma once
// ClusterEvent: a change in the cluster that may make an unschedulable pod schedulable
// ("a node was added", "a node's taints changed", "an assigned pod was deleted").
//
// Plugins that reject pods declare the events that can undo their rejection
// (EnqueueExtensions::EventsToRegister in interface.h). When the event handlers see a
// change they build the matching ClusterEvent, and the queue moves a pod out of the
// unschedulable pool only if one of the plugins that rejected it registered an event
// that Matches (spec kube-scheduler.md §5.3), and that plugin's QueueingHint for the
// event's objects says kQueue (spec kube-scheduler-constraints.md §1.4; upstream's
// framework.ClusterEvent and QueueingHintFn, with the SchedulerQueueingHints gate on as
// in 1.32+). A plugin without a hint queues on every matching event.
//
// Thread-safety: plain constexpr values and pure functions.

#include <cstdint>
#include <variant>

#include "absl/strings/string_view.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/storage.h"

namespace trimaran::sched {

// The kind of object that changed.
enum class EventResource : uint8_t {
  kPod,  // assigned pods (the cache's pods); unscheduled pods' own updates are handled apart
  kNode,
  kPersistentVolume,
  kPersistentVolumeClaim,
  kStorageClass,
  kCSINode,
  // scheduling.x-k8s.io PodGroups; also a new pending member of a group (UpdateOther):
  // unscheduled pods' adds are otherwise no event (Coscheduling).
  kPodGroup,
  kCSIDriver,
  kCSIStorageCapacity,
  kWildCard,  // any resource (only meaningful for registrations)
};

absl::string_view EventResourceName(EventResource resource);

// What happened, as a bit set. Update events carry the specific sub-kinds the handler
// detected, so a plugin can register for "node taints changed" only.
enum class ActionType : uint32_t {
  kNone = 0,
  kAdd = 1u << 0,
  kDelete = 1u << 1,
  // Node updates.
  kUpdateNodeAllocatable = 1u << 2,
  kUpdateNodeLabel = 1u << 3,
  kUpdateNodeTaint = 1u << 4,  // taints or spec.unschedulable
  kUpdateNodeCondition = 1u << 5,
  kUpdateNodeAnnotation = 1u << 6,
  // Assigned pod updates.
  kUpdatePodLabel = 1u << 7,
  kUpdatePodScaleDown = 1u << 8,  // its requests shrank (in-place resize)
  kUpdatePodTolerations = 1u << 9,
  kUpdatePodSchedulingGatesEliminated = 1u << 10,
  // Any other update (resources without sub-kinds, e.g. PersistentVolumeClaim).
  kUpdateOther = 1u << 11,
  // Every update sub-kind.
  kUpdate = (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 7) | (1u << 8) |
            (1u << 9) | (1u << 10) | (1u << 11),
  kAll = (1u << 0) | (1u << 1) | kUpdate,
};

constexpr ActionType operator|(ActionType a, ActionType b) {
  return static_cast<ActionType>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr ActionType operator&(ActionType a, ActionType b) {
  return static_cast<ActionType>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}
constexpr ActionType& operator|=(ActionType& a, ActionType b) { return a = a | b; }
constexpr bool Any(ActionType a) { return a != ActionType::kNone; }

struct ClusterEvent {
  EventResource resource = EventResource::kWildCard;
  ActionType action = ActionType::kAll;
  // For logs and metrics ("NodeAdd", "AssignedPodDelete", "UnschedulableTimeout").
  absl::string_view label;

  // Registered for everything: any event moves the pod.
  constexpr bool IsWildCard() const {
    return resource == EventResource::kWildCard && action == ActionType::kAll;
  }

  // Whether `incoming` (a concrete event) is one this registration cares about:
  // resources equal (or this is kWildCard) and the action bit sets intersect.
  constexpr bool Match(const ClusterEvent& incoming) const {
    if (IsWildCard()) return true;
    return (resource == EventResource::kWildCard || resource == incoming.resource) &&
           Any(action & incoming.action);
  }
};

// A plugin's verdict on one event for one pod it rejected.
enum class QueueingHint : uint8_t {
  kQueueSkip,  // the event cannot make the pod schedulable: it stays where it is
  kQueue,      // the event may help: the pod moves to backoffQ/activeQ
};

// The objects of a concrete event, for QueueingHints; nullptr where not applicable
// (old_* for an Add, new_* for a Delete, the node pair for a pod event, the storage
// pair for a PV/PVC/StorageClass/CSINode/CSIDriver/CSIStorageCapacity event). Borrowed
// for the duration of the call.
struct EventObjects {
  const kube::Pod* old_pod = nullptr;
  const kube::Pod* new_pod = nullptr;
  const kube::Node* old_node = nullptr;
  const kube::Node* new_node = nullptr;
  const kube::StorageObject* old_storage = nullptr;
  const kube::StorageObject* new_storage = nullptr;
};

// The typed storage object of an event (new, else old), or nullptr when the event
// carries none of type T.
template <typename T>
const T* EventStorage(const EventObjects& objects) {
  const kube::StorageObject* o = objects.new_storage ? objects.new_storage : objects.old_storage;
  return o == nullptr ? nullptr : std::get_if<T>(&o->object);
}
template <typename T>
const T* OldEventStorage(const EventObjects& objects) {
  return objects.old_storage == nullptr ? nullptr : std::get_if<T>(&objects.old_storage->object);
}

// Well-known events.
inline constexpr ClusterEvent kWildCardEvent{EventResource::kWildCard, ActionType::kAll,
                                             "WildCard"};
inline constexpr ClusterEvent kNodeAddEvent{EventResource::kNode, ActionType::kAdd, "NodeAdd"};
inline constexpr ClusterEvent kNodeDeleteEvent{EventResource::kNode, ActionType::kDelete,
                                               "NodeDelete"};
inline constexpr ClusterEvent kAssignedPodAddEvent{EventResource::kPod, ActionType::kAdd,
                                                   "AssignedPodAdd"};
inline constexpr ClusterEvent kAssignedPodDeleteEvent{EventResource::kPod, ActionType::kDelete,
                                                      "AssignedPodDelete"};
// A pod stayed in the unschedulable pool longer than podMaxInUnschedulablePodsDuration.
inline constexpr ClusterEvent kUnschedulableTimeoutEvent{EventResource::kWildCard, ActionType::kAll,
                                                         "UnschedulableTimeout"};

// The update sub-kinds between two versions of a node that matter for scheduling:
// allocatable, labels, taints/unschedulable, conditions (type and status) and
// annotations. kNone when nothing relevant changed (heartbeats, images, ...).
ActionType NodeUpdateActions(const kube::Node& old_node, const kube::Node& new_node);

}  // namespace trimaran::sched
