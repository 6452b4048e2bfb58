#include "scheduler/runtime/waiting_pods.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kube/api/object_meta.h"

namespace trimaran::sched {

WaitingPod::WaitingPod(std::shared_ptr<const kube::Pod> pod, std::string node_name,
                       std::vector<PendingPlugin> plugins, const Clock& clock)
    : pod_(std::move(pod)), node_name_(std::move(node_name)), clock_(clock) {
  const absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  pending_.reserve(plugins.size());
  for (PendingPlugin& p : plugins) {
    pending_.push_back(Pending{std::move(p.name), p.timeout, now + p.timeout});
  }
}

std::vector<std::string> WaitingPod::GetPendingPlugins() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  names.reserve(pending_.size());
  for (const Pending& p : pending_) names.push_back(p.name);
  return names;
}

void WaitingPod::ResolveLocked(Status status) {
  resolved_ = true;
  result_ = std::move(status);
}

void WaitingPod::Allow(absl::string_view plugin) {
  absl::MutexLock lock(&mu_);
  if (resolved_) return;
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(),
                                [&](const Pending& p) { return p.name == plugin; }),
                 pending_.end());
  if (pending_.empty()) ResolveLocked(Status());
}

void WaitingPod::Reject(absl::string_view plugin, absl::string_view message) {
  absl::MutexLock lock(&mu_);
  if (resolved_) return;
  ResolveLocked(Status::Unschedulable(message).WithPlugin(plugin));
}

std::optional<Status> WaitingPod::Result() const {
  absl::MutexLock lock(&mu_);
  if (!resolved_) return std::nullopt;
  return result_;
}

Status WaitingPod::Wait() {
  absl::MutexLock lock(&mu_);
  while (!resolved_) {
    // The earliest deadline decides; a plugin that allowed meanwhile no longer counts.
    const auto earliest = std::min_element(
        pending_.begin(), pending_.end(),
        [](const Pending& a, const Pending& b) { return a.deadline < b.deadline; });
    if (earliest == pending_.end()) {  // unreachable: empty pending means resolved
      ResolveLocked(Status());
      break;
    }
    const absl::Time deadline = earliest->deadline;
    if (clock_.AwaitWithDeadline(mu_, &resolved_, deadline) && !resolved_) {
      // Re-find: pending_ may have changed while the lock was released.
      for (const Pending& p : pending_) {
        if (p.deadline <= clock_.Now()) {
          ResolveLocked(Status::Unschedulable(absl::StrCat("rejected due to timeout after waiting ",
                                                           absl::FormatDuration(p.timeout),
                                                           " at plugin ", p.name))
                            .WithPlugin(p.name));
          break;
        }
      }
    }
  }
  return result_;
}

std::string WaitingPods::Key(const kube::Pod& pod) {
  if (!pod.metadata.uid.empty()) return pod.metadata.uid;
  return kube::NamespacedName(pod.metadata);
}

void WaitingPods::Add(std::shared_ptr<WaitingPod> pod) {
  std::string key = Key(pod->pod());
  absl::MutexLock lock(&mu_);
  pods_.insert_or_assign(std::move(key), std::move(pod));
}

void WaitingPods::Remove(const kube::Pod& pod) {
  const std::string key = Key(pod);
  absl::MutexLock lock(&mu_);
  pods_.erase(key);
}

std::shared_ptr<WaitingPod> WaitingPods::Get(const kube::Pod& pod) const {
  return GetByKey(Key(pod));
}

std::shared_ptr<WaitingPod> WaitingPods::GetByKey(absl::string_view key) const {
  absl::MutexLock lock(&mu_);
  const auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : it->second;
}

void WaitingPods::ForEach(absl::FunctionRef<void(WaitingPod&)> fn) const {
  std::vector<std::shared_ptr<WaitingPod>> copy;
  {
    absl::MutexLock lock(&mu_);
    copy.reserve(pods_.size());
    for (const auto& [key, pod] : pods_) copy.push_back(pod);
  }
  for (const auto& pod : copy) fn(*pod);
}

size_t WaitingPods::size() const {
  absl::MutexLock lock(&mu_);
  return pods_.size();
}

}  // namespace trimaran::sched
