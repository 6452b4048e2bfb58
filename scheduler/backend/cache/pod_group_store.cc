#include "scheduler/backend/cache/pod_group_store.h"

#include "absl/strings/str_cat.h"

namespace trimaran::sched {
namespace {

std::string Key(std::string_view ns, std::string_view name) {
  return absl::StrCat(absl::string_view(ns.data(), ns.size()), "/",
                      absl::string_view(name.data(), name.size()));
}

}  // namespace

void PodGroupStore::Apply(std::shared_ptr<const kube::PodGroup> group) {
  std::string key = Key(group->metadata.namespace_name, group->metadata.name);
  absl::MutexLock lock(&mu_);
  groups_[std::move(key)] = std::move(group);
}

void PodGroupStore::Remove(const kube::PodGroup& group) {
  absl::MutexLock lock(&mu_);
  groups_.erase(Key(group.metadata.namespace_name, group.metadata.name));
}

void PodGroupStore::RemovePodLocked(const std::string& pod_key) {
  auto it = group_of_.find(pod_key);
  if (it == group_of_.end()) return;
  auto m = members_.find(it->second);
  if (m != members_.end()) {
    m->second.erase(pod_key.substr(pod_key.find('/') + 1));
    if (m->second.empty()) members_.erase(m);
  }
  group_of_.erase(it);
}

void PodGroupStore::ApplyPod(std::shared_ptr<const kube::Pod> pod) {
  const std::string pod_key = Key(pod->metadata.namespace_name, pod->metadata.name);
  const std::string group = kube::PodGroupFullNameOf(*pod);
  absl::MutexLock lock(&mu_);
  RemovePodLocked(pod_key);
  if (group.empty()) return;
  group_of_[pod_key] = group;
  std::string name = pod->metadata.name;
  members_[group][std::move(name)] = std::move(pod);
}

void PodGroupStore::RemovePod(const kube::Pod& pod) {
  absl::MutexLock lock(&mu_);
  RemovePodLocked(Key(pod.metadata.namespace_name, pod.metadata.name));
}

void PodGroupStore::SetHealth(absl::Status health) {
  absl::MutexLock lock(&mu_);
  health_ = std::move(health);
}

absl::Status PodGroupStore::Health() const {
  absl::MutexLock lock(&mu_);
  return health_;
}

std::shared_ptr<const kube::PodGroup> PodGroupStore::Get(std::string_view ns,
                                                         std::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = groups_.find(Key(ns, name));
  return it == groups_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const kube::Pod>> PodGroupStore::Pods(std::string_view ns,
                                                                  std::string_view name) const {
  std::vector<std::shared_ptr<const kube::Pod>> out;
  absl::MutexLock lock(&mu_);
  auto it = members_.find(Key(ns, name));
  if (it == members_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [unused, pod] : it->second) out.push_back(pod);
  return out;
}

}  // namespace trimaran::sched
