#pragma once
// The container images the nodes of a snapshot report (node.status.images) and how
// many nodes report each: what upstream keeps as NodeInfo.ImageStates, one
// ImageStateSummary{Size, NumNodes} per image name, for ImageLocality.
//
// ImageIndex: image name -> the NodeInfos whose node reports that name, with the size
// each reports. Maintained incrementally by its owner: AddNode when a NodeInfo enters
// (or after its node's images changed), RemoveNode when it leaves (or before its
// node's images change), with the node object whose images were added. A node listing
// one name twice counts once, with its first size (upstream's newSum). num_nodes() of
// an entry is upstream's NumNodes. The scheduler's Snapshot keeps one, updated on
// UpdateSnapshot from the NodeInfos it copies (docs/plugins.md, ImageLocality).
//
// Difference from upstream: the size is the one the node reports. Upstream's cache
// keeps one size per name, the first node's that brought it in; the two differ only
// when nodes report one name with different sizes.
//
// ImageStateLister: the optional interface of a SharedLister that has such an index
// (Snapshot implements it; a plugin finds it with dynamic_cast and, without it, may
// build an ImageIndex from the lister's nodes).
//
// Thread-safety: ImageIndex is a value, externally synchronized (the Snapshot's rules:
// mutated between cycles, read concurrently during one). NodeInfo pointers are keys
// only, never dereferenced.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "kube/api/node.h"
#include "scheduler/framework/node_info.h"

namespace trimaran::sched {

class ImageIndex {
 public:
  // The nodes reporting one image name.
  class Entry {
   public:
    // How many nodes report the name (upstream ImageStateSummary.NumNodes).
    int num_nodes() const { return static_cast<int>(sizes_.size()); }
    // The size `node` reports for the name, or nullopt when it does not report it.
    std::optional<int64_t> SizeOn(const NodeInfo* node) const {
      const auto it = sizes_.find(node);
      if (it == sizes_.end()) return std::nullopt;
      return it->second;
    }

   private:
    friend class ImageIndex;
    absl::flat_hash_map<const NodeInfo*, int64_t> sizes_;
  };

  // Records every image name `node` reports as held by `key`.
  void AddNode(const NodeInfo* key, const kube::Node& node);
  // Forgets what AddNode(key, node) recorded; names no other node reports disappear.
  void RemoveNode(const NodeInfo* key, const kube::Node& node);
  void Clear() { images_.clear(); }

  // The entry of `image_name` (exactly as nodes report it), or nullptr when no node
  // reports it.
  const Entry* Find(absl::string_view image_name) const;
  // Distinct image names reported by at least one node.
  size_t size() const { return images_.size(); }

 private:
  absl::flat_hash_map<std::string, Entry> images_;
};

class ImageStateLister {
 public:
  virtual ~ImageStateLister() = default;
  // The index of the images of every node of NodeInfos().List(), keyed by those
  // NodeInfo pointers.
  virtual const ImageIndex& Images() const = 0;
};

}  // namespace trimaran::sched
