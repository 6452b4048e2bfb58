#include "kube/leader_elector.h"

#include <unistd.h>

#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/logging.h"

namespace trimaran::kube {

absl::Status ValidateLeaderElectionConfig(const LeaderElectionConfig& c) {
  std::vector<std::string> errors;
  if (c.lease_duration <= c.renew_deadline) {
    errors.push_back("leaseDuration must be greater than renewDeadline");
  }
  if (c.renew_deadline <= c.retry_period * 1.2) {
    errors.push_back("renewDeadline must be greater than retryPeriod*1.2");
  }
  if (c.retry_period <= absl::ZeroDuration()) errors.push_back("retryPeriod must be positive");
  if (c.identity.empty()) errors.push_back("identity must not be empty");
  if (c.lease_name.empty()) errors.push_back("resourceName must not be empty");
  if (c.lease_namespace.empty()) errors.push_back("resourceNamespace must not be empty");
  if (errors.empty()) return absl::OkStatus();
  std::string msg = "invalid leader election config:";
  for (auto& e : errors) absl::StrAppend(&msg, " ", e, ";");
  msg.pop_back();
  return absl::InvalidArgumentError(msg);
}

std::string DefaultLeaderIdentity() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  std::random_device rd;
  std::mt19937_64 rng(rd());
  return absl::StrCat(host, "_", absl::Hex(rng(), absl::kZeroPad16));
}

LeaderElector::LeaderElector(Client& client, const Clock& clock, LeaderElectionConfig config)
    : client_(client), clock_(clock), config_(std::move(config)) {}

std::string LeaderElector::LeaderIdentity() const {
  absl::MutexLock lock(&mu_);
  return leader_;
}

absl::Time LeaderElector::LeadingUntil() const {
  absl::MutexLock lock(&mu_);
  return leading_until_;
}

absl::Time LeaderElector::LastRenew() const {
  absl::MutexLock lock(&mu_);
  return last_renew_;
}

bool LeaderElector::TryAcquireOrRenew(absl::Time deadline, std::stop_token stop) {
  absl::Time now = clock_.Now();
  const CallOptions call{.stop = stop, .deadline = deadline};
  absl::StatusOr<Lease> current =
      client_.GetLease(config_.lease_namespace, config_.lease_name, call);
  if (!current.ok()) {
    if (current.status().code() != absl::StatusCode::kNotFound) {
      Log(Component::kKube)
          .warn("leader election: cannot read lease lease={}/{} err=\"{}\"",
                config_.lease_namespace, config_.lease_name, current.status().message());
      return false;
    }
    Lease lease;
    lease.metadata.namespace_name = config_.lease_namespace;
    lease.metadata.name = config_.lease_name;
    lease.spec.holder_identity = config_.identity;
    lease.spec.lease_duration_seconds =
        static_cast<int32_t>(absl::ToInt64Seconds(config_.lease_duration));
    lease.spec.acquire_time = now;
    lease.spec.renew_time = now;
    absl::StatusOr<Lease> created = client_.CreateLease(lease, call);
    if (!created.ok()) return false;
    absl::MutexLock lock(&mu_);
    observed_ = *created;
    observed_time_ = now;
    last_renew_ = now;
    leading_until_ = now + config_.renew_deadline;
    return true;
  }

  {
    absl::MutexLock lock(&mu_);
    // Track when the record last changed, by our own clock.
    if (!observed_ || observed_->spec != current->spec) {
      observed_ = *current;
      observed_time_ = now;
    }
    const std::string& holder = current->spec.holder_identity;
    if (holder != leader_) {
      leader_ = holder;
      if (config_.on_new_leader && !holder.empty()) config_.on_new_leader(holder);
    }
    absl::Duration duration = current->spec.lease_duration_seconds > 0
                                  ? absl::Seconds(current->spec.lease_duration_seconds)
                                  : config_.lease_duration;
    if (!holder.empty() && holder != config_.identity && observed_time_ + duration > now) {
      held_until_ = observed_time_ + duration;
      return false;  // held by someone else and not expired
    }
  }

  Lease update = *current;
  if (update.spec.holder_identity != config_.identity) {
    update.spec.lease_transitions = current->spec.lease_transitions + 1;
    update.spec.acquire_time = now;
  }
  update.spec.holder_identity = config_.identity;
  update.spec.lease_duration_seconds =
      static_cast<int32_t>(absl::ToInt64Seconds(config_.lease_duration));
  update.spec.renew_time = now;
  absl::StatusOr<Lease> updated = client_.UpdateLease(update, call);
  if (!updated.ok()) {
    if (updated.status().code() != absl::StatusCode::kAborted) {
      Log(Component::kKube)
          .warn("leader election: cannot update lease lease={}/{} err=\"{}\"",
                config_.lease_namespace, config_.lease_name, updated.status().message());
    }
    return false;
  }
  absl::MutexLock lock(&mu_);
  observed_ = *updated;
  observed_time_ = now;
  last_renew_ = now;
  leading_until_ = now + config_.renew_deadline;
  if (leader_ != config_.identity) {
    leader_ = config_.identity;
    if (config_.on_new_leader) config_.on_new_leader(leader_);
  }
  return true;
}

void LeaderElector::Release() {
  const CallOptions call{.deadline = clock_.Now() + config_.renew_deadline};
  absl::StatusOr<Lease> current =
      client_.GetLease(config_.lease_namespace, config_.lease_name, call);
  if (!current.ok() || current->spec.holder_identity != config_.identity) return;
  Lease release = *current;
  release.spec.holder_identity = "";
  release.spec.lease_duration_seconds = 1;
  release.spec.renew_time = clock_.Now();
  absl::Status s = client_.UpdateLease(release, call).status();
  if (!s.ok()) {
    Log(Component::kKube).warn("leader election: release failed err=\"{}\"", s.message());
  } else {
    Log(Component::kKube)
        .info("leader election: released lease lease={}/{}", config_.lease_namespace,
              config_.lease_name);
  }
}

void LeaderElector::Run(std::stop_token stop) {
  std::mt19937_64 rng(std::random_device{}());
  // client-go waits retryPeriod * [1, 2.2) between attempts; a smaller jitter plus an
  // attempt right at the observed expiry keeps a takeover within about
  // leaseDuration + retryPeriod of the old leader's last renewal.
  std::uniform_real_distribution<double> jitter(0.0, 0.1);
  // Campaign.
  Log(Component::kKube)
      .info("leader election: attempting to acquire lease lease={}/{} identity={}",
            config_.lease_namespace, config_.lease_name, config_.identity);
  while (!TryAcquireOrRenew(clock_.Now() + config_.renew_deadline, stop)) {
    absl::Duration wait = config_.retry_period * (1.0 + jitter(rng));
    absl::Time until;
    {
      absl::MutexLock lock(&mu_);
      until = held_until_;
    }
    absl::Duration to_expiry = until - clock_.Now();
    if (to_expiry > absl::ZeroDuration() && to_expiry < wait) {
      wait = to_expiry + absl::Milliseconds(1);
    }
    if (!clock_.SleepFor(wait, stop)) return;
  }
  Log(Component::kKube)
      .info("leader election: acquired lease lease={}/{} identity={}", config_.lease_namespace,
            config_.lease_name, config_.identity);
  leading_.store(true, std::memory_order_release);
  std::stop_source leading_stop;
  std::jthread leader_thread;
  if (config_.on_started_leading) {
    leader_thread = std::jthread(
        [this, token = leading_stop.get_token()] { config_.on_started_leading(token); });
  }
  // Renew until we cannot for renewDeadline, or until asked to stop. Each attempt ends
  // by LeadingUntil(); the loss is declared at that instant at the latest.
  bool lost = false;
  while (!stop.stop_requested()) {
    const absl::Time until = LeadingUntil();
    if (!clock_.SleepUntil(std::min(clock_.Now() + config_.retry_period, until), stop)) break;
    if (clock_.Now() >= until) {
      lost = true;
      break;
    }
    if (TryAcquireOrRenew(until, stop)) continue;
    if (stop.stop_requested()) break;
    if (clock_.Now() >= until) {
      lost = true;
      break;
    }
  }
  leading_.store(false, std::memory_order_release);
  if (lost) {
    // Fenced at once: nothing more is sent on the leader's behalf.
    {
      absl::MutexLock lock(&mu_);
      leading_until_ = absl::InfinitePast();
    }
    leading_stop.request_stop();
    if (leader_thread.joinable()) leader_thread.join();
    Log(Component::kKube)
        .error("leader election: lost lease lease={}/{} identity={}", config_.lease_namespace,
               config_.lease_name, config_.identity);
  } else {
    // Stop: the leader's work winds down (binds finish) while the lease is still ours.
    leading_stop.request_stop();
    if (leader_thread.joinable()) leader_thread.join();
    if (config_.release_on_cancel) Release();
    absl::MutexLock lock(&mu_);
    leading_until_ = absl::InfinitePast();
  }
  if (config_.on_stopped_leading) config_.on_stopped_leading();
}

}  // namespace trimaran::kube
