#include "scheduler/plugins/load_aware/recent_pods.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace trimaran::sched::plugins::load_aware {

std::string RecentPodTracker::Key(const kube::Pod& pod) {
  if (!pod.metadata.uid.empty()) return pod.metadata.uid;
  return kube::NamespacedName(pod);
}

void RecentPodTracker::AddToViewLocked(absl::string_view node, const PodLoad& load, int sign) {
  if (view_ == nullptr) return;
  const NodeUsage* usage = view_->Find(node);
  if (usage == nullptr) return;
  view_->MarkPending(*usage);
  PendingSums& sums = view_->pending(*usage);
  sums.milli_cpu.fetch_add(sign * load.milli_cpu, std::memory_order_relaxed);
  sums.memory.fetch_add(sign * load.memory, std::memory_order_relaxed);
}

void RecentPodTracker::EraseLocked(absl::string_view key) {
  auto it = node_of_.find(key);
  if (it == node_of_.end()) return;
  auto list = by_node_.find(it->second);
  if (list != by_node_.end()) {
    std::vector<Entry>& entries = list->second;
    // The predicate runs inside this call, under mu_ (the annotation tells the analysis).
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const Entry& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
                                   if (e.key != key) return false;
                                   AddToViewLocked(list->first, e.load, -1);
                                   return true;
                                 }),
                  entries.end());
    if (entries.empty()) by_node_.erase(list);
  }
  node_of_.erase(it);
}

void RecentPodTracker::Assume(const kube::Pod& pod, absl::string_view node, PodLoad load) {
  const absl::Time now = clock_.Now();
  std::string key = Key(pod);
  absl::MutexLock lock(&mu_);
  EraseLocked(key);
  by_node_[node].push_back(Entry{key, absl::ToUnixSeconds(now), now, load});
  AddToViewLocked(node, load, +1);
  node_of_.emplace(std::move(key), std::string(node));
  size_.store(node_of_.size(), std::memory_order_relaxed);
}

void RecentPodTracker::Forget(const kube::Pod& pod) {
  const std::string key = Key(pod);
  absl::MutexLock lock(&mu_);
  EraseLocked(key);
  size_.store(node_of_.size(), std::memory_order_relaxed);
}

void RecentPodTracker::Prune(int64_t window_end, absl::Time horizon) {
  if (size() == 0) return;
  absl::MutexLock lock(&mu_);
  PruneLocked(window_end, horizon);
}

void RecentPodTracker::AttachView(std::shared_ptr<const MetricsView> view, absl::Time horizon) {
  absl::MutexLock lock(&mu_);
  if (view == view_) return;
  // Prune against the old view's sums (a fresh view's sums start at 0), then switch.
  if (view != nullptr) PruneLocked(view->window_end(), horizon);
  view_ = std::move(view);
  if (view_ == nullptr) return;
  for (const auto& [node, entries] : by_node_) {
    for (const Entry& e : entries) AddToViewLocked(node, e.load, +1);
  }
}

void RecentPodTracker::PruneLocked(int64_t window_end, absl::Time horizon) {
  for (auto it = by_node_.begin(); it != by_node_.end();) {
    std::vector<Entry>& entries = it->second;
    // The predicate runs inside this call, under mu_ (the annotation tells the analysis).
    auto keep_end = std::remove_if(
        entries.begin(), entries.end(), [&](const Entry& e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          const bool drop =
              window_end - e.ts_s >= kMetricsReportingAllowanceSeconds || e.ts < horizon;
          if (drop) {
            node_of_.erase(e.key);
            AddToViewLocked(it->first, e.load, -1);
          }
          return drop;
        });
    entries.erase(keep_end, entries.end());
    if (entries.empty()) {
      by_node_.erase(it++);
    } else {
      ++it;
    }
  }
  size_.store(node_of_.size(), std::memory_order_relaxed);
}

PodLoad RecentPodTracker::Pending(absl::string_view node, int64_t window_end) const {
  PodLoad sum;
  if (size() == 0) return sum;
  absl::ReaderMutexLock lock(&mu_);
  auto it = by_node_.find(node);
  if (it == by_node_.end()) return sum;
  for (const Entry& e : it->second) {
    if (window_end - e.ts_s < kMetricsReportingAllowanceSeconds) {
      sum.milli_cpu += e.load.milli_cpu;
      sum.memory += e.load.memory;
    }
  }
  return sum;
}

}  // namespace trimaran::sched::plugins::load_aware
