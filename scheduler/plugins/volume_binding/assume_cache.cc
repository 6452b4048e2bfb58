#include "scheduler/plugins/volume_binding/assume_cache.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace trimaran::sched::plugins {
namespace {

absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string ClaimKey(std::string_view ns, std::string_view name) {
  return absl::StrCat(Absl(ns), "/", Absl(name));
}

// The assumed `overlay` unless `api` is strictly newer (then the overlay is stale).
template <typename T, typename Map>
std::shared_ptr<const T> Pick(std::shared_ptr<const T> api, Map& overlays, std::string_view key) {
  auto it = overlays.find(key);
  if (it == overlays.end()) return api;
  if (api != nullptr &&
      ResourceVersionOf(api->metadata) > ResourceVersionOf(it->second->metadata)) {
    overlays.erase(it);
    return api;
  }
  return it->second;
}

}  // namespace

int64_t ResourceVersionOf(const kube::ObjectMeta& meta) {
  int64_t rv = 0;
  if (!absl::SimpleAtoi(meta.resource_version, &rv)) return 0;
  return rv;
}

std::shared_ptr<const kube::PersistentVolumeClaim> AssumeCache::GetClaim(
    std::string_view ns, std::string_view name) const {
  auto api = lister_.GetPersistentVolumeClaim(ns, name);
  absl::MutexLock lock(&mu_);
  return Pick(std::move(api), claims_, ClaimKey(ns, name));
}

std::shared_ptr<const kube::PersistentVolumeClaim> AssumeCache::GetApiClaim(
    std::string_view ns, std::string_view name) const {
  return lister_.GetPersistentVolumeClaim(ns, name);
}

std::shared_ptr<const kube::PersistentVolume> AssumeCache::GetVolume(std::string_view name) const {
  auto api = lister_.GetPersistentVolume(name);
  absl::MutexLock lock(&mu_);
  return Pick(std::move(api), volumes_, name);
}

std::shared_ptr<const kube::PersistentVolume> AssumeCache::GetApiVolume(
    std::string_view name) const {
  return lister_.GetPersistentVolume(name);
}

std::vector<std::shared_ptr<const kube::PersistentVolume>> AssumeCache::VolumesOfClass(
    std::string_view class_name) const {
  std::vector<std::shared_ptr<const kube::PersistentVolume>> out;
  std::vector<std::shared_ptr<const kube::PersistentVolume>> all = lister_.ListPersistentVolumes();
  absl::MutexLock lock(&mu_);
  for (auto& pv : all) {
    const std::string name = pv->metadata.name;
    std::shared_ptr<const kube::PersistentVolume> picked = Pick(std::move(pv), volumes_, name);
    if (kube::VolumeClass(*picked) == class_name) out.push_back(std::move(picked));
  }
  return out;
}

absl::Status AssumeCache::AssumeClaim(kube::PersistentVolumeClaim claim) {
  const std::string key = ClaimKey(claim.metadata.namespace_name, claim.metadata.name);
  auto current = GetClaim(claim.metadata.namespace_name, claim.metadata.name);
  if (current == nullptr) {
    return absl::NotFoundError(absl::StrCat("persistentvolumeclaim \"", key, "\" not found"));
  }
  if (ResourceVersionOf(claim.metadata) < ResourceVersionOf(current->metadata)) {
    return absl::AbortedError(
        absl::StrCat("persistentvolumeclaim \"", key, "\" changed: resourceVersion ",
                     claim.metadata.resource_version, " < ", current->metadata.resource_version));
  }
  absl::MutexLock lock(&mu_);
  claims_[key] = std::make_shared<const kube::PersistentVolumeClaim>(std::move(claim));
  return absl::OkStatus();
}

absl::Status AssumeCache::AssumeVolume(kube::PersistentVolume pv) {
  const std::string key = pv.metadata.name;
  auto current = GetVolume(key);
  if (current == nullptr) {
    return absl::NotFoundError(absl::StrCat("persistentvolume \"", key, "\" not found"));
  }
  if (ResourceVersionOf(pv.metadata) < ResourceVersionOf(current->metadata)) {
    return absl::AbortedError(
        absl::StrCat("persistentvolume \"", key, "\" changed: resourceVersion ",
                     pv.metadata.resource_version, " < ", current->metadata.resource_version));
  }
  absl::MutexLock lock(&mu_);
  volumes_[key] = std::make_shared<const kube::PersistentVolume>(std::move(pv));
  return absl::OkStatus();
}

void AssumeCache::RestoreClaim(std::string_view ns, std::string_view name) {
  absl::MutexLock lock(&mu_);
  if (auto it = claims_.find(ClaimKey(ns, name)); it != claims_.end()) claims_.erase(it);
}

void AssumeCache::RestoreVolume(std::string_view name) {
  absl::MutexLock lock(&mu_);
  if (auto it = volumes_.find(name); it != volumes_.end()) volumes_.erase(it);
}

}  // namespace trimaran::sched::plugins
