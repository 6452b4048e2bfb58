// The Scheduler's event handlers (upstream's pkg/scheduler/eventhandlers.go): what each
// informer event does to the cache, the queue and the object stores, and the daemon's
// wiring of informers to them (AddAllEventHandlers, event_handlers.h).

#include "scheduler/event_handlers.h"

#include <string>
#include <string_view>
#include <utility>

#include "common/logging.h"
#include "kube/api/pod_resources.h"
#include "scheduler/framework/cluster_event.h"
#include "scheduler/scheduler.h"

namespace trimaran::sched {
namespace {

// Some resource of `old_req` is smaller in `new_req` (upstream's extractPodScaleDown):
// an in-place resize was applied, or a pending one was given up.
bool AnyRequestShrank(const kube::Resource& old_req, const kube::Resource& new_req) {
  if (new_req.milli_cpu < old_req.milli_cpu || new_req.memory < old_req.memory ||
      new_req.ephemeral_storage < old_req.ephemeral_storage) {
    return true;
  }
  for (const auto& [name, value] : old_req.scalar) {
    if (new_req.Get(name) < value) return true;
  }
  return false;
}

// The update sub-kinds between two versions of an assigned pod that matter to
// unschedulable pods.
ActionType AssignedPodUpdateActions(const kube::Pod& old_pod, const kube::Pod& new_pod) {
  ActionType actions = ActionType::kNone;
  if (old_pod.metadata.labels != new_pod.metadata.labels) actions |= ActionType::kUpdatePodLabel;
  if (AnyRequestShrank(kube::ComputePodRequests(old_pod), kube::ComputePodRequests(new_pod))) {
    actions |= ActionType::kUpdatePodScaleDown;
  }
  return actions;
}

EventResource StorageEventResource(kube::StorageResource resource) {
  switch (resource) {
    case kube::StorageResource::kPersistentVolumes:
      return EventResource::kPersistentVolume;
    case kube::StorageResource::kPersistentVolumeClaims:
      return EventResource::kPersistentVolumeClaim;
    case kube::StorageResource::kStorageClasses:
      return EventResource::kStorageClass;
    case kube::StorageResource::kCSINodes:
      return EventResource::kCSINode;
    case kube::StorageResource::kCSIDrivers:
      return EventResource::kCSIDriver;
    case kube::StorageResource::kCSIStorageCapacities:
    case kube::StorageResource::kCSIStorageCapacitiesV1beta1:
      return EventResource::kCSIStorageCapacity;
  }
  return EventResource::kWildCard;
}

}  // namespace

void Scheduler::NotePodGroupMember(const kube::Pod* old_pod,
                                   const std::shared_ptr<const kube::Pod>& pod) {
  const std::string_view old_group =
      old_pod != nullptr ? kube::PodGroupNameOf(*old_pod) : std::string_view();
  const std::string_view new_group =
      pod != nullptr ? kube::PodGroupNameOf(*pod) : std::string_view();
  if (old_group.empty() && new_group.empty()) return;
  if (pod != nullptr) {
    pod_groups_.ApplyPod(pod);
  } else {
    pod_groups_.RemovePod(*old_pod);
  }
  if (pod_group_observer_) {
    if (!old_group.empty()) {
      pod_group_observer_(old_pod->metadata.namespace_name, std::string(old_group));
    }
    if (!new_group.empty() && new_group != old_group) {
      pod_group_observer_(pod->metadata.namespace_name, std::string(new_group));
    }
  }
}

void Scheduler::OnPodGroupAdd(std::shared_ptr<const kube::PodGroup> group) {
  if (pod_group_observer_)
    pod_group_observer_(group->metadata.namespace_name, group->metadata.name);
  pod_groups_.Apply(std::move(group));
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{EventResource::kPodGroup, ActionType::kAdd, "PodGroupAdd"});
}

void Scheduler::OnPodGroupUpdate(std::shared_ptr<const kube::PodGroup> group) {
  if (pod_group_observer_)
    pod_group_observer_(group->metadata.namespace_name, group->metadata.name);
  pod_groups_.Apply(std::move(group));
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{EventResource::kPodGroup, ActionType::kUpdateOther, "PodGroupUpdate"});
}

void Scheduler::SetPodGroupsHealth(absl::Status health) {
  const bool ok = health.ok();
  pod_groups_.SetHealth(std::move(health));
  if (ok) {
    queue_->MoveAllToActiveOrBackoffQueue(
        ClusterEvent{EventResource::kPodGroup, ActionType::kUpdateOther, "PodGroupsReadable"});
  }
}

void Scheduler::OnPodGroupDelete(std::shared_ptr<const kube::PodGroup> group) {
  pod_groups_.Remove(*group);
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{EventResource::kPodGroup, ActionType::kDelete, "PodGroupDelete"});
}

void Scheduler::OnPodAdd(std::shared_ptr<const kube::Pod> pod) {
  if (!kube::PodGroupNameOf(*pod).empty()) {
    NotePodGroupMember(nullptr, pod);
    if (!kube::IsAssigned(*pod)) {
      // A new pending member may complete its group's minMember.
      queue_->MoveAllToActiveOrBackoffQueue(
          ClusterEvent{EventResource::kPodGroup, ActionType::kUpdateOther, "PodGroupMemberAdd"});
    }
  }
  if (kube::IsAssigned(*pod)) {
    if (kube::IsTerminal(*pod)) return;
    if (absl::Status s = cache_->AddPod(pod); !s.ok()) {
      Log(Component::kCache).debug("add pod: {}", s.ToString());
    }
    queue_->AssignedPodAdded(*pod);
    return;
  }
  if (!ResponsibleFor(*pod) || kube::IsTerminal(*pod)) return;
  queue_->Add(std::move(pod));
}

void Scheduler::OnPodUpdate(std::shared_ptr<const kube::Pod> old_pod,
                            std::shared_ptr<const kube::Pod> new_pod) {
  NotePodGroupMember(old_pod.get(), new_pod);
  if (kube::IsAssigned(*new_pod)) {
    if (!kube::IsAssigned(*old_pod)) {
      // Bound (by us or someone else): leaves the queue, enters the cache.
      if (ResponsibleFor(*old_pod)) queue_->Delete(*old_pod);
      OnPodAdd(std::move(new_pod));
      return;
    }
    if (kube::IsTerminal(*new_pod)) {
      OnPodDelete(std::move(old_pod));
      // Still a member of its PodGroup (succeeded/failed counts).
      if (!kube::PodGroupNameOf(*new_pod).empty()) pod_groups_.ApplyPod(new_pod);
      return;
    }
    if (absl::Status s = cache_->UpdatePod(*old_pod, new_pod); !s.ok()) {
      Log(Component::kCache).debug("update pod: {}", s.ToString());
    }
    const ActionType actions = AssignedPodUpdateActions(*old_pod, *new_pod);
    if (Any(actions)) queue_->AssignedPodUpdated(*old_pod, *new_pod, actions);
    return;
  }
  if (!ResponsibleFor(*new_pod)) return;
  if (kube::IsTerminal(*new_pod)) {
    queue_->Delete(*old_pod);
    return;
  }
  // In its binding cycle (upstream's updatePodInSchedulingQueue skips it too): the
  // nominatedNodeName written meanwhile must not count the pod twice on its node.
  if (cache_->IsAssumedPod(*new_pod)) return;
  queue_->Update(*old_pod, std::move(new_pod));
}

void Scheduler::OnPodDelete(std::shared_ptr<const kube::Pod> pod) {
  NotePodGroupMember(pod.get(), nullptr);
  if (kube::IsAssigned(*pod) || cache_->IsAssumedPod(*pod)) {
    // Plugins that remember placed pods (the load-aware plugins' recent placements) drop
    // it: a deleted pod (a preemption victim, say) no longer loads its node.
    for (const auto& f : frameworks_) f->RunPodDeletionListeners(*pod);
  }
  if (kube::IsAssigned(*pod)) {
    if (absl::Status s = cache_->RemovePod(*pod); !s.ok()) {
      Log(Component::kCache).debug("remove pod: {}", s.ToString());
    }
    queue_->MoveAllToActiveOrBackoffQueue(kAssignedPodDeleteEvent,
                                          EventObjects{.old_pod = pod.get()});
    return;
  }
  // A pod we assumed, bound and deleted while the watch was away (a 410 gap): the
  // re-list's tombstone carries the last version seen, still unassigned. Its assumed
  // entry goes too.
  if (cache_->IsAssumedPod(*pod)) {
    if (absl::Status s = cache_->RemovePod(*pod); !s.ok()) {
      Log(Component::kCache).debug("remove assumed pod: {}", s.ToString());
    }
    queue_->MoveAllToActiveOrBackoffQueue(kAssignedPodDeleteEvent,
                                          EventObjects{.old_pod = pod.get()});
  }
  Framework* fwk = FrameworkFor(pod->spec.scheduler_name);
  if (fwk == nullptr) return;
  queue_->Delete(*pod);
  if (auto waiting = fwk->waiting_pods().Get(*pod); waiting != nullptr) {
    waiting->Reject("", "removed");
  }
}

void Scheduler::OnNodeAdd(std::shared_ptr<const kube::Node> node) {
  if (absl::Status s = cache_->AddNode(node); !s.ok()) {
    Log(Component::kCache).warn("add node: {}", s.ToString());
  }
  queue_->MoveAllToActiveOrBackoffQueue(kNodeAddEvent, EventObjects{.new_node = node.get()});
}

void Scheduler::OnNodeUpdate(std::shared_ptr<const kube::Node> old_node,
                             std::shared_ptr<const kube::Node> new_node) {
  const ActionType actions = NodeUpdateActions(*old_node, *new_node);
  if (absl::Status s = cache_->UpdateNode(new_node); !s.ok()) {
    Log(Component::kCache).warn("update node: {}", s.ToString());
  }
  if (Any(actions)) {
    queue_->MoveAllToActiveOrBackoffQueue(
        ClusterEvent{EventResource::kNode, actions, "NodeUpdate"},
        EventObjects{.old_node = old_node.get(), .new_node = new_node.get()});
  }
}

void Scheduler::OnNodeDelete(std::shared_ptr<const kube::Node> node) {
  if (absl::Status s = cache_->RemoveNode(*node); !s.ok()) {
    Log(Component::kCache).debug("remove node: {}", s.ToString());
  }
  // A node that leaves can lower the count of a spread domain (PodTopologySpread).
  queue_->MoveAllToActiveOrBackoffQueue(kNodeDeleteEvent, EventObjects{.old_node = node.get()});
}

void Scheduler::OnStorageAdd(std::shared_ptr<const kube::StorageObject> object) {
  const EventResource resource = StorageEventResource(object->resource());
  storage_.Apply(object);
  queue_->MoveAllToActiveOrBackoffQueue(ClusterEvent{resource, ActionType::kAdd, "StorageAdd"},
                                        EventObjects{.new_storage = object.get()});
}

void Scheduler::OnStorageUpdate(std::shared_ptr<const kube::StorageObject> old_object,
                                std::shared_ptr<const kube::StorageObject> object) {
  const EventResource resource = StorageEventResource(object->resource());
  storage_.Apply(object);
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{resource, ActionType::kUpdateOther, "StorageUpdate"},
      EventObjects{.old_storage = old_object.get(), .new_storage = object.get()});
}

void Scheduler::OnStorageDelete(std::shared_ptr<const kube::StorageObject> object) {
  const EventResource resource = StorageEventResource(object->resource());
  storage_.Remove(*object);
  queue_->MoveAllToActiveOrBackoffQueue(
      ClusterEvent{resource, ActionType::kDelete, "StorageDelete"},
      EventObjects{.old_storage = object.get()});
}

// ---- The informers' wiring ----

namespace {

template <typename T>
using Ptr = std::shared_ptr<const T>;

std::unique_ptr<kube::Informer<kube::Node>> NodeInformer(Scheduler& sch, kube::Client& client,
                                                         const Clock& clock) {
  auto informer =
      std::make_unique<kube::Informer<kube::Node>>(kube::NodeListerWatcher(client), clock);
  Scheduler* s = &sch;
  informer->AddEventHandlers(kube::EventHandlers<kube::Node>{
      .on_add = [s](const Ptr<kube::Node>& n) { s->OnNodeAdd(n); },
      .on_update = [s](const Ptr<kube::Node>& o,
                       const Ptr<kube::Node>& n) { s->OnNodeUpdate(o, n); },
      .on_delete = [s](const Ptr<kube::Node>& n, bool) { s->OnNodeDelete(n); },
  });
  return informer;
}

// Every pod event to the Scheduler.
kube::EventHandlers<kube::Pod> AllPodsHandlers(Scheduler* s) {
  return kube::EventHandlers<kube::Pod>{
      .on_add = [s](const Ptr<kube::Pod>& p) { s->OnPodAdd(p); },
      .on_update = [s](const Ptr<kube::Pod>& o, const Ptr<kube::Pod>& n) { s->OnPodUpdate(o, n); },
      .on_delete = [s](const Ptr<kube::Pod>& p, bool) { s->OnPodDelete(p); },
  };
}

// The extender's cache holds the assigned pods only: pending pods are kube-scheduler's,
// and nothing pops the queue.
kube::EventHandlers<kube::Pod> AssignedPodsHandlers(Scheduler* s) {
  return kube::EventHandlers<kube::Pod>{
      .on_add =
          [s](const Ptr<kube::Pod>& p) {
            if (!p->spec.node_name.empty()) s->OnPodAdd(p);
          },
      .on_update =
          [s](const Ptr<kube::Pod>& o, const Ptr<kube::Pod>& n) {
            if (n->spec.node_name.empty()) return;
            if (o->spec.node_name.empty()) {
              s->OnPodAdd(n);
            } else {
              s->OnPodUpdate(o, n);
            }
          },
      .on_delete =
          [s](const Ptr<kube::Pod>& p, bool) {
            if (!p->spec.node_name.empty()) s->OnPodDelete(p);
          },
  };
}

std::unique_ptr<kube::Informer<kube::Pod>> PodInformer(Scheduler& sch, kube::Client& client,
                                                       const Clock& clock,
                                                       bool assigned_pods_only) {
  auto informer =
      std::make_unique<kube::Informer<kube::Pod>>(kube::PodListerWatcher(client), clock);
  informer->AddEventHandlers(assigned_pods_only ? AssignedPodsHandlers(&sch)
                                                : AllPodsHandlers(&sch));
  return informer;
}

void AddObjectInformers(Scheduler& sch, kube::Client& client, const Clock& clock,
                        SchedulerInformers& out) {
  Scheduler* s = &sch;
  for (kube::SelectorResource resource : kube::kAllSelectorResources) {
    // One informer for both PodDisruptionBudget versions (DisruptionBudgetListerWatcher).
    if (resource == kube::SelectorResource::kPodDisruptionBudgetsV1beta1) continue;
    auto informer = std::make_unique<kube::Informer<kube::SelectorObject>>(
        resource == kube::SelectorResource::kPodDisruptionBudgets
            ? kube::DisruptionBudgetListerWatcher(client)
            : kube::SelectorObjectListerWatcher(client, resource),
        clock);
    informer->AddEventHandlers(kube::EventHandlers<kube::SelectorObject>{
        .on_add =
            [s, resource](const Ptr<kube::SelectorObject>& o) { s->objects().Apply(resource, o); },
        .on_update = [s, resource](
                         const Ptr<kube::SelectorObject>&,
                         const Ptr<kube::SelectorObject>& o) { s->objects().Apply(resource, o); },
        .on_delete = [s, resource](const Ptr<kube::SelectorObject>& o,
                                   bool) { s->objects().Remove(resource, *o); },
    });
    out.objects.push_back(std::move(informer));
    out.object_resources.push_back(resource);
  }
}

void AddStorageInformers(Scheduler& sch, kube::Client& client, const Clock& clock,
                         SchedulerInformers& out) {
  Scheduler* s = &sch;
  for (kube::StorageResource resource : kube::kAllStorageResources) {
    // CSIStorageCapacity: v1, else v1beta1, else (1.20) not served: capacity checks off.
    auto informer = std::make_unique<kube::Informer<kube::StorageObject>>(
        resource == kube::StorageResource::kCSIStorageCapacities
            ? kube::StorageCapacityListerWatcher(client,
                                                 [s] { s->storage().SetCapacityTracking(false); })
            : kube::StorageObjectListerWatcher(client, resource),
        clock);
    informer->AddEventHandlers(kube::EventHandlers<kube::StorageObject>{
        .on_add = [s](const Ptr<kube::StorageObject>& o) { s->OnStorageAdd(o); },
        .on_update = [s](const Ptr<kube::StorageObject>& old_object,
                         const Ptr<kube::StorageObject>& o) { s->OnStorageUpdate(old_object, o); },
        .on_delete = [s](const Ptr<kube::StorageObject>& o, bool) { s->OnStorageDelete(o); },
    });
    out.storage.push_back(std::move(informer));
  }
}

std::unique_ptr<kube::Informer<kube::PodGroup>> PodGroupInformer(Scheduler& sch,
                                                                 kube::Client& client,
                                                                 const Clock& clock) {
  auto informer =
      std::make_unique<kube::Informer<kube::PodGroup>>(kube::PodGroupListerWatcher(client), clock);
  Scheduler* s = &sch;
  informer->AddEventHandlers(kube::EventHandlers<kube::PodGroup>{
      .on_add = [s](const Ptr<kube::PodGroup>& g) { s->OnPodGroupAdd(g); },
      .on_update = [s](const Ptr<kube::PodGroup>&,
                       const Ptr<kube::PodGroup>& g) { s->OnPodGroupUpdate(g); },
      .on_delete = [s](const Ptr<kube::PodGroup>& g, bool) { s->OnPodGroupDelete(g); },
  });
  return informer;
}

}  // namespace

SchedulerInformers AddAllEventHandlers(Scheduler& scheduler, kube::Client& client,
                                       const Clock& clock, EventHandlerOptions options) {
  SchedulerInformers informers;
  informers.nodes = NodeInformer(scheduler, client, clock);
  informers.pods = PodInformer(scheduler, client, clock, options.assigned_pods_only);
  AddObjectInformers(scheduler, client, clock, informers);
  AddStorageInformers(scheduler, client, clock, informers);
  if (options.pod_groups) informers.pod_groups = PodGroupInformer(scheduler, client, clock);
  return informers;
}

void SchedulerInformers::Stop() {
  if (pods) pods->RequestStop();
  if (nodes) nodes->RequestStop();
  for (auto& informer : objects) informer->RequestStop();
  for (auto& informer : storage) informer->RequestStop();
  if (pod_groups) pod_groups->RequestStop();
  if (pods) pods->Stop();
  if (nodes) nodes->Stop();
  for (auto& informer : objects) informer->Stop();
  for (auto& informer : storage) informer->Stop();
  if (pod_groups) pod_groups->Stop();
}

}  // namespace trimaran::sched
