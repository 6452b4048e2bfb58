#pragma once
// TaintToleration (spec kube-scheduler.md §3.4; upstream plugins/tainttoleration).
//
// Filter: the first NoSchedule or NoExecute taint of the node (in spec.taints order)
// that none of the pod's tolerations tolerates rejects the node as
// UnschedulableAndUnresolvable with reason
//     node(s) had untolerated taint(s)
// (kube-scheduler 1.37's reason, which names no taint; 1.25 up to the change said
// "node(s) had untolerated taint {<key>: <value>}", 1.20–1.24 "node(s) had taint {k: v},
// that the pod didn't tolerate"). PreferNoSchedule taints never filter. Matching rules:
// helper/taints.h. The rejection is prebuilt: Filter never allocates.
//
// Score: the number of the node's PreferNoSchedule taints that the pod does not
// tolerate with a toleration whose effect is empty or PreferNoSchedule. PreScore
// collects those tolerations once per cycle. NormalizeScore is
// DefaultNormalizeScore(100, reverse = true): 100 − 100·count/maxCount (fewer
// intolerable taints → higher score; every node 100 when no node has one), with the
// exact score rescaled the same way (types.h).
//
// Events: a node being added, or its taints changing (hint: only when no untolerated
// NoSchedule/NoExecute taint is left).
//
// Thread-safety: stateless after construction; Filter/Score/NormalizeScore are safe to
// call concurrently. Filter allocates only when it rejects (the reason names the taint);
// Score never allocates.

#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

class TaintToleration final : public FilterPlugin,
                              public PreScorePlugin,
                              public ScorePlugin,
                              public ScoreExtensions,
                              public EnqueueExtensions {
 public:
  static constexpr absl::string_view kName = "TaintToleration";
  static constexpr absl::string_view kPreScoreStateKey = "PreScoreTaintToleration";
  static constexpr absl::string_view kErrReason = "node(s) had untolerated taint(s)";

  // A PluginFactory. No args (any given are ignored, as upstream).
  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  // Its registration (scheduler/plugins/registry.cc): New and the extension points of its
  // interfaces.
  static PluginDescriptor Descriptor();

  absl::string_view Name() const override { return kName; }

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
  // Upstream's isSchedulableAfterNodeChange: queue when the node (added, or before the
  // update) had a NoSchedule/NoExecute taint the pod does not tolerate and has none now.
  absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                    const EventObjects& objects) const override;

 private:
  const Status rejected_ = Status::UnschedulableAndUnresolvable(kErrReason).WithPlugin(kName);
};

}  // namespace trimaran::sched::plugins
