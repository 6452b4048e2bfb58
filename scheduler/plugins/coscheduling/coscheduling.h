#pragma once
// Coscheduling: gang scheduling with the PodGroup CRD, as kubernetes-sigs/scheduler-plugins'
// plugin of that name (docs/plugins.md "Coscheduling"). Pods join a group with the label
// `scheduling.x-k8s.io/pod-group: <name>`; the group (kube/api/pod_group.h) says how many
// must be placed together (minMember), optionally how much they need (minResources) and
// how long members may wait (scheduleTimeoutSeconds).
//
//   QueueSort  priority, then the group's creation time (or the time its last attempt
//              failed; a pod without a group: its first attempt), then the group's
//              "ns/name", then the pod's: a group's members leave the queue together.
//              Must be the profile's only QueueSort plugin.
//   PreFilter  UnschedulableAndUnresolvable when PodGroups cannot be read, the group does
//              not exist, was rejected less than podGroupBackoffSeconds ago, has fewer
//              than minMember pods (or gated ones), or its minResources (with
//              pods = minMember) exceed the free capacity of all nodes together.
//   PostFilter a member fits no node: unless minMember is already assigned or the gap is
//              at most podGroupRejectPercentage of minMember, reject the group's waiting
//              pods (their reservations are released), back the group off, mark it
//              failed for QueueSort. Nothing when this plugin's own PreFilter turned
//              the pod away (the group was not tried; re-backing it off would starve it).
//   Reserve    nothing. Unreserve: a member's reservation was undone (Permit timeout,
//              rejection, bind failure): reject every waiting member of the group
//              (not while the scheduler stops: it drops every waiting pod itself).
//   Permit     count the group's assigned members (bound per the PodGroupLister, or
//              assumed and past Permit); at minMember allow every waiting member and
//              this pod, else wait. All members of one gang share one deadline (the
//              first member's wait start + scheduleTimeoutSeconds or
//              permitWaitingTimeSeconds); quorum reached within kQuorumMargin of that
//              deadline is refused (all are rejected) so that a member timing out at
//              the deadline can never leave the rest of the gang allowed (issue #930).
//
// Thread-safety: Less and the scheduling-cycle points run on the scheduling thread (Less
// also under the queue's lock); Permit/Unreserve run on binding threads. State shared
// between them is guarded by mu_. Waiting pods are allowed or rejected after mu_ is
// released; nothing is called under mu_ but the PodGroupLister (its own lock) and the
// clock.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/plugin_descriptor.h"
#include "scheduler/plugins/coscheduling/args.h"

namespace trimaran::sched::plugins {

class Coscheduling final : public QueueSortPlugin,
                           public PreFilterPlugin,
                           public PostFilterPlugin,
                           public ReservePlugin,
                           public PermitPlugin,
                           public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "Coscheduling";
  // See the header comment.
  static constexpr absl::Duration kQuorumMargin = absl::Seconds(1);

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  static PluginDescriptor Descriptor();

  Coscheduling(const CoschedulingArgs& args, Handle& handle);

  absl::string_view Name() const override { return kName; }

  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override;
  Status PreFilter(CycleState& state, const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                   PreFilterResult& result) override;
  Status PostFilter(CycleState& state, const kube::Pod& pod,
                    const NodeToStatus& filtered_node_status, PostFilterResult& result) override;
  Status Reserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) override;
  void Unreserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) override;
  Status Permit(CycleState& state, const kube::Pod& pod, absl::string_view node_name,
                absl::Duration& timeout) override;
  std::vector<ClusterEvent> EventsToRegister() const override;

  const CoschedulingArgs& args() const { return args_; }
  // Members of `group_full_name` counted as assigned (bound, or assumed past Permit).
  int AssignedCount(const std::string& ns, const std::string& group) const;

 private:
  struct GroupState {
    // Pod names assumed and accepted by Permit (waiting or allowed), until Unreserve.
    std::set<std::string> assumed;
    // The gang's Permit deadline while members wait.
    std::optional<absl::Time> deadline;
    // Until when the group is refused at PreFilter (podGroupBackoffSeconds).
    std::optional<absl::Time> backoff_until;
    // minResources passed until this time (upstream's permittedPG cache).
    std::optional<absl::Time> permitted_until;
    // When the group last failed (QueueSort uses it instead of its creation time).
    std::optional<absl::Time> last_failed;
  };

  // How long a member of `pg` may wait at Permit.
  absl::Duration WaitTime(const kube::PodGroup& pg) const;
  int AssignedCountLocked(const std::string& ns, const std::string& group,
                          const GroupState* gs) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The time QueueSort orders `pod` by.
  absl::Time OrderTime(const QueuedPodInfo& info) const;
  // Rejects every waiting member of ns/group (outside mu_) and records one event on
  // `trigger`. Returns how many were rejected.
  int RejectWaiting(const kube::Pod& trigger, const std::string& ns, const std::string& group,
                    absl::string_view message);

  const CoschedulingArgs args_;
  Handle& handle_;
  mutable absl::Mutex mu_;
  std::map<std::string, GroupState, std::less<>> groups_ ABSL_GUARDED_BY(mu_);
  // Pods this plugin rejected while they waited: their own Unreserve must not reject the
  // group again (one rejection round, one event).
  std::set<std::string> rejected_by_us_ ABSL_GUARDED_BY(mu_);
};

// The resources `pg`'s minResources (pods = minMember) still lack after taking the free
// capacity of `nodes` (allocatable - requested, pods of `group_full_name` not counted as
// requesting), node after node; empty when they fit. Upstream's CheckClusterResource.
kube::Resource ResourceGap(const kube::PodGroup& pg, const std::string& group_full_name,
                           std::span<const NodeInfo* const> nodes);

}  // namespace trimaran::sched::plugins
