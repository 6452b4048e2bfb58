#pragma once
// CacheImpl: the Cache (cache.h) of the scheduler: one mutex over
//   - the NodeInfos, in a list ordered by most recent update (front = newest
//     generation, as upstream's headNode list), so UpdateSnapshot walks only the
//     NodeInfos changed since a snapshot's generation and stops at the first older one;
//   - a NodeTree (node_tree.h) giving the snapshot's zone-interleaved node order;
//   - the pod states (pod, assumed?, binding finished?, expiry deadline) by pod key, and
//     the set of assumed pod keys.
//
// Invariants (under mu_): the node list is sorted by strictly decreasing generation
// (every NodeInfo mutation moves the NodeInfo to the front); each pod state's pod is in
// exactly the NodeInfo its spec.nodeName names; a placeholder NodeInfo (no node) has at
// least one pod; the tree holds exactly the NodeInfos that have a node.
//
// Memory: per pod, one state entry (key + shared_ptr + a few words) and one PodInfo in
// its NodeInfo (shared_ptr + precomputed requests); pods themselves are shared with the
// informer store. Snapshots add one PodInfo copy per pod.
//
// Stats (stats_scopes.h; names relative to the scopes, which the composition root
// prefixes: the daemon's "scheduler_" and "trimaran_" give the names in parentheses):
//   upstream  cache_size{type=nodes|pods|assumed_pods}            gauge
//             (scheduler_cache_size, kube-scheduler 1.34+'s name; 1.20-1.33 doubled
//             the word: scheduler_scheduler_cache_size)
//   own       cache_invalid_operations_total{operation}           counter
//             (trimaran_cache_invalid_operations_total)
//
// Thread-safety: safe for concurrent use. Ownership: holds the Clock by reference; the
// Clock and the scopes' Registry must outlive the cache.

#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/stats/family.h"
#include "scheduler/backend/cache/cache.h"
#include "scheduler/backend/cache/node_tree.h"
#include "scheduler/backend/cache/snapshot.h"
#include "scheduler/framework/stats_scopes.h"

namespace trimaran::sched {

struct CacheOptions {
  // How long an assumed pod may wait for the informer's Add after FinishBinding before
  // CleanupAssumedPods drops it. Zero (the default, as upstream since
  // kubernetes#106361) means never.
  absl::Duration assumed_pod_ttl = absl::ZeroDuration();
};

class CacheImpl final : public Cache {
 public:
  CacheImpl(const Clock& clock, const StatsScopes& scopes, CacheOptions options = {});
  CacheImpl(const CacheImpl&) = delete;
  CacheImpl& operator=(const CacheImpl&) = delete;

  absl::Status AssumePod(std::shared_ptr<const kube::Pod> pod) override;
  absl::Status FinishBinding(const kube::Pod& pod) override;
  absl::Status ForgetPod(const kube::Pod& pod) override;
  absl::Status AddPod(std::shared_ptr<const kube::Pod> pod) override;
  absl::Status UpdatePod(const kube::Pod& old_pod,
                         std::shared_ptr<const kube::Pod> new_pod) override;
  absl::Status RemovePod(const kube::Pod& pod) override;
  bool IsAssumedPod(const kube::Pod& pod) const override;
  absl::StatusOr<std::shared_ptr<const kube::Pod>> GetPod(const kube::Pod& pod) const override;
  int CleanupAssumedPods(absl::Time now) override;

  absl::Status AddNode(std::shared_ptr<const kube::Node> node) override;
  absl::Status UpdateNode(std::shared_ptr<const kube::Node> node) override;
  absl::Status RemoveNode(const kube::Node& node) override;

  absl::Status UpdateSnapshot(Snapshot& snapshot) override;
  int NodeCount() const override;
  int PodCount() const override;
  CacheDump Dump() const override;

  // Invalid operations so far (all kinds); tests compare it with the counter.
  int64_t InvalidOperationsForTest() const;

 private:
  struct PodState {
    std::shared_ptr<const kube::Pod> pod;
    bool binding_finished = false;
    // Set by FinishBinding: when the assumed pod expires (if TTL > 0).
    absl::Time deadline = absl::InfiniteFuture();
  };
  using NodeList = std::list<NodeInfo>;

  // Adds `pod` to the NodeInfo of its spec.nodeName (creating a placeholder).
  void AddPodToNode(std::shared_ptr<const kube::Pod> pod) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes `pod` (the cache's copy) from the NodeInfo of its spec.nodeName, dropping
  // an emptied placeholder.
  void RemovePodFromNode(const kube::Pod& pod) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves a just-mutated NodeInfo to the front of the list (newest generation first).
  void MoveToFront(NodeList::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Shared by AddNode and UpdateNode.
  absl::Status SetNode(std::shared_ptr<const kube::Node> node, absl::string_view operation)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops one pod state (must exist) from every structure.
  void ErasePodState(const std::string& key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rebuilds `snapshot`'s list from the tree and drops its nodes that are gone.
  void RebuildSnapshotList(Snapshot& snapshot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rebuilds the snapshot's two affinity lists from its node list.
  void RebuildAffinityLists(Snapshot& snapshot) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Logs, counts and returns an invalid operation's error.
  absl::Status Invalid(absl::string_view operation, absl::Status status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void UpdateGauges() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Clock& clock_;
  const CacheOptions options_;
  stats::Family<stats::Counter>& invalid_operations_;
  stats::Gauge& nodes_gauge_;
  stats::Gauge& pods_gauge_;
  stats::Gauge& assumed_pods_gauge_;

  mutable absl::Mutex mu_;
  // Front = most recently updated. std::list iterators stay valid across splices.
  NodeList node_list_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, NodeList::iterator> nodes_ ABSL_GUARDED_BY(mu_);
  NodeTree node_tree_ ABSL_GUARDED_BY(mu_);
  // Bumped (to NextGeneration(), unique across caches) whenever node_tree_ changes, so
  // a snapshot knows when to rebuild its list.
  int64_t tree_version_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, PodState> pod_states_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> assumed_pods_ ABSL_GUARDED_BY(mu_);
  int64_t invalid_operations_total_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace trimaran::sched
