#pragma once
// LeaderElector: leader election on a coordination.k8s.io/v1 Lease, with
// kube-scheduler's (client-go's) algorithm and defaults.
//
//   candidate ──(lease absent, released, or not renewed for leaseDuration as *observed
//               locally*)──> acquire: holderIdentity=me, acquireTime=renewTime=now,
//               leaseTransitions+1 when the holder changes ──> leading
//   leading ──(renew every retryPeriod)──> leading
//   leading ──(no successful renew for renewDeadline, or Stop)──> stopped leading
//
// Fencing: while leading, the elector holds the lease "until" the start of its last
// successful acquire/renew + renewDeadline (LeadingUntil()). Every renew attempt runs
// with that instant as its deadline (a hung GET/PUT is cancelled then, as client-go's
// context does; a Retry-After that would end later is not waited for), and leadership is
// lost at that instant at the latest. Work done on the leader's behalf (binds) checks
// LeadingUntil() before each API call and uses it as the call's deadline, with the
// on_started_leading stop_token as the call's stop: nothing is sent for us once the
// lease may have passed to another replica.
//
// - The other holder's renewTime is never compared with our clock: like client-go we
//   record when *we* last saw the lease record change, and consider it expired when it
//   has not changed for leaseDuration (clock skew between replicas does not matter).
// - Updates carry metadata.resourceVersion, so two candidates racing for an expired
//   lease cannot both win: the loser gets a 409 (Aborted) and stays a candidate.
// - on_started_leading runs on its own thread with a stop_token that is triggered the
//   moment leadership is lost (LeadingUntil() is already past then), or on Stop;
//   on_stopped_leading runs after on_started_leading returned (and after the release).
//   A replica that lost the lease must stop at once: kube-scheduler exits; trimaran's
//   daemon reacts to the token (a std::stop_callback) without waiting for the return.
// - With release_on_cancel, Stop() while leading writes holderIdentity "" so another
//   replica takes over without waiting out the lease.
// Defaults: leaseDuration 15 s, renewDeadline 10 s, retryPeriod 2 s.
//
// Thread-safety: Run() on one thread; IsLeader(), LeadingUntil(), LeaderIdentity() and
// LastRenew() from any thread.

#include <atomic>
#include <functional>
#include <stop_token>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kube/api/lease.h"
#include "kube/client.h"

namespace trimaran::kube {

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name = "kube-scheduler";
  std::string identity;  // unique per replica: "<hostname>_<uuid>"
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);
  bool release_on_cancel = true;

  std::function<void(std::stop_token)> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(const std::string& identity)> on_new_leader;
};

// InvalidArgument naming the bad field (leaseDuration > renewDeadline > retryPeriod*1.2,
// identity and names non-empty), as client-go validates.
absl::Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config);

// "<hostname>_<random hex>": the identity kube-scheduler uses.
std::string DefaultLeaderIdentity();

class LeaderElector {
 public:
  LeaderElector(Client& client, const Clock& clock, LeaderElectionConfig config);

  // Campaigns, leads, and returns when leadership is lost or `stop` is requested.
  // Callers that want to campaign again call Run again (kube-scheduler exits instead).
  void Run(std::stop_token stop);

  bool IsLeader() const { return leading_.load(std::memory_order_acquire); }
  // While leading: the start of the last successful acquire/renew + renewDeadline, past
  // which another replica may hold the lease. absl::InfinitePast() once leadership is
  // lost (and after a Stop, once the lease is released); before the first acquire too.
  absl::Time LeadingUntil() const;
  std::string LeaderIdentity() const;
  // Time of the last successful acquire or renew (for the healthz watchdog).
  absl::Time LastRenew() const;

 private:
  // One attempt, its API calls bounded by `deadline` and `stop`; true if we hold the
  // lease afterwards.
  bool TryAcquireOrRenew(absl::Time deadline, std::stop_token stop);
  void Release();

  Client& client_;
  const Clock& clock_;
  const LeaderElectionConfig config_;
  std::atomic<bool> leading_{false};
  mutable absl::Mutex mu_;
  // The record as last seen, and when we saw it change (local clock).
  std::optional<Lease> observed_ ABSL_GUARDED_BY(mu_);
  absl::Time observed_time_ ABSL_GUARDED_BY(mu_);
  std::string leader_ ABSL_GUARDED_BY(mu_);
  absl::Time last_renew_ ABSL_GUARDED_BY(mu_);
  // When the current (other) holder's lease expires by our observation.
  absl::Time held_until_ ABSL_GUARDED_BY(mu_);
  // See LeadingUntil().
  absl::Time leading_until_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace trimaran::kube
