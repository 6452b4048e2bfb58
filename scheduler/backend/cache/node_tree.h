#pragma once
// NodeTree: the node names of a cluster grouped by zone, listed zone-interleaved
// (upstream's nodeTree in pkg/scheduler/backend/cache/node_tree.go). The cache keeps one
// and builds each Snapshot's node order from it (see snapshot.h for the order).
//
// Zone key: region and zone labels (topology.kubernetes.io/{region,zone}, else the
// deprecated failure-domain.beta.kubernetes.io/{region,zone}); nodes with neither are in
// the zone "". A node is listed at most once.
//
// Cost: Add O(1) amortized; Remove and zone changes O(nodes in the zone); ForEach O(n).
// Thread-safety: a value type, externally synchronized (the cache's mutex).

#include <cstddef>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "kube/api/node.h"

namespace trimaran::sched {

// The zone key of `node`: "" when it has neither region nor zone labels.
std::string GetZoneKey(const kube::Node& node);

class NodeTree {
 public:
  // Adds the node to its zone; a no-op when already present.
  void AddNode(const kube::Node& node);
  // NotFound when the node is not in the tree.
  absl::Status RemoveNode(const kube::Node& node);
  // Moves the node when its zone changed (`old_node` is the version in the tree).
  void UpdateNode(const kube::Node& old_node, const kube::Node& new_node);

  size_t NumNodes() const { return num_nodes_; }

  // Calls visit(name) for every node in zone-interleaved order.
  void ForEach(absl::FunctionRef<void(const std::string& name)> visit) const;

 private:
  // Removes `name` from `zone`; false when absent.
  bool RemoveFromZone(const std::string& zone, const std::string& name);

  // Zones in order of first use; a zone leaves when its last node does.
  std::vector<std::string> zones_;
  absl::flat_hash_map<std::string, std::vector<std::string>> nodes_by_zone_;
  size_t num_nodes_ = 0;
};

}  // namespace trimaran::sched
