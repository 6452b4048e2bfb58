// InterPodAffinity's QueueingHint (spec kube-scheduler-constraints.md §2.7), with the
// fix for kubernetes#134393 and a sound rule for nodes (see README.md).

#include <string_view>

#include "scheduler/plugins/inter_pod_affinity/affinity_terms.h"
#include "scheduler/plugins/inter_pod_affinity/inter_pod_affinity.h"

namespace trimaran::sched::plugins {
namespace {

// True when `pod` matches every term (false for no terms), `ns_labels` being the labels
// of `pod`'s namespace.
bool MatchesAll(const std::vector<AffinityTerm>& terms, const kube::Pod& pod,
                const kube::Labels& ns_labels) {
  if (terms.empty()) return false;
  for (const AffinityTerm& t : terms) {
    if (!t.Matches(pod, &ns_labels)) return false;
  }
  return true;
}

bool AnyMatches(const std::vector<AffinityTerm>& terms, const kube::Pod& pod,
                const kube::Labels& ns_labels) {
  for (const AffinityTerm& t : terms) {
    if (t.Matches(pod, &ns_labels)) return true;
  }
  return false;
}

bool HasKey(const kube::Labels& labels, const std::vector<AffinityTerm>& terms) {
  for (const AffinityTerm& t : terms) {
    if (labels.contains(t.topology_key)) return true;
  }
  return false;
}

bool HasAllKeys(const kube::Labels& labels, const std::vector<AffinityTerm>& terms) {
  for (const AffinityTerm& t : terms) {
    if (!labels.contains(t.topology_key)) return false;
  }
  return true;
}

kube::Labels LabelsOfNamespace(const ObjectLister& objects, const std::string& ns) {
  auto obj = objects.Get(kube::SelectorResource::kNamespaces, "", std::string_view(ns));
  return obj == nullptr ? kube::Labels() : obj->metadata.labels;
}

}  // namespace

absl::StatusOr<QueueingHint> InterPodAffinity::Hint(const kube::Pod& pod, const ClusterEvent& event,
                                                    const EventObjects& objects) const {
  if (event.resource == EventResource::kPod && objects.old_pod == nullptr &&
      objects.new_pod != nullptr) {
    // An added pod can only satisfy required affinity: skip the parse without any.
    const auto& a = pod.spec.affinity;
    if (!a.has_value() || !a->pod_affinity.has_value() || a->pod_affinity->required.empty()) {
      return QueueingHint::kQueueSkip;
    }
  }
  absl::StatusOr<PodAffinityTerms> terms = ParsePodAffinityTerms(pod);
  if (!terms.ok()) return terms.status();
  const std::vector<AffinityTerm>& affinity = terms->required_affinity;
  const std::vector<AffinityTerm>& anti = terms->required_anti_affinity;

  if (event.resource == EventResource::kNode) {
    const kube::Node* node = objects.new_node != nullptr ? objects.new_node : objects.old_node;
    if (node == nullptr) return QueueingHint::kQueue;
    const kube::Labels& labels = node->metadata.labels;
    if (objects.old_node == nullptr) {
      // A new node: it may be free of the pods whose anti-affinity (the incoming pod's or
      // theirs) blocked the pod; with required affinity it must carry every key.
      return affinity.empty() || HasAllKeys(labels, affinity) ? QueueingHint::kQueue
                                                              : QueueingHint::kQueueSkip;
    }
    // An update: upstream queues when the node carries a key of the pod's own terms. A
    // relabelled node can also leave the topology domain of an existing pod whose
    // anti-affinity blocked the pod (terms the hint cannot see), so a label change
    // queues too; a taint-only change cannot alter this plugin's verdict.
    if (objects.new_node != nullptr && objects.old_node->metadata.labels != labels) {
      return QueueingHint::kQueue;
    }
    return HasKey(labels, affinity) || HasKey(labels, anti) ? QueueingHint::kQueue
                                                            : QueueingHint::kQueueSkip;
  }
  if (event.resource != EventResource::kPod) return QueueingHint::kQueue;

  const kube::Pod* old_pod = objects.old_pod;
  const kube::Pod* new_pod = objects.new_pod;
  if ((old_pod != nullptr && old_pod->spec.node_name.empty()) ||
      (new_pod != nullptr && new_pod->spec.node_name.empty())) {
    return QueueingHint::kQueueSkip;
  }
  const ObjectLister& lister = handle_.object_lister();
  if (old_pod != nullptr && new_pod != nullptr) {
    // Relabelled: it may now satisfy the affinity, or no longer trip the anti-affinity.
    const kube::Labels ns = LabelsOfNamespace(lister, new_pod->metadata.namespace_name);
    if (!MatchesAll(affinity, *old_pod, ns) && MatchesAll(affinity, *new_pod, ns)) {
      return QueueingHint::kQueue;
    }
    if (MatchesAll(anti, *old_pod, ns) && !MatchesAll(anti, *new_pod, ns)) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kQueueSkip;
  }
  if (new_pod != nullptr) {
    const kube::Labels ns = LabelsOfNamespace(lister, new_pod->metadata.namespace_name);
    return MatchesAll(affinity, *new_pod, ns) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
  }
  if (old_pod == nullptr) return QueueingHint::kQueue;
  // Deleted: helps when it tripped the pod's anti-affinity, or when its own required
  // anti-affinity matched the pod (upstream skips this case: kubernetes#134393, fixed
  // by #135325).
  const kube::Labels ns = LabelsOfNamespace(lister, old_pod->metadata.namespace_name);
  if (MatchesAll(anti, *old_pod, ns)) return QueueingHint::kQueue;
  const PodAffinityTerms existing = ParseExistingPodAffinityTerms(*old_pod);
  if (!existing.required_anti_affinity.empty()) {
    const kube::Labels pod_ns = LabelsOfNamespace(lister, pod.metadata.namespace_name);
    if (AnyMatches(existing.required_anti_affinity, pod, pod_ns)) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

}  // namespace trimaran::sched::plugins
