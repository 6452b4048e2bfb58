#pragma once
// RecentPodTracker: the load of pods this plugin placed that the metrics cannot show
// yet (issue 7 "No hot spots in bursts"; spec §2.4, fixing scheduler-plugins#797).
//
// Design (time comes from the Clock seam, handle.clock()):
//   - Reserve -> Assume(pod, node, load): the entry's time is Clock::Now() at Reserve,
//     i.e. the moment the scheduler decided, before the (async) bind. Upstream only
//     learns of a pod from the informer once it is *bound*, so back-to-back cycles
//     miss the pods still binding and pile onto one node.
//   - Unreserve -> Forget(pod): the pod will not run there; its load is dropped at once.
//   - A bound pod keeps its entry: "recently bound" and "assumed" are one state here.
//   - An entry counts toward its node while the metrics window does not cover it,
//     exactly upstream's rule with its 60 s reporting allowance:
//         counted  iff  E - ts_s < 60     (E = snapshot window.end, ts_s = unix seconds)
//     Prune(E, horizon) drops what can never count again (E only grows), and entries
//     older than `horizon` (metrics older than metricsMaxAge are not used at all, so
//     nothing older than now - metricsMaxAge - 60 s can matter): memory stays bounded by
//     the pods placed in about one metrics window.
//   - Pods that were already running when the scheduler started, or that other
//     schedulers placed, are never entries: the metrics are their only source. So
//     nothing is double-counted after a restart (upstream adds every existing pod with
//     ts = startup and counts it again for 1-2 minutes). Limitation, by design: a pod
//     bound by *another* scheduler in the last minute is not predicted (the Handle
//     offers no informer; the node's requests still count it under fallback: Requests).
//
// Hot path: the plugin attaches the cycle's MetricsView (AttachView, in PreScore, only
// when the view changed). Attaching prunes by the view's E and writes every node's sum
// into the view's pending sums (MetricsView::pending); Assume/Forget keep them current. Since
// every entry left after pruning by E is counted under E (and every later entry has
// ts >= the fetch time >= E - 60 s), the maintained sums equal Pending(node, E). Score
// then reads two relaxed atomics of the NodeUsage it already looked up: no lock, no
// second hash lookup per node.
//
// Thread-safety: safe for concurrent use (Reserve runs on the scheduling thread,
// Unreserve may run on a binding thread, Score reads from the Score workers). Pending()
// takes a reader lock and is O(entries of that node) (tests, fallback paths).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kube/api/pod.h"
#include "scheduler/plugins/load_aware/metrics_view.h"

namespace trimaran::sched::plugins::load_aware {

// Upstream's metricsAgentReportingIntervalSeconds.
inline constexpr int64_t kMetricsReportingAllowanceSeconds = 60;

// What one pod adds to its node (the plugin decides: a prediction or the requests).
struct PodLoad {
  int64_t milli_cpu = 0;
  int64_t memory = 0;  // bytes

  friend bool operator==(const PodLoad&, const PodLoad&) = default;
};

class RecentPodTracker {
 public:
  explicit RecentPodTracker(const Clock& clock) : clock_(clock) {}

  // Records (or moves) `pod` on `node` with time Now().
  void Assume(const kube::Pod& pod, absl::string_view node, PodLoad load) ABSL_LOCKS_EXCLUDED(mu_);
  // Drops `pod`; a no-op when it is not tracked (Unreserve is idempotent).
  void Forget(const kube::Pod& pod) ABSL_LOCKS_EXCLUDED(mu_);
  // Drops entries with window_end - ts_s >= 60 and entries older than `horizon`.
  void Prune(int64_t window_end, absl::Time horizon) ABSL_LOCKS_EXCLUDED(mu_);
  // The summed load of the node's entries with window_end - ts_s < 60.
  PodLoad Pending(absl::string_view node, int64_t window_end) const ABSL_LOCKS_EXCLUDED(mu_);

  // Makes `view` the one whose pending sums are maintained (no-op when it already is):
  // prunes by view->window_end() and `horizon`, then fills the view's sums.
  void AttachView(std::shared_ptr<const MetricsView> view, absl::Time horizon)
      ABSL_LOCKS_EXCLUDED(mu_);

  size_t size() const { return size_.load(std::memory_order_relaxed); }

 private:
  struct Entry {
    std::string key;  // pod UID, or namespace/name without one
    int64_t ts_s;     // unix seconds (truncated), as upstream compares
    absl::Time ts;
    PodLoad load;
  };
  static std::string Key(const kube::Pod& pod);
  void EraseLocked(absl::string_view key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PruneLocked(int64_t window_end, absl::Time horizon) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Adds sign × load to the attached view's sums for `node`.
  void AddToViewLocked(absl::string_view node, const PodLoad& load, int sign)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Clock& clock_;
  mutable absl::Mutex mu_;
  // node -> entries in insertion order; pod key -> node.
  absl::flat_hash_map<std::string, std::vector<Entry>> by_node_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::string> node_of_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const MetricsView> view_ ABSL_GUARDED_BY(mu_);
  std::atomic<size_t> size_{0};
};

// The pending load of `node` for a Score: from `view`'s sums for `usage` (an entry of
// `view`) when PreScore attached that view (`attached`), else by walking the tracker.
inline PodLoad PendingLoad(const RecentPodTracker& tracker, const MetricsView& view,
                           const NodeUsage& usage, absl::string_view node, bool attached) {
  if (!attached) return tracker.Pending(node, view.window_end());
  if (!view.MaybePending(usage)) return PodLoad{};
  const PendingSums& sums = view.pending(usage);
  return PodLoad{sums.milli_cpu.load(std::memory_order_relaxed),
                 sums.memory.load(std::memory_order_relaxed)};
}

}  // namespace trimaran::sched::plugins::load_aware
