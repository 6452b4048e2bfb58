#pragma once
// Nominator: the pods that preemption nominated to a node (status.nominatedNodeName),
// so that Filter can count them on that node while the victims terminate (spec
// kube-scheduler.md §4.5, §5.6; upstream's nominator).
//
// A pod is nominated to at most one node. The nominated node is either the one the
// scheduler just chose (an override, before the API status update arrives) or the
// pod's status.nominatedNodeName. Assigned pods (spec.nodeName set) are never
// nominated.
//
// Thread-safety: none; the owning queue serializes access under its mutex.

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/node_info.h"

namespace trimaran::sched {

class Nominator {
 public:
  // Nominates `pod_info` to `node_name`, or to its status.nominatedNodeName when
  // `node_name` is empty; replaces any earlier nomination of the same pod. No-op (after
  // removing the old nomination) when the pod is assigned or there is no node.
  void Add(PodInfo pod_info, absl::string_view node_name = "");
  // Removes the nomination of the pod with `key`, if any.
  void Delete(absl::string_view key);
  // The pod changed: keeps the scheduler's own nomination when neither version carries
  // a status.nominatedNodeName (the API update has not arrived yet), else follows the
  // new pod's status (upstream's UpdateNominatedPod).
  void Update(const kube::Pod& old_pod, PodInfo new_pod_info);

  // The pods nominated to `node_name`, in nomination order (copies: share the pods).
  std::vector<PodInfo> PodsForNode(absl::string_view node_name) const;
  // The node the pod with `key` is nominated to, or "".
  std::string NodeOf(absl::string_view key) const;
  size_t size() const { return pod_to_node_.size(); }

 private:
  absl::flat_hash_map<std::string, std::vector<PodInfo>> node_to_pods_;
  absl::flat_hash_map<std::string, std::string> pod_to_node_;
};

}  // namespace trimaran::sched
