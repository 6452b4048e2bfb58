#include "scheduler/backend/queue/unschedulable_pods.h"

#include <utility>

namespace trimaran::sched {

void UnschedulablePods::AddOrUpdate(std::string key, QueuedPodInfo pod) {
  if (!pod.gating_plugin.empty()) ++gated_;
  auto [it, inserted] = pods_.try_emplace(std::move(key));
  if (!inserted && !it->second.gating_plugin.empty()) --gated_;
  it->second = std::move(pod);
}

std::optional<QueuedPodInfo> UnschedulablePods::Delete(absl::string_view key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return std::nullopt;
  QueuedPodInfo pod = std::move(it->second);
  pods_.erase(it);
  if (!pod.gating_plugin.empty()) --gated_;
  return pod;
}

const QueuedPodInfo* UnschedulablePods::Get(absl::string_view key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : &it->second;
}

std::vector<std::string> UnschedulablePods::KeysWhere(
    absl::FunctionRef<bool(const QueuedPodInfo&)> pred) const {
  std::vector<std::string> keys;
  for (const auto& [key, pod] : pods_) {
    if (pred(pod)) keys.push_back(key);
  }
  return keys;
}

void UnschedulablePods::ForEach(absl::FunctionRef<void(const QueuedPodInfo&)> fn) const {
  for (const auto& [key, pod] : pods_) fn(pod);
}

}  // namespace trimaran::sched
