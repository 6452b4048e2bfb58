#pragma once
// AssumeCache: VolumeBinding's view of PersistentVolumes and PersistentVolumeClaims with
// its own not-yet-written changes on top (spec kube-scheduler-constraints.md §4.6;
// upstream's assumecache).
//
// The informer objects come from the Handle's StorageLister; Assume(obj) lays an
// assumed copy over the object of the same key. Reads return the assumed copy until the
// informer holds a version strictly newer than it (the API caught up: the overlay is
// dropped), or until Restore(key) drops it. Assume requires the object's
// resourceVersion to be at least the informer's (else Aborted: the object changed
// since it was read). resourceVersions compare as integers (etcd revisions); one that
// is not a number compares as 0.
//
// Thread-safety: safe for concurrent use (Reserve/Unreserve on the scheduling thread,
// PreBind on binding threads, Filter on worker threads).

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "kube/api/storage.h"
#include "scheduler/framework/handle.h"

namespace trimaran::sched::plugins {

// The integer value of a resourceVersion (0 when not a number).
int64_t ResourceVersionOf(const kube::ObjectMeta& meta);

class AssumeCache {
 public:
  explicit AssumeCache(const StorageLister& lister) : lister_(lister) {}

  // The claim `ns`/`name`, assumed copy first; nullptr when neither exists.
  std::shared_ptr<const kube::PersistentVolumeClaim> GetClaim(std::string_view ns,
                                                              std::string_view name) const;
  // The informer's claim (the API object), ignoring assumptions.
  std::shared_ptr<const kube::PersistentVolumeClaim> GetApiClaim(std::string_view ns,
                                                                 std::string_view name) const;
  std::shared_ptr<const kube::PersistentVolume> GetVolume(std::string_view name) const;
  std::shared_ptr<const kube::PersistentVolume> GetApiVolume(std::string_view name) const;
  // Every PV of storage class `class_name` (kube::VolumeClass), assumed copies first,
  // in name order.
  std::vector<std::shared_ptr<const kube::PersistentVolume>> VolumesOfClass(
      std::string_view class_name) const;

  absl::Status AssumeClaim(kube::PersistentVolumeClaim claim);
  absl::Status AssumeVolume(kube::PersistentVolume pv);
  void RestoreClaim(std::string_view ns, std::string_view name);
  void RestoreVolume(std::string_view name);

 private:
  const StorageLister& lister_;
  mutable absl::Mutex mu_;
  // "ns/name" and "name". Stale entries are dropped by the reads that find them stale.
  mutable std::map<std::string, std::shared_ptr<const kube::PersistentVolumeClaim>, std::less<>>
      claims_ ABSL_GUARDED_BY(mu_);
  mutable std::map<std::string, std::shared_ptr<const kube::PersistentVolume>, std::less<>> volumes_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched::plugins
