#include "scheduler/framework/cluster_event.h"

#include <algorithm>

namespace trimaran::sched {
namespace {

bool ConditionsDiffer(const kube::Node& a, const kube::Node& b) {
  // Only type and status matter (heartbeat times change every few seconds).
  if (a.status.conditions.size() != b.status.conditions.size()) return true;
  for (const kube::NodeCondition& c : a.status.conditions) {
    const kube::NodeCondition* other = kube::FindCondition(b.status, c.type);
    if (other == nullptr || other->status != c.status) return true;
  }
  return false;
}

}  // namespace

absl::string_view EventResourceName(EventResource resource) {
  switch (resource) {
    case EventResource::kPod:
      return "Pod";
    case EventResource::kNode:
      return "Node";
    case EventResource::kPersistentVolume:
      return "PersistentVolume";
    case EventResource::kPersistentVolumeClaim:
      return "PersistentVolumeClaim";
    case EventResource::kStorageClass:
      return "StorageClass";
    case EventResource::kCSINode:
      return "CSINode";
    case EventResource::kPodGroup:
      return "PodGroup";
    case EventResource::kCSIDriver:
      return "CSIDriver";
    case EventResource::kCSIStorageCapacity:
      return "CSIStorageCapacity";
    case EventResource::kWildCard:
      return "*";
  }
  return "Unknown";
}

ActionType NodeUpdateActions(const kube::Node& old_node, const kube::Node& new_node) {
  ActionType actions = ActionType::kNone;
  if (old_node.status.allocatable != new_node.status.allocatable) {
    actions |= ActionType::kUpdateNodeAllocatable;
  }
  if (old_node.metadata.labels != new_node.metadata.labels) {
    actions |= ActionType::kUpdateNodeLabel;
  }
  if (old_node.spec.taints != new_node.spec.taints ||
      old_node.spec.unschedulable != new_node.spec.unschedulable) {
    actions |= ActionType::kUpdateNodeTaint;
  }
  if (ConditionsDiffer(old_node, new_node)) actions |= ActionType::kUpdateNodeCondition;
  if (old_node.metadata.annotations != new_node.metadata.annotations) {
    actions |= ActionType::kUpdateNodeAnnotation;
  }
  return actions;
}

}  // namespace trimaran::sched
