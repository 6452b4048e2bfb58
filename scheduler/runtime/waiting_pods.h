#pragma once
// WaitingPod / WaitingPods: pods a Permit plugin asked to hold (Status kWait), upstream's
// waitingPod and waitingPodsMap (framework/runtime/waiting_pods_map.go).
//
// A WaitingPod is created by Framework::RunPermitPlugins with one pending entry per
// plugin that returned kWait, each with its timeout (capped at kMaxPermitTimeout). It is
// resolved exactly once:
//   - allowed, when every pending plugin called Allow (its binding cycle proceeds);
//   - rejected, by the first Reject(plugin, message) or when the earliest plugin timeout
//     passes ("rejected due to timeout after waiting 10s at plugin X").
// Framework::WaitOnPermit blocks the binding cycle on Wait() and then removes the pod
// from the WaitingPods map.
//
// Time comes from the Clock given at creation (FakeClock in tests: advancing it past the
// deadline rejects a waiting pod without any real sleep).
//
// Thread-safety: both classes are safe for concurrent use (Allow/Reject come from other
// threads: plugins, event handlers, the scheduler's preemption).
//
// Ownership: WaitingPods shares its entries (shared_ptr) with callers of Get/ForEach, so
// a plugin may keep one beyond its removal from the map (Allow/Reject are then no-ops).

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kube/api/pod.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/waiting_pod.h"

namespace trimaran::sched {

class WaitingPod final : public WaitingPodHandle {
 public:
  struct PendingPlugin {
    std::string name;
    absl::Duration timeout;
  };

  // `plugins` is non-empty; deadlines are clock.Now() + each timeout.
  WaitingPod(std::shared_ptr<const kube::Pod> pod, std::string node_name,
             std::vector<PendingPlugin> plugins, const Clock& clock);
  WaitingPod(const WaitingPod&) = delete;
  WaitingPod& operator=(const WaitingPod&) = delete;

  const kube::Pod& pod() const override { return *pod_; }
  const std::string& node_name() const { return node_name_; }
  // Names of the plugins that have not allowed the pod yet.
  std::vector<std::string> GetPendingPlugins() const;

  // `plugin` allows the pod; once no plugin is pending, the pod is allowed. A no-op
  // after resolution or for a plugin that is not pending.
  void Allow(absl::string_view plugin) override;
  // Rejects the pod (kUnschedulable with `message`, attributed to `plugin`). A no-op
  // after resolution.
  void Reject(absl::string_view plugin, absl::string_view message) override;

  // The outcome once resolved (Success or the rejection); nullopt while waiting.
  std::optional<Status> Result() const;

  // Blocks until the pod is resolved or the earliest plugin deadline passes (which
  // rejects it). Returns Success when allowed, else the rejection.
  Status Wait();

 private:
  void ResolveLocked(Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::shared_ptr<const kube::Pod> pod_;
  const std::string node_name_;
  const Clock& clock_;
  mutable absl::Mutex mu_;
  struct Pending {
    std::string name;
    absl::Duration timeout;
    absl::Time deadline;
  };
  std::vector<Pending> pending_ ABSL_GUARDED_BY(mu_);
  bool resolved_ ABSL_GUARDED_BY(mu_) = false;
  Status result_ ABSL_GUARDED_BY(mu_);
};

// The waiting pods of one profile, keyed by pod UID (namespace/name when the UID is
// empty, as in tests).
class WaitingPods {
 public:
  // Replaces any entry for the same pod.
  void Add(std::shared_ptr<WaitingPod> pod);
  void Remove(const kube::Pod& pod);
  // nullptr when `pod` is not waiting.
  std::shared_ptr<WaitingPod> Get(const kube::Pod& pod) const;
  std::shared_ptr<WaitingPod> GetByKey(absl::string_view key) const;
  // Calls fn on a copy of the current entries, outside the lock (fn may Allow/Reject).
  void ForEach(absl::FunctionRef<void(WaitingPod&)> fn) const;
  size_t size() const;

  // The map key of `pod`.
  static std::string Key(const kube::Pod& pod);

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<WaitingPod>> pods_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched
