#include "scheduler/plugins/helper/default_selector.h"

#include <memory>
#include <string>

namespace trimaran::sched::plugins::helper {
namespace {

// Whether every key=value of `map` is among `labels` (an empty map matches everything).
bool MapMatches(const kube::Labels& map, const kube::Labels& labels) {
  for (const auto& [key, value] : map) {
    const auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

void Merge(const kube::Labels& from, kube::Labels& into) {
  for (const auto& [key, value] : from) into.insert_or_assign(key, value);
}

// ANDs `selector`'s requirements onto `out` (matchLabels as In requirements, so a key
// already in out.match_labels is required twice rather than overwritten).
void AddRequirements(const kube::LabelSelector& selector, kube::LabelSelector& out) {
  for (const auto& [key, value] : selector.match_labels) {
    out.match_expressions.push_back(kube::LabelSelectorRequirement{
        .key = key, .op = kube::LabelSelectorOperator::kIn, .values = {value}});
  }
  for (const kube::LabelSelectorRequirement& r : selector.match_expressions) {
    out.match_expressions.push_back(r);
  }
}

}  // namespace

kube::LabelSelector DefaultSelector(const kube::Pod& pod, const ObjectLister& objects) {
  kube::LabelSelector out;
  const std::string& ns = pod.metadata.namespace_name;
  for (const auto& svc : objects.List(kube::SelectorResource::kServices, ns)) {
    if (!svc->selector.has_value()) continue;
    if (MapMatches(svc->selector->match_labels, pod.metadata.labels)) {
      Merge(svc->selector->match_labels, out.match_labels);
    }
  }
  const kube::OwnerReference* owner = kube::ControllerRef(pod.metadata);
  if (owner == nullptr) return out;
  if (owner->api_version == "v1" && owner->kind == "ReplicationController") {
    auto rc = objects.Get(kube::SelectorResource::kReplicationControllers, ns, owner->name);
    if (rc != nullptr && rc->selector.has_value())
      Merge(rc->selector->match_labels, out.match_labels);
  } else if (owner->api_version == "apps/v1" &&
             (owner->kind == "ReplicaSet" || owner->kind == "StatefulSet")) {
    const kube::SelectorResource resource = owner->kind == "ReplicaSet"
                                                ? kube::SelectorResource::kReplicaSets
                                                : kube::SelectorResource::kStatefulSets;
    auto controller = objects.Get(resource, ns, owner->name);
    if (controller != nullptr && controller->selector.has_value()) {
      AddRequirements(*controller->selector, out);
    }
  }
  return out;
}

}  // namespace trimaran::sched::plugins::helper
