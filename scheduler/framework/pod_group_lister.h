#pragma once
// PodGroupLister: the PodGroups (scheduling.x-k8s.io/v1alpha1, kube/api/pod_group.h) the
// scheduler's informer holds and the pods that carry each group's label
// (`scheduling.x-k8s.io/pod-group`), pending or bound: what Coscheduling reads
// (upstream's PodGroup lister + the pod lister filtered by the label). Read live, like
// ObjectLister. The daemon feeds it only when a profile enables Coscheduling; the
// default (EmptyPodGroupLister) has nothing and says so through Health().
//
// Thread-safety: implementations are safe for concurrent use.

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "kube/api/pod.h"
#include "kube/api/pod_group.h"

namespace trimaran::sched {

class PodGroupLister {
 public:
  virtual ~PodGroupLister() = default;
  // OK when PodGroups are being read; otherwise why not (e.g. FailedPrecondition "the
  // PodGroup CRD (podgroups.scheduling.x-k8s.io) is not installed").
  virtual absl::Status Health() const = 0;
  // The PodGroup `ns`/`name`, or nullptr.
  virtual std::shared_ptr<const kube::PodGroup> Get(std::string_view ns,
                                                    std::string_view name) const = 0;
  // Every pod in `ns` labelled with group `name` (pending or bound), in name order.
  virtual std::vector<std::shared_ptr<const kube::Pod>> Pods(std::string_view ns,
                                                             std::string_view name) const = 0;
};

// A PodGroupLister with nothing in it: Health() is FailedPrecondition.
const PodGroupLister& EmptyPodGroupLister();

}  // namespace trimaran::sched
