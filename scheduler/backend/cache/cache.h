#pragma once
// Cache: the scheduler's node cache (upstream pkg/scheduler/backend/cache). It holds
// every node and every *assigned* pod (spec.nodeName set, of any scheduler) as
// NodeInfos, plus the pods this scheduler has *assumed* onto a node but whose binding
// the API server has not confirmed yet. The scheduling loop reads it only through an
// incremental Snapshot (snapshot.h) taken once per cycle; informer handlers and the
// binding cycle mutate it.
//
// Pod state machine (one entry per pod, keyed by UID, or namespace/name without one):
//
//                   AssumePod (the scheduling cycle chose a node)
//   +-----------+ -------------------------------------------> +-----------+
//   |  Initial  |                                              |  Assumed  |<-+
//   | (absent)  | <------------------------------------------- |           |--+ FinishBinding
//   +-----------+  ForgetPod (bind failed), or expire (TTL > 0 +-----------+   (starts TTL)
//     |     ^      and binding finished more than TTL ago)       |       |
//     |     |                                                    |       |
//     |     | entry erased             AddPod: the informer      |       | RemovePod
//     |     |                          confirms; its copy wins,  |       | (deleted before
//     |     |                          its node included         v       |  seen bound)
//     |   +-----------+          RemovePod                 +-----------+ |
//     |   |  Deleted  | <--------------------------------- |   Added   | |
//     |   |           | <------------------------------------------------+
//     |   +-----------+                                    |           |<-+
//     |                                                    +-----------+--+ UpdatePod
//     |                   AddPod                                 ^          (node may change)
//     +----------------------------------------------------------+
//
//   Deleted is not stored: the entry is erased, so the pod is Initial again.
//
// Every other edge is an invalid transition. It leaves the cache unchanged, returns an
// error, logs a warning and bumps trimaran_scheduler_cache_invalid_operations_total
// {operation}; it never crashes:
//   AssumePod    of a pod already in the cache (Assumed or Added) -> AlreadyExists;
//                of a pod without spec.nodeName                  -> InvalidArgument.
//   AddPod       of an Added pod                                 -> AlreadyExists;
//                of a pod without spec.nodeName                  -> InvalidArgument.
//   UpdatePod    of an Assumed pod                               -> FailedPrecondition;
//                of an unknown pod                               -> NotFound.
//   RemovePod    of an unknown pod                               -> NotFound.
//   ForgetPod    of an Added pod                                 -> FailedPrecondition;
//                of an unknown pod                               -> NotFound;
//                with a spec.nodeName other than the assumed one -> InvalidArgument.
//   FinishBinding of an unknown pod                              -> NotFound.
//                (of an Added pod it is a no-op returning OK: the informer's Add may
//                 arrive before the binding goroutine calls FinishBinding.)
//
// Expiry: with the spec's default TTL of 0, assumed pods never expire (kubernetes#106361);
// the assumption ends with the informer's AddPod, or ForgetPod. With a TTL > 0, an
// assumed pod whose binding finished more than TTL ago without the informer's Add is
// dropped by CleanupAssumedPods(now). Pods whose binding has not finished never expire.
//
// Nodes: AddNode/UpdateNode set the Node object (creating the NodeInfo if needed).
// RemoveNode of a node that still has pods keeps a placeholder NodeInfo (node() null)
// that holds the pods' accounting until they are removed; placeholders are not in
// snapshots. A pod may also arrive before its node: it gets a placeholder too.
//
// Invariants (docs/architecture.md): Assume/Forget symmetry (every assumed pod is
// either confirmed by AddPod, forgotten, removed or expired); a NodeInfo's requested
// resources are the sum of its pods' requests, where each pod (assumed or added) is on
// exactly the node its recorded spec.nodeName names.
//
// Thread-safety: implementations are safe for concurrent use (CacheImpl: one mutex).
// Ownership: the cache shares pods and nodes (shared_ptr<const>) with the informer
// stores; it never copies a pod.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "scheduler/backend/cache/snapshot.h"
#include "scheduler/framework/node_info.h"

namespace trimaran::sched {

// A point-in-time copy of the cache for /debug/cache (upstream's Dump).
struct CacheDump {
  // Copies of every NodeInfo, placeholders included, sorted by node name. A
  // placeholder's node() is null; its name is in `node_names` at the same index.
  std::vector<std::string> node_names;
  std::vector<NodeInfo> nodes;
  // "namespace/name" of the assumed pods, sorted.
  std::vector<std::string> assumed_pods;

  // Human-readable text: one line per node (NodeInfo::DebugString plus its pods) and
  // the assumed pods.
  std::string DebugString() const;
};

class Cache {
 public:
  virtual ~Cache() = default;

  // ---- Pods ----

  // Adds `pod` (spec.nodeName set: the node chosen by the scheduling cycle) as assumed:
  // its resources count on that node at once.
  virtual absl::Status AssumePod(std::shared_ptr<const kube::Pod> pod) = 0;
  // The binding cycle is done with the assumed `pod` (bound, waiting for the informer);
  // starts its expiry TTL.
  virtual absl::Status FinishBinding(const kube::Pod& pod) = 0;
  // Drops the assumed `pod` (binding failed), freeing its resources.
  virtual absl::Status ForgetPod(const kube::Pod& pod) = 0;
  // The informer saw the assigned `pod`. Confirms an assumed pod (the informer's copy
  // replaces the assumed one; when it names another node, the pod moves there).
  virtual absl::Status AddPod(std::shared_ptr<const kube::Pod> pod) = 0;
  // The informer saw an assigned pod change. `old_pod` identifies the cache entry.
  virtual absl::Status UpdatePod(const kube::Pod& old_pod,
                                 std::shared_ptr<const kube::Pod> new_pod) = 0;
  // The informer saw an assigned pod deleted (or become terminal).
  virtual absl::Status RemovePod(const kube::Pod& pod) = 0;
  // Whether `pod` is in the Assumed state (false when unknown).
  virtual bool IsAssumedPod(const kube::Pod& pod) const = 0;
  // The cache's copy of `pod` (assumed or added); NotFound when unknown.
  virtual absl::StatusOr<std::shared_ptr<const kube::Pod>> GetPod(const kube::Pod& pod) const = 0;
  // Expires assumed pods whose binding finished before now − TTL (no-op when TTL is 0).
  // The scheduler calls it periodically with its Clock's time. Returns how many expired.
  virtual int CleanupAssumedPods(absl::Time now) = 0;

  // ---- Nodes ----

  // Sets the node (creates its NodeInfo, or fills a placeholder). Idempotent.
  virtual absl::Status AddNode(std::shared_ptr<const kube::Node> node) = 0;
  // Replaces the node object (creates it when unknown, as upstream).
  virtual absl::Status UpdateNode(std::shared_ptr<const kube::Node> node) = 0;
  // Removes the node; NotFound when unknown. A node with pods stays as a placeholder.
  virtual absl::Status RemoveNode(const kube::Node& node) = 0;

  // ---- Snapshot and introspection ----

  // Brings `snapshot` up to date, copying only the NodeInfos changed since its last
  // update (see snapshot.h). A snapshot must only ever be updated from one cache.
  virtual absl::Status UpdateSnapshot(Snapshot& snapshot) = 0;
  // NodeInfos in the cache, placeholders included (upstream's NodeCount).
  virtual int NodeCount() const = 0;
  // Pods in the cache, assumed ones included.
  virtual int PodCount() const = 0;
  virtual CacheDump Dump() const = 0;
};

using CachePtr = std::unique_ptr<Cache>;

}  // namespace trimaran::sched
