#pragma once
// NodeAffinity (spec kube-scheduler.md §3.3; upstream plugins/nodeaffinity). Default
// score weight 2 (profile config).
//
// PreFilter: Skip when the pod has no nodeSelector, no required node affinity and the
//   plugin has no addedAffinity.required (its Filter then does not run). Otherwise it
//   parses the pod's requirements once into CycleState. When *every* required term pins
//   node names with `matchFields metadata.name In [...]`, the result is restricted to
//   the union over terms of the per-term intersection of those names; when that union
//   is empty the pod is rejected, UnschedulableAndUnresolvable "pod affinity terms
//   conflict".
// Filter: addedAffinity.required must match (else "node(s) didn't match
//   scheduler-enforced node affinity"), then nodeSelector AND required terms (else
//   "node(s) didn't match Pod's node affinity/selector"); both
//   UnschedulableAndUnresolvable. Matching rules: helper/node_affinity.h.
// PreScore: Skip when neither the pod nor addedAffinity has preferred terms; otherwise
//   parses the pod's preferred terms once.
// Score: Σ weight of the matching preferred terms (pod's + addedAffinity's).
// NormalizeScore: DefaultNormalizeScore(100, reverse = false): 100·s/max (0 for all when
//   max is 0), with the exact score rescaled the same way (types.h).
//
// Events: a node being added, or its labels changing (hint: only a node that now matches).
//
// Thread-safety: immutable after construction; Filter/Score/NormalizeScore are safe to
// call concurrently and never allocate (statuses are prebuilt; the parsed pod terms
// live in CycleState). Without PreFilter/PreScore state (those points disabled),
// Filter/Score parse the pod per node, as upstream's fallback.

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/helper/node_affinity.h"
#include "scheduler/plugins/node_affinity/args.h"

namespace trimaran::sched::plugins {

class NodeAffinity final : public PreFilterPlugin,
                           public FilterPlugin,
                           public PreScorePlugin,
                           public ScorePlugin,
                           public ScoreExtensions,
                           public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "NodeAffinity";
  static constexpr absl::string_view kPreFilterStateKey = "PreFilterNodeAffinity";
  static constexpr absl::string_view kPreScoreStateKey = "PreScoreNodeAffinity";
  static constexpr absl::string_view kErrReasonPod =
      "node(s) didn't match Pod's node affinity/selector";
  static constexpr absl::string_view kErrReasonEnforced =
      "node(s) didn't match scheduler-enforced node affinity";
  static constexpr absl::string_view kErrReasonConflict = "pod affinity terms conflict";

  // A PluginFactory: decodes and validates NodeAffinityArgs.
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New, the extension points of its
  // interfaces, and an args validator that decodes the args exactly as New does.
  static PluginDescriptor Descriptor();

  explicit NodeAffinity(const NodeAffinityArgs& args);

  absl::string_view Name() const override { return kName; }

  Status PreFilter(CycleState& state, const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                   PreFilterResult& result) override;
  Status Filter(const CycleState& state, const kube::Pod& pod,
                const NodeInfo& node_info) const override;

  Status PreScore(CycleState& state, const kube::Pod& pod,
                  std::span<const NodeInfo* const> nodes) override;
  ScoreResult Score(const CycleState& state, const kube::Pod& pod,
                    const NodeInfo& node_info) const override;
  const ScoreExtensions* GetScoreExtensions() const override { return this; }
  Status NormalizeScore(const CycleState& state, const kube::Pod& pod,
                        NodeScoreList& scores) const override;

  std::vector<ClusterEvent> EventsToRegister() const override;
  // Upstream's isSchedulableAfterNodeChange: queue a node that matches addedAffinity and
  // the pod's required affinity when it is added, or when an update made it match.
  absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                    const EventObjects& objects) const override;

 private:
  // addedAffinity.required, when set.
  std::optional<helper::NodeSelectorMatcher> added_required_;
  // addedAffinity.preferred (possibly empty).
  helper::PreferredSchedulingTerms added_preferred_;
  const Status rejected_pod_;
  const Status rejected_enforced_;
};

}  // namespace trimaran::sched::plugins
