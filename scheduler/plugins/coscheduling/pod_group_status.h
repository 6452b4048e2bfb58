#pragma once
// PodGroup status: what upstream's PodGroup controller (scheduler-plugins
// pkg/controllers/podgroup_controller.go) computes from a group's member pods, and the
// writer that patches it through the API (merge PATCH of podgroups/<name>/status),
// which the daemon runs when a profile enables Coscheduling (cmd/scheduler/app.cc).
//
//   ""          -> Pending
//   Pending     -> Scheduling once minMember pods exist (scheduleStartTime, occupiedBy)
//   otherwise   running/succeeded/failed/scheduled recounted; fewer than minMember
//               pods -> Pending; scheduled >= minMember -> Scheduled (Trimaran's
//               addition; upstream's plugin never sets it); running+succeeded >=
//               minMember -> Running; a failure that leaves the gang unable to reach
//               minMember -> Failed; succeeded >= minMember -> Finished.
//
// The writes act as the leader: each carries the writer's CallOptionsSource (the daemon
// gives it the leadership fence, as the scheduler's Binding), so no status is written
// once the lease may have passed to another replica.
//
// Thread-safety: ComputePodGroupStatus is pure. PodGroupStatusWriter: MarkDirty is safe
// from any thread; SyncDirty/Run from one thread at a time; the CallOptionsSource is
// called on the SyncDirty thread.

#include <functional>
#include <memory>
#include <set>
#include <span>
#include <stop_token>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kube/api/pod.h"
#include "kube/api/pod_group.h"
#include "kube/client.h"
#include "scheduler/framework/pod_group_lister.h"

namespace trimaran::sched::plugins {

kube::PodGroupStatus ComputePodGroupStatus(const kube::PodGroup& pg,
                                           std::span<const std::shared_ptr<const kube::Pod>> pods,
                                           absl::Time now);

class PodGroupStatusWriter {
 public:
  // The options each status write carries; under leader election, the leader's fence
  // (the lease's stop and LeadingUntil() deadline, as the scheduler's Binding).
  using CallOptionsSource = std::function<kube::CallOptions()>;

  // `call_options` null: unbounded writes (a single replica).
  PodGroupStatusWriter(const PodGroupLister& lister, kube::Client& client, const Clock& clock,
                       CallOptionsSource call_options = nullptr)
      : lister_(lister), client_(client), clock_(clock), call_options_(std::move(call_options)) {}

  // The group (or the group of a member pod) needs a look.
  void MarkDirty(std::string ns, std::string name);
  // Recomputes every dirty group and patches those whose status changed. A failed patch
  // keeps the group dirty (logged); a group that no longer exists is dropped. Once the
  // call options no longer allow a call (the lease is lost), nothing more is written and
  // the remaining groups stay dirty. Returns the number of patches that succeeded.
  int SyncDirty();
  // SyncDirty every `period` until `stop`.
  void Run(std::stop_token stop, absl::Duration period);

 private:
  const PodGroupLister& lister_;
  kube::Client& client_;
  const Clock& clock_;
  const CallOptionsSource call_options_;
  absl::Mutex mu_;
  std::set<std::pair<std::string, std::string>> dirty_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched::plugins
