#pragma once
// InterPodAffinity: required and preferred pod affinity and anti-affinity, as
// kube-scheduler's plugins/interpodaffinity (1.31 behaviour; spec
// kube-scheduler-constraints.md §2). Extension points: PreFilter (+AddPod/RemovePod),
// Filter, PreScore, Score, NormalizeScore, EnqueueExtensions. Args: args.h.
//
// PreFilter counts, per (topologyKey, value) of the snapshot's nodes:
//   existing anti-affinity  existing pods' required anti-affinity terms matching the pod;
//   affinity                existing pods matching all the pod's required affinity terms;
//   anti-affinity           existing pods matching each of the pod's required
//                           anti-affinity terms.
// and returns Skip when the pod has no required terms and no existing pod's
// anti-affinity matches it. Filter, in upstream's order and reasons:
//   "node(s) didn't match pod affinity rules"            UnschedulableAndUnresolvable
//   "node(s) didn't match pod anti-affinity rules"       Unschedulable
//   "node(s) didn't satisfy existing pods anti-affinity rules"  Unschedulable
// with the self-affinity bootstrap (the first pod of a group that matches its own terms
// may go anywhere the topology keys exist while no pod matches anywhere).
// PreScore sums preferred terms in both directions (the pod's preferred terms over
// existing pods; existing pods' required affinity at hardPodAffinityWeight and their
// preferred terms over the pod) per topology pair; Score adds the node's pairs;
// NormalizeScore maps [min, max] onto [0, 100] (1.21+: true min and max).
//
// Namespaces: a term's `namespaceSelector` is read against the namespaces' labels from
// the Handle's ObjectLister (the namespace informer): the incoming pod's selectors are
// resolved to namespace names once per PreFilter / PreScore (`{}` keeps matching every
// namespace), and existing pods' terms are matched against the labels of the incoming
// pod's namespace. An unknown namespace has no labels. (The 1.20 test apiserver drops
// the field.)
//
// Cost: for a pod without terms of its own, PreFilter reads only the pods with required
// anti-affinity (the snapshot's HavePodsWithRequiredAntiAffinityList) and PreScore only
// the pods with affinity; a pod with required (preferred) terms walks every pod in
// PreFilter (PreScore), as upstream; both walks are split over the parallelizer.
// Existing pods' terms are parsed once per pod object and cached (upstream keeps them
// parsed in PodInfo). Filter and Score are map lookups
// per node with no allocation.
//
// Thread-safety: PreFilter and PreScore run on the scheduling thread (they update the
// parsed-terms cache); Filter, Score, AddPod and RemovePod only read the cycle state and
// the args and are safe to call concurrently.

#include <memory>
#include <span>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/inter_pod_affinity/affinity_terms.h"
#include "scheduler/plugins/inter_pod_affinity/args.h"

namespace trimaran::sched::plugins {

class InterPodAffinity final : public PreFilterPlugin,
                               public PreFilterExtensions,
                               public FilterPlugin,
                               public PreScorePlugin,
                               public ScorePlugin,
                               public ScoreExtensions,
                               public EnqueueExtensions,
                               public StateExplainer {
 public:
  static constexpr absl::string_view kName = "InterPodAffinity";
  static constexpr absl::string_view kErrReasonAffinityRulesNotMatch =
      "node(s) didn't match pod affinity rules";
  static constexpr absl::string_view kErrReasonAntiAffinityRulesNotMatch =
      "node(s) didn't match pod anti-affinity rules";
  static constexpr absl::string_view kErrReasonExistingAntiAffinityRulesNotMatch =
      "node(s) didn't satisfy existing pods anti-affinity rules";

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  static PluginDescriptor Descriptor();

  InterPodAffinity(InterPodAffinityArgs args, Handle& handle);

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
  // Tables "existingAntiAffinity", "affinity", "antiAffinity" (PreFilter's counts per
  // topology pair) and "score" (PreScore's sums).
  std::vector<StateCount> ExplainState(const CycleState& state) const override;

 private:
  Status UpdateWithPod(CycleState& state, const kube::Pod& pod_to_schedule, const kube::Pod& pod,
                       const NodeInfo& node_info, int64_t multiplier) const;
  // The parsed terms of an existing pod, from the cache (parsed on first sight).
  const PodAffinityTerms& ExistingTerms(const std::shared_ptr<const kube::Pod>& pod);
  // The cached terms of `pod`, or nullptr (a read: safe while nothing writes the cache).
  const PodAffinityTerms* CachedExistingTerms(const std::shared_ptr<const kube::Pod>& pod) const;
  const PodAffinityTerms& CacheExistingTerms(const std::shared_ptr<const kube::Pod>& pod,
                                             std::shared_ptr<const PodAffinityTerms> terms);

  // Existing pods' parsed terms by pod object: a pod object never changes (an update is a
  // new object), so its terms are parsed once, not once per cycle. An entry is valid
  // while its weak_ptr is (the address of a freed pod may be reused); expired entries
  // are swept when the map doubles. Used by PreFilter and PreScore only (the scheduling
  // thread); AddPod/RemovePod parse without it.
  struct CachedTerms {
    std::weak_ptr<const kube::Pod> pod;
    std::shared_ptr<const PodAffinityTerms> terms;
  };
  absl::flat_hash_map<const kube::Pod*, CachedTerms> terms_cache_;
  size_t terms_cache_sweep_at_ = 1024;

  const InterPodAffinityArgs args_;
  Handle& handle_;
  const Status affinity_rejected_;
  const Status anti_affinity_rejected_;
  const Status existing_anti_affinity_rejected_;
};

}  // namespace trimaran::sched::plugins
