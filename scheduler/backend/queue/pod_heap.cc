#include "scheduler/backend/queue/pod_heap.h"

#include <utility>

namespace trimaran::sched {

void PodHeap::AddOrUpdate(std::string key, QueuedPodInfo pod) {
  if (auto it = index_.find(key); it != index_.end()) {
    const size_t i = it->second;
    items_[i].pod = std::move(pod);
    Fix(i);
    return;
  }
  const size_t i = items_.size();
  index_.emplace(key, i);
  items_.push_back(Item{std::move(key), std::move(pod)});
  Up(i);
}

std::optional<QueuedPodInfo> PodHeap::Delete(absl::string_view key) {
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  return RemoveAt(it->second).pod;
}

const QueuedPodInfo* PodHeap::Get(absl::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &items_[it->second].pod;
}

QueuedPodInfo PodHeap::Pop() { return RemoveAt(0).pod; }

void PodHeap::ForEach(absl::FunctionRef<void(const QueuedPodInfo&)> fn) const {
  for (const Item& item : items_) fn(item.pod);
}

void PodHeap::Swap(size_t i, size_t j) {
  std::swap(items_[i], items_[j]);
  index_[items_[i].key] = i;
  index_[items_[j].key] = j;
}

void PodHeap::Fix(size_t i) {
  if (!Up(i)) Down(i);
}

bool PodHeap::Up(size_t i) {
  const size_t start = i;
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!Less(i, parent)) break;
    Swap(i, parent);
    i = parent;
  }
  return i != start;
}

void PodHeap::Down(size_t i) {
  const size_t n = items_.size();
  while (true) {
    const size_t left = 2 * i + 1;
    if (left >= n) break;
    size_t best = left;
    if (const size_t right = left + 1; right < n && Less(right, left)) best = right;
    if (!Less(best, i)) break;
    Swap(i, best);
    i = best;
  }
}

PodHeap::Item PodHeap::RemoveAt(size_t i) {
  const size_t last = items_.size() - 1;
  if (i != last) Swap(i, last);
  Item item = std::move(items_.back());
  items_.pop_back();
  index_.erase(item.key);
  if (i < items_.size()) Fix(i);
  return item;
}

}  // namespace trimaran::sched
