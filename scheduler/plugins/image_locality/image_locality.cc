#include "scheduler/plugins/image_locality/image_locality.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/framework/image_states.h"

namespace trimaran::sched::plugins {
namespace {

// The index entries of the pod's images (init containers, then containers) that at
// least one node reports; absent images add nothing to any node.
struct PodImages {
  std::vector<const ImageIndex::Entry*> entries;
  int64_t image_count = 0;
};

PodImages ResolvePodImages(const kube::Pod& pod, const ImageIndex& index) {
  PodImages out;
  for (const auto* containers : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const kube::Container& c : *containers) {
      ++out.image_count;
      // A name with a tag or digest is its own normalized name: no copy.
      const ImageIndex::Entry* entry =
          ImageLocality::HasTagOrDigest(c.image)
              ? index.Find(c.image)
              : index.Find(ImageLocality::NormalizedImageName(c.image));
      if (entry != nullptr) out.entries.push_back(entry);
    }
  }
  return out;
}

// The index of a lister without one (test fakes): built from its nodes.
ImageIndex BuildIndex(std::span<const NodeInfo* const> nodes) {
  ImageIndex index;
  for (const NodeInfo* node : nodes) {
    if (node->node() != nullptr) index.AddNode(node, *node->node());
  }
  return index;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> ImageLocality::New(const PluginArgs& /*args*/,
                                                           Handle& handle) {
  return std::make_unique<ImageLocality>(handle);
}

PluginDescriptor ImageLocality::Descriptor() { return DescriptorFor<ImageLocality>(); }

bool ImageLocality::HasTagOrDigest(absl::string_view name) {
  const size_t colon = name.rfind(':');
  const size_t slash = name.rfind('/');
  // Go's LastIndex gives -1 when absent: no ':' never follows the last '/'.
  return colon != absl::string_view::npos && (slash == absl::string_view::npos || colon > slash);
}

std::string ImageLocality::NormalizedImageName(absl::string_view name) {
  if (HasTagOrDigest(name)) return std::string(name);
  return absl::StrCat(name, ":latest");
}

int64_t ImageLocality::CalculatePriority(int64_t sum_scores, int64_t image_count) {
  const int64_t max_threshold = kMaxContainerThreshold * image_count;
  // A pod always has a container; guard the division anyway.
  if (max_threshold <= kMinThreshold) return kMinNodeScore;
  sum_scores = std::clamp(sum_scores, kMinThreshold, max_threshold);
  return kMaxNodeScore * (sum_scores - kMinThreshold) / (max_threshold - kMinThreshold);
}

int64_t ImageLocality::ScaledImageScore(int64_t size, int num_nodes, int64_t total_nodes) {
  // As upstream: the spread first, then the size scaled by it, truncated.
  const double spread = static_cast<double>(num_nodes) / static_cast<double>(total_nodes);
  return static_cast<int64_t>(static_cast<double>(size) * spread);
}

ScoreResult ImageLocality::Score(const CycleState& state, const kube::Pod& pod,
                                 const NodeInfo& node_info) const {
  const NodeInfo* const nodes[] = {&node_info};
  NodeScore score;
  Status s = ScoreNodes(state, pod, nodes, {&score, 1});
  if (!s.IsSuccess()) return ScoreResult::Failed(std::move(s));
  return ScoreResult::Of(score.score);
}

Status ImageLocality::ScoreNodes(const CycleState& /*state*/, const kube::Pod& pod,
                                 std::span<const NodeInfo* const> nodes,
                                 std::span<NodeScore> scores) const {
  const SharedLister& lister = handle_.snapshot_lister();
  const std::span<const NodeInfo* const> all_nodes = lister.NodeInfos().List();
  const auto total_nodes = static_cast<int64_t>(all_nodes.size());
  std::optional<ImageIndex> built;
  const ImageIndex* index = nullptr;
  if (const auto* images = dynamic_cast<const ImageStateLister*>(&lister)) {
    index = &images->Images();
  } else {
    index = &built.emplace(BuildIndex(all_nodes));
  }
  const PodImages pod_images = ResolvePodImages(pod, *index);
  for (size_t i = 0; i < nodes.size(); ++i) {
    int64_t sum = 0;
    for (const ImageIndex::Entry* entry : pod_images.entries) {
      if (const std::optional<int64_t> size = entry->SizeOn(nodes[i])) {
        sum += ScaledImageScore(*size, entry->num_nodes(), total_nodes);
      }
    }
    scores[i].score = CalculatePriority(sum, pod_images.image_count);
  }
  return Status();
}

}  // namespace trimaran::sched::plugins
