#pragma once
// UnschedulablePods: the pool of pods that cannot be scheduled now and wait for a
// cluster event that may help them (upstream's UnschedulablePods). It also holds the
// *gated* pods: pods a PreEnqueue plugin kept out of activeQ (QueuedPodInfo::
// gating_plugin non-empty); they were never attempted.
//
// Invariant: gated_size() is the number of entries with a non-empty gating_plugin.
//
// Thread-safety: none; the owning queue serializes access under its mutex.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/types.h"

namespace trimaran::sched {

class UnschedulablePods {
 public:
  // Inserts or replaces the entry under `key`.
  void AddOrUpdate(std::string key, QueuedPodInfo pod);
  // Removes and returns the entry under `key`; nullopt when absent.
  std::optional<QueuedPodInfo> Delete(absl::string_view key);
  // The entry under `key`, or nullptr. Valid until the next mutation.
  const QueuedPodInfo* Get(absl::string_view key) const;
  bool Contains(absl::string_view key) const { return pods_.contains(key); }

  // All entries, gated or not.
  size_t size() const { return pods_.size(); }
  size_t gated_size() const { return gated_; }

  // The keys of the entries for which pred returns true (a copy, so the caller may
  // then move them out).
  std::vector<std::string> KeysWhere(absl::FunctionRef<bool(const QueuedPodInfo&)> pred) const;
  void ForEach(absl::FunctionRef<void(const QueuedPodInfo&)> fn) const;

 private:
  absl::flat_hash_map<std::string, QueuedPodInfo> pods_;
  size_t gated_ = 0;
};

}  // namespace trimaran::sched
