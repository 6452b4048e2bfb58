#pragma once
// PodTopologySpread: `topologySpreadConstraints` as kube-scheduler's
// plugins/podtopologyspread (1.31 behaviour with the 1.26+ node inclusion policies and
// 1.27+ matchLabelKeys; spec kube-scheduler-constraints.md §3). Extension points:
// PreFilter (+AddPod/RemovePod), Filter, PreScore, Score, NormalizeScore,
// EnqueueExtensions. Args: args.h.
//
// Filter (DoNotSchedule constraints): a node missing a constraint's topology key is
// UnschedulableAndUnresolvable "node(s) didn't match pod topology spread constraints
// (missing required label)"; a node whose domain would exceed maxSkew over the global
// minimum (0 while fewer than minDomains domains exist) is Unschedulable "node(s) didn't
// match pod topology spread constraints". Eligible nodes for counting: every topology
// key present, node affinity honoured unless nodeAffinityPolicy: Ignore, taints honoured
// only with nodeTaintsPolicy: Honor. Only pods of the incoming pod's namespace that are
// not terminating count; a constraint whose selector is {} counts 0 (1.27+).
//
// Score (ScheduleAnyway constraints): per constraint, the matching pods of the node's
// domain weighted by ln(domains + 2) (hostname: ln(candidate nodes + 2)) plus
// maxSkew − 1, rounded; NormalizeScore maps fewer matching pods to higher scores
// (the minimum gets 100).
//
// Default constraints (args `defaultConstraints`, or the System defaults: hostname
// maxSkew 3 and zone maxSkew 5, ScheduleAnyway) apply to pods without constraints of
// their own, with the selector of the Services, ReplicaSets, StatefulSets and
// ReplicationControllers that select the pod (helper::DefaultSelector over the Handle's
// ObjectLister, fed by the scheduler's informers); a pod that nothing selects gets none.
// With the System defaults, nodes without a zone label share the "" zone (Score does not
// require every topology key then, 1.24+).
//
// Thread-safety: immutable after construction; Filter and Score only read the cycle state
// and are safe to call concurrently.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/helper/label_selector.h"
#include "scheduler/plugins/pod_topology_spread/args.h"

namespace trimaran::sched::plugins {

// One constraint of the incoming pod, parsed (upstream topologySpreadConstraint).
struct SpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  helper::Selector selector;
  int32_t min_domains = 1;
  bool honor_node_affinity = true;  // nodeAffinityPolicy Honor (default)
  bool honor_node_taints = false;   // nodeTaintsPolicy Honor (default Ignore)
};

// The pod's constraints with `action`, parsed; matchLabelKeys ANDed onto the selector.
// InvalidArgument for a bad selector.
absl::StatusOr<std::vector<SpreadConstraint>> PodSpreadConstraints(
    const kube::Pod& pod, kube::UnsatisfiableConstraintAction action);

class PodTopologySpread final : public PreFilterPlugin,
                                public PreFilterExtensions,
                                public FilterPlugin,
                                public PreScorePlugin,
                                public ScorePlugin,
                                public ScoreExtensions,
                                public EnqueueExtensions,
                                public StateExplainer {
 public:
  static constexpr absl::string_view kName = "PodTopologySpread";
  static constexpr absl::string_view kErrReasonConstraintsNotMatch =
      "node(s) didn't match pod topology spread constraints";
  static constexpr absl::string_view kErrReasonNodeLabelNotMatch =
      "node(s) didn't match pod topology spread constraints (missing required label)";

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  static PluginDescriptor Descriptor();

  PodTopologySpread(PodTopologySpreadArgs args, Handle& handle);

  absl::string_view Name() const override { return kName; }

  Status PreFilter(CycleState& state, const kube::Pod& pod, std::span<const NodeInfo* const> nodes,
                   PreFilterResult& result) override;
  const PreFilterExtensions* GetPreFilterExtensions() const override { return this; }
  Status AddPod(CycleState& state, const kube::Pod& pod_to_schedule, const PodInfo& pod_to_add,
                const NodeInfo& node_info) const override;
  Status RemovePod(CycleState& state, const kube::Pod& pod_to_schedule,
                   const PodInfo& pod_to_remove, const NodeInfo& node_info) const override;
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
  // queueing_hint.cc (README.md "Queueing").
  absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                    const EventObjects& objects) const override;
  // Tables "filter[i]" (PreFilter's matching pods per domain of hard constraint i, key
  // = its topology key) and "score[i]" (PreScore's, soft constraint i; hostname
  // constraints are counted per node in Score and have no rows).
  std::vector<StateCount> ExplainState(const CycleState& state) const override;

 private:
  Status UpdateWithPod(CycleState& state, const kube::Pod& pod_to_schedule, const kube::Pod& pod,
                       const NodeInfo& node_info, int64_t delta) const;
  // The constraints of `pod` with `action` (spec §3.3): its own when it has any (of
  // either action), else the default constraints with the pod's DefaultSelector (none
  // when nothing selects the pod).
  absl::StatusOr<std::vector<SpreadConstraint>> ConstraintsFor(
      const kube::Pod& pod, kube::UnsatisfiableConstraintAction action) const;

  const PodTopologySpreadArgs args_;
  // The default constraints in force: the system ones, or args' defaultConstraints.
  const std::vector<DefaultSpreadConstraint> defaults_;
  Handle& handle_;
  const Status label_missing_;
  const Status skew_exceeded_;
};

}  // namespace trimaran::sched::plugins
