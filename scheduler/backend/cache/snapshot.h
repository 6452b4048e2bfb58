#pragma once
// Snapshot: the scheduling cycle's frozen copy of the cache's nodes (upstream
// pkg/scheduler/backend/cache/snapshot.go). It owns one NodeInfo copy per node (pods and
// node objects are shared, immutable) and lists them in the cache's node order, so it
// is the framework's SharedLister / NodeInfoLister for plugins.
//
// Node order: zone-interleaved round robin, as upstream's nodeTree: zones in the order
// their first node was added, then round r takes the r-th node of each zone (nodes of a
// zone in insertion order). With one zone (or no zone labels) that is insertion order.
// Removing a node keeps the relative order of the others. Filter's rotating start index
// walks this order, so consecutive pods spread across zones.
//
// Updates: only Cache::UpdateSnapshot changes a Snapshot. It copies the NodeInfos whose
// generation is newer than generation() (cost proportional to what changed, not to
// the cluster) and rebuilds the list only when nodes were added, removed or changed
// zone; the two affinity lists are rebuilt (a scan of the list) only when a copied
// node started or stopped holding pods with affinity or required anti-affinity. Placeholder
// NodeInfos (pods of a node not known, or no longer known) are not in a snapshot.
//
// Images (ImageStateLister, framework/image_states.h): an ImageIndex of the images its
// nodes report, kept incrementally by the same update: a copied NodeInfo whose node's
// status.images changed is removed and re-added, a node leaving is removed; nothing is
// scanned per cycle. Its counts are always those of the snapshot's own node list
// (upstream freezes NumNodes into a NodeInfo when that NodeInfo is copied, so an
// unchanged node can carry an older count).
//
// Thread-safety: externally synchronized. The scheduling thread updates it between
// cycles; during a cycle any number of threads may read it (const methods only).
// Ownership: NodeInfo pointers from List()/Get() stay valid until the next update or
// the snapshot's destruction. A Snapshot is movable (pointers stay valid) but not
// copyable, and must only ever be updated from one cache.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/image_states.h"
#include "scheduler/framework/node_info.h"

namespace trimaran::sched {

class CacheImpl;

class Snapshot final : public SharedLister, public NodeInfoLister, public ImageStateLister {
 public:
  Snapshot() = default;
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  Snapshot(Snapshot&&) = default;
  Snapshot& operator=(Snapshot&&) = default;

  // SharedLister.
  const NodeInfoLister& NodeInfos() const override { return *this; }

  // NodeInfoLister.
  std::span<const NodeInfo* const> List() const override { return node_info_list_; }
  absl::StatusOr<const NodeInfo*> Get(absl::string_view node_name) const override;
  std::span<const NodeInfo* const> HavePodsWithAffinityList() const override {
    return have_pods_with_affinity_;
  }
  std::span<const NodeInfo* const> HavePodsWithRequiredAntiAffinityList() const override {
    return have_pods_with_required_anti_affinity_;
  }

  // ImageStateLister.
  const ImageIndex& Images() const override { return images_; }

  size_t NumNodes() const { return node_info_list_.size(); }
  // The newest NodeInfo generation this snapshot has seen (0 when never updated).
  int64_t generation() const { return generation_; }

  // NodeInfos copied by the last UpdateSnapshot (tests check incrementality with it).
  int64_t LastUpdateCopiedNodesForTest() const { return last_update_copied_nodes_; }
  // Whether the last UpdateSnapshot rebuilt the node list.
  bool LastUpdateRebuiltListForTest() const { return last_update_rebuilt_list_; }

 private:
  friend class CacheImpl;

  // Owned copies, by node name. unique_ptr keeps addresses stable for the list.
  absl::flat_hash_map<std::string, std::unique_ptr<NodeInfo>> node_info_map_;
  // Pointers into node_info_map_, in node order (see above).
  std::vector<const NodeInfo*> node_info_list_;
  // The subsets of node_info_list_ with pods with affinity / required anti-affinity,
  // rebuilt when the list is or when a copied NodeInfo's membership changed.
  std::vector<const NodeInfo*> have_pods_with_affinity_;
  std::vector<const NodeInfo*> have_pods_with_required_anti_affinity_;
  // The images of the nodes in node_info_map_, keyed by those NodeInfos.
  ImageIndex images_;
  int64_t generation_ = 0;
  // The cache's node-order version the list was built from (0: never built).
  int64_t list_version_ = 0;
  int64_t last_update_copied_nodes_ = 0;
  bool last_update_rebuilt_list_ = false;
};

}  // namespace trimaran::sched
