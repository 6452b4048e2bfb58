#pragma once
// PodNominator: the pods that preemption nominated to a node (status.nominatedNodeName,
// or nominated in memory by this process before the status write arrives), as plugins
// and the runtime see them (upstream's framework.PodNominator). The scheduling queue
// implements it (backend/queue/nominator.h keeps the records); Filter with nominated
// pods reads it for every node, DefaultPreemption writes nominations and clears those
// of lower-priority pods on the node it made room on.
//
// Thread-safety: implementations are safe for concurrent use.

#include <memory>
#include <vector>

#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/node_info.h"

namespace trimaran::sched {

class PodNominator {
 public:
  virtual ~PodNominator() = default;
  // Nominates `pod` to `node_name` ("" = its status.nominatedNodeName); replaces an
  // earlier nomination of the same pod.
  virtual void AddNominatedPod(std::shared_ptr<const kube::Pod> pod,
                               absl::string_view node_name) = 0;
  virtual void DeleteNominatedPodIfExists(const kube::Pod& pod) = 0;
  // The pods nominated to `node_name`, in nomination order.
  virtual std::vector<PodInfo> NominatedPodsForNode(absl::string_view node_name) const = 0;
  // False when no pod is nominated anywhere: a lock-free check the per-node Filter
  // path makes before asking for a node's nominated pods.
  virtual bool HasNominatedPods() const = 0;
};

}  // namespace trimaran::sched
