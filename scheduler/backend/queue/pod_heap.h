#pragma once
// PodHeap: a binary heap of QueuedPodInfo with an index by pod key, so that a queued
// pod can be found, updated in place or removed in O(log n) (upstream's
// internal/heap). activeQ is a PodHeap ordered by the QueueSort plugin; backoffQ one
// ordered by backoff expiry.
//
// Keys are PodKey(pod) ("namespace/name", as upstream's MetaNamespaceKeyFunc). A key
// appears at most once; AddOrUpdate replaces the entry with the same key and restores
// the heap order.
//
// Invariants: items_[i].key indexes to i in index_; for every i > 0,
// !less(items_[i], items_[(i-1)/2]) (the top is the "least" pod, i.e. the first to
// schedule).
//
// Thread-safety: none; the owning queue serializes access under its mutex.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/types.h"

namespace trimaran::sched {

// "namespace/name": the identity of a pod in the queue.
inline std::string PodKey(const kube::Pod& pod) { return kube::NamespacedName(pod); }

// A strict weak ordering: true when `a` comes out of the heap before `b`.
using QueuedPodLess = std::function<bool(const QueuedPodInfo& a, const QueuedPodInfo& b)>;

class PodHeap {
 public:
  explicit PodHeap(QueuedPodLess less) : less_(std::move(less)) {}

  // Inserts `pod` under `key`, or replaces the entry already under `key`.
  void AddOrUpdate(std::string key, QueuedPodInfo pod);
  // Removes and returns the entry under `key`; nullopt when absent.
  std::optional<QueuedPodInfo> Delete(absl::string_view key);
  // The entry under `key`, or nullptr. Valid until the next mutation.
  const QueuedPodInfo* Get(absl::string_view key) const;
  bool Contains(absl::string_view key) const { return index_.contains(key); }

  // The first entry. Requires !empty(). Valid until the next mutation.
  const QueuedPodInfo& Peek() const { return items_.front().pod; }
  // Removes and returns the first entry. Requires !empty().
  QueuedPodInfo Pop();

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

  // Calls fn for every entry, in no particular order. fn must not mutate the heap.
  void ForEach(absl::FunctionRef<void(const QueuedPodInfo&)> fn) const;

 private:
  struct Item {
    std::string key;
    QueuedPodInfo pod;
  };

  bool Less(size_t i, size_t j) const { return less_(items_[i].pod, items_[j].pod); }
  void Swap(size_t i, size_t j);
  // Restores the heap order around position i after its item changed.
  void Fix(size_t i);
  bool Up(size_t i);
  void Down(size_t i);
  // Removes the item at position i and returns it.
  Item RemoveAt(size_t i);

  QueuedPodLess less_;
  std::vector<Item> items_;
  absl::flat_hash_map<std::string, size_t> index_;
};

}  // namespace trimaran::sched
