#pragma once
// NodeInfo: the scheduler's aggregated view of one node: the Node object, the pods
// placed on it (bound, being bound, or assumed), and the sums Filter and Score read for
// every node of every cycle: requested resources, "non-zero" requested resources,
// allocatable resources, used host ports, and the pods with pod (anti-)affinity.
// Upstream's framework.NodeInfo, without the parts Trimaran does not use yet (image
// states, PVC ref counts).
//
// Also here: PodInfo (a pod plus its precomputed requests), HostPortInfo (host port
// bookkeeping with upstream's conflict rules), and the non-zero request helper.
//
// Accounting invariants (checked by tests; docs/architecture.md invariant 1):
//   requested()          == Σ pods().request, where every request comes from
//                           kube::ComputePodRequests (init containers, sidecars,
//                           overhead, pod-level resources);
//   non_zero_requested() == Σ pods().non_zero_request (cpu and memory only);
//   used_ports()         == the host ports (hostPort > 0) of all pods().
//   pods_with_affinity() == the pods() with pod affinity or anti-affinity
//                           (PodHasAffinityTerms); pods_with_required_anti_affinity()
//                           == those with a required anti-affinity term.
//   allocatable()        == node.status.allocatable (all zero while node() is null).
// Every mutation sets generation() to a fresh value from NextGeneration(), a
// process-wide counter, so an incremental snapshot can copy exactly the NodeInfos
// changed since its last update (generation greater than the snapshot's).
//
// Cost: getters return references to precomputed values: no allocation, no lock, no
// pod iteration. AddPod/RemovePod are O(pods on the node) at worst.
//
// Thread-safety: a value type, externally synchronized. The cache mutates its own
// NodeInfos under its lock; a scheduling cycle reads snapshot copies that nobody mutates
// while the cycle runs (invariant: never mutate a snapshot NodeInfo; preemption
// simulates on a Clone()).
//
// Ownership: pods and the node are shared immutable objects (shared_ptr<const>), so a
// copy of a NodeInfo costs one reference per pod, not a copy of each pod.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/pod_resources.h"

namespace trimaran::sched {

// The cpu/memory request of a pod with kube-scheduler's non-zero defaults applied per
// container (100m cpu, 200Mi memory when a container has no entry; spec §2.5).
// Scoring only: NodeResourcesFit's scorers use it for cpu and memory, Filter never does.
struct NonZeroRequest {
  int64_t milli_cpu = 0;
  int64_t memory = 0;

  friend bool operator==(const NonZeroRequest&, const NonZeroRequest&) = default;
};
NonZeroRequest ComputeNonZeroRequest(const kube::Pod& pod);

// The container ports of `pod` that claim a host port (hostPort > 0), from init
// containers (sidecars hold their ports for the pod's life; a conservative superset for
// regular init containers) and app containers. The single definition NodeInfo and the
// NodePorts plugin share.
std::vector<kube::ContainerPort> GetHostPorts(const kube::Pod& pod);

// Whether `pod` has pod affinity or pod anti-affinity at all (any term, even an empty
// struct): upstream's PodsWithAffinity membership.
bool PodHasAffinityTerms(const kube::Pod& pod);
// Whether `pod` has at least one required pod anti-affinity term.
bool PodHasRequiredAntiAffinity(const kube::Pod& pod);

// A pod and what it asks for, computed once when the pod enters the cache.
struct PodInfo {
  std::shared_ptr<const kube::Pod> pod;
  // kube::ComputePodRequests(*pod).
  kube::Resource request;
  // ComputeNonZeroRequest(*pod).
  NonZeroRequest non_zero_request;

  // Computes the requests of `pod` (non-null).
  static PodInfo Create(std::shared_ptr<const kube::Pod> pod);
};

// The host ports in use on a node, as (host IP, protocol, port) triples.
//
// Conflict rule (upstream HostPortInfo.CheckConflict): two uses of one (protocol, port)
// conflict when their IPs are equal or either is 0.0.0.0 (an empty IP means 0.0.0.0).
// Ports <= 0 never conflict and are not recorded.
//
// Difference from upstream: uses are counted, so when two pods hold the same triple
// (possible for pods bound by other schedulers or the kubelet), removing one keeps the
// port marked as used; upstream's set would forget it.
class HostPortInfo {
 public:
  void Add(absl::string_view ip, kube::Protocol protocol, int32_t port);
  // Removes one use; a no-op when the triple is not recorded.
  void Remove(absl::string_view ip, kube::Protocol protocol, int32_t port);
  // Would a new use of (ip, protocol, port) conflict with a recorded one?
  bool CheckConflict(absl::string_view ip, kube::Protocol protocol, int32_t port) const;
  // Number of distinct recorded triples.
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    std::string ip;  // never empty: "" is stored as 0.0.0.0
    kube::Protocol protocol;
    int32_t port;
    int32_t uses;
  };
  // Few entries per node in practice: a vector scanned linearly beats a map.
  std::vector<Entry> entries_;
};

inline constexpr absl::string_view kDefaultBindAllHostIP = "0.0.0.0";

// A fresh value from the process-wide generation counter (strictly increasing, > 0).
int64_t NextGeneration();

class NodeInfo {
 public:
  // No node yet (the cache may learn of pods before their node).
  NodeInfo() = default;
  explicit NodeInfo(std::shared_ptr<const kube::Node> node);
  // Values: copying shares the pods and the node (snapshots copy-assign into reused
  // NodeInfos, keeping vector capacity).
  NodeInfo(const NodeInfo&) = default;
  NodeInfo& operator=(const NodeInfo&) = default;
  NodeInfo(NodeInfo&&) = default;
  NodeInfo& operator=(NodeInfo&&) = default;

  // The node, or nullptr when it is not known (yet, or any more).
  const kube::Node* node() const { return node_.get(); }
  const std::shared_ptr<const kube::Node>& shared_node() const { return node_; }
  // The node's name; "" when node() is null.
  const std::string& name() const;

  const std::vector<PodInfo>& pods() const { return pods_; }
  // The subsets InterPodAffinity reads instead of every pod (see the invariants).
  const std::vector<PodInfo>& pods_with_affinity() const { return pods_with_affinity_; }
  const std::vector<PodInfo>& pods_with_required_anti_affinity() const {
    return pods_with_required_anti_affinity_;
  }
  // Σ of the pods' requests (cpu in millicores; see kube::Resource).
  const kube::Resource& requested() const { return requested_; }
  // Σ of the pods' non-zero requests; only milli_cpu and memory are set.
  const kube::Resource& non_zero_requested() const { return non_zero_requested_; }
  // node.status.allocatable; allowed_pod_number is its "pods" entry.
  const kube::Resource& allocatable() const { return allocatable_; }
  const HostPortInfo& used_ports() const { return used_ports_; }
  // Bumped (to NextGeneration()) by every mutation below; copies keep it.
  int64_t generation() const { return generation_; }

  // Sets or replaces the node (allocatable is recomputed; pods are kept).
  void SetNode(std::shared_ptr<const kube::Node> node);
  // Forgets the node but keeps the pods (a node deleted while pods still point at it).
  void RemoveNode();

  // Adds a pod, computing its requests. `pod` must be non-null.
  void AddPod(std::shared_ptr<const kube::Pod> pod);
  // Adds a pod whose requests are already computed (by PodInfo::Create).
  void AddPodInfo(PodInfo pod_info);
  // Removes the pod with the same identity (UID when both have one, else
  // namespace/name) and subtracts its recorded requests and ports. The order of the
  // remaining pods may change. NotFound when the pod is not on this node.
  absl::Status RemovePod(const kube::Pod& pod);

  // A deep-enough copy: mutating it never affects this NodeInfo (pods and node are
  // immutable and shared).
  std::unique_ptr<NodeInfo> Clone() const { return std::make_unique<NodeInfo>(*this); }

  // "node=n1 generation=7 pods=3 requested=cpu=1500m ... allocatable=..." for
  // /debug/cache and test failures.
  std::string DebugString() const;

 private:
  void UpdatePorts(const kube::Pod& pod, bool add);

  std::shared_ptr<const kube::Node> node_;
  std::vector<PodInfo> pods_;
  std::vector<PodInfo> pods_with_affinity_;
  std::vector<PodInfo> pods_with_required_anti_affinity_;
  kube::Resource requested_;
  kube::Resource non_zero_requested_;
  kube::Resource allocatable_;
  HostPortInfo used_ports_;
  int64_t generation_ = NextGeneration();
};

using NodeInfoPtr = std::shared_ptr<NodeInfo>;

}  // namespace trimaran::sched
