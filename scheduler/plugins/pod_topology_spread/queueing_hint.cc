// PodTopologySpread's QueueingHint (spec kube-scheduler-constraints.md §3.8).

#include <vector>

#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"

namespace trimaran::sched::plugins {
namespace {

bool HasAllTopologyKeys(const kube::Labels& labels,
                        const std::vector<SpreadConstraint>& constraints) {
  for (const SpreadConstraint& c : constraints) {
    if (!labels.contains(c.topology_key)) return false;
  }
  return true;
}

bool AnySelects(const std::vector<SpreadConstraint>& constraints, const kube::Pod& pod) {
  for (const SpreadConstraint& c : constraints) {
    if (c.selector.Matches(pod.metadata.labels)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<QueueingHint> PodTopologySpread::Hint(const kube::Pod& pod,
                                                     const ClusterEvent& event,
                                                     const EventObjects& objects) const {
  // Only hard constraints reject pods.
  absl::StatusOr<std::vector<SpreadConstraint>> constraints =
      ConstraintsFor(pod, kube::UnsatisfiableConstraintAction::kDoNotSchedule);
  if (!constraints.ok()) return constraints.status();

  if (event.resource == EventResource::kNode) {
    // Added or updated: the node must carry every key to count; deleted: it counted
    // only if it had them. No constraint counts as having every key.
    const kube::Node* node = objects.new_node != nullptr ? objects.new_node : objects.old_node;
    if (node == nullptr) return QueueingHint::kQueue;
    return HasAllTopologyKeys(node->metadata.labels, *constraints) ? QueueingHint::kQueue
                                                                   : QueueingHint::kQueueSkip;
  }
  if (event.resource != EventResource::kPod) return QueueingHint::kQueue;

  const kube::Pod* old_pod = objects.old_pod;
  const kube::Pod* new_pod = objects.new_pod;
  for (const kube::Pod* p : {old_pod, new_pod}) {
    if (p != nullptr &&
        (p->spec.node_name.empty() || p->metadata.namespace_name != pod.metadata.namespace_name)) {
      return QueueingHint::kQueueSkip;
    }
  }
  if (old_pod != nullptr && new_pod != nullptr) {
    if (old_pod->metadata.labels == new_pod->metadata.labels) return QueueingHint::kQueueSkip;
    for (const SpreadConstraint& c : *constraints) {
      if (c.selector.Matches(old_pod->metadata.labels) !=
          c.selector.Matches(new_pod->metadata.labels)) {
        return QueueingHint::kQueue;
      }
    }
    return QueueingHint::kQueueSkip;
  }
  const kube::Pod* changed = new_pod != nullptr ? new_pod : old_pod;
  if (changed == nullptr) return QueueingHint::kQueue;
  return AnySelects(*constraints, *changed) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

}  // namespace trimaran::sched::plugins
