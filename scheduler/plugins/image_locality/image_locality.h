#pragma once
// ImageLocality (spec kube-scheduler.md §2.7; upstream plugins/imagelocality, 1.37).
//
// Score: favours nodes that already hold the pod's images. For each init container and
// each container (upstream 1.37 counts both), the image name is normalized as upstream's
// normalizedImageName (":latest" appended when the name has no tag or digest: its last
// ':' is not after its last '/') and looked up among the names the node reports in
// status.images. Each image found adds its size scaled by its spread,
//     int64(size × (numNodes / totalNodes))
// where numNodes is the number of snapshot nodes reporting that name and totalNodes the
// number of snapshot nodes (the "node heating" guard). With imageCount the number of
// init containers plus containers, the sum is clamped to
// [23 MiB, 1000 MiB × imageCount] and scaled:
//     score = 100 × (sum − 23 MiB) / (1000 MiB × imageCount − 23 MiB)   (integer)
// No NormalizeScore; default weight 1.
//
// The spread comes from the snapshot's ImageIndex (framework/image_states.h), which the
// cache keeps incrementally; against a lister without one (test fakes) each call builds
// the index from the lister's nodes.
//
// Not counted: image volumes (spec.volumes[].image, which 1.37 also scores and counts in
// imageCount); Trimaran's pod decoder does not read that source yet.
//
// Args: none (any given are ignored). Events: none (Score only).
//
// Thread-safety: stateless after construction (the Handle is only read); Score and
// ScoreNodes are safe to call concurrently. ScoreNodes resolves the pod's images once
// per run of nodes; the per-node work is one pointer-keyed lookup per image.

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

class ImageLocality final : public ScorePlugin {
 public:
  static constexpr absl::string_view kName = "ImageLocality";
  static constexpr int64_t kMiB = 1024 * 1024;
  static constexpr int64_t kMinThreshold = 23 * kMiB;
  static constexpr int64_t kMaxContainerThreshold = 1000 * kMiB;

  // A PluginFactory. No args (any given are ignored, as upstream).
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New and the extension points of its
  // interfaces.
  static PluginDescriptor Descriptor();

  explicit ImageLocality(const Handle& handle) : handle_(handle) {}

  absl::string_view Name() const override { return kName; }
  ScoreResult Score(const CycleState& state, const kube::Pod& pod,
                    const NodeInfo& node_info) const override;
  Status ScoreNodes(const CycleState& state, const kube::Pod& pod,
                    std::span<const NodeInfo* const> nodes,
                    std::span<NodeScore> scores) const override;

  // upstream's normalizedImageName: `name`, with ":latest" appended unless
  // HasTagOrDigest(name) (its last ':' comes after its last '/').
  static std::string NormalizedImageName(absl::string_view name);
  static bool HasTagOrDigest(absl::string_view name);
  // upstream's calculatePriority: the clamped, scaled score of `sum_scores` for a pod
  // with `image_count` images.
  static int64_t CalculatePriority(int64_t sum_scores, int64_t image_count);
  // upstream's scaledImageScore.
  static int64_t ScaledImageScore(int64_t size, int num_nodes, int64_t total_nodes);

 private:
  const Handle& handle_;
};

}  // namespace trimaran::sched::plugins
