#pragma once
// PodGroupStore: the scheduler's PodGroupLister (scheduler/framework/pod_group_lister.h),
// fed by the PodGroup informer (Apply/Remove) and by the scheduler's pod event handlers
// (ApplyPod/RemovePod, which keep only pods carrying the `scheduling.x-k8s.io/pod-group`
// label), so Coscheduling can count a group's members without listing every pod.
// SetHealth records why PodGroups cannot be read (e.g. the CRD is not installed).
//
// Thread-safety: safe for concurrent use; readers share the stored objects (immutable
// behind shared_ptr<const>).

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "kube/api/pod.h"
#include "kube/api/pod_group.h"
#include "scheduler/framework/pod_group_lister.h"

namespace trimaran::sched {

class PodGroupStore final : public PodGroupLister {
 public:
  void Apply(std::shared_ptr<const kube::PodGroup> group);
  void Remove(const kube::PodGroup& group);
  // Keeps `pod` when it carries the pod-group label (replacing an older copy, also when
  // its label changed); a pod without the label is dropped.
  void ApplyPod(std::shared_ptr<const kube::Pod> pod);
  void RemovePod(const kube::Pod& pod);
  void SetHealth(absl::Status health);

  absl::Status Health() const override;
  std::shared_ptr<const kube::PodGroup> Get(std::string_view ns,
                                            std::string_view name) const override;
  std::vector<std::shared_ptr<const kube::Pod>> Pods(std::string_view ns,
                                                     std::string_view name) const override;

 private:
  void RemovePodLocked(const std::string& pod_key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  absl::Status health_ ABSL_GUARDED_BY(mu_) =
      absl::FailedPreconditionError("PodGroups not synced yet");
  // "ns/name" -> group.
  std::map<std::string, std::shared_ptr<const kube::PodGroup>, std::less<>> groups_
      ABSL_GUARDED_BY(mu_);
  // "ns/group" -> pod name -> pod; and pod "ns/name" -> its "ns/group".
  std::map<std::string, std::map<std::string, std::shared_ptr<const kube::Pod>>, std::less<>>
      members_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string, std::less<>> group_of_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched
