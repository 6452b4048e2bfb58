#pragma once
// DefaultPreemption: the PostFilter plugin that makes room for a pod that fits nowhere
// by evicting lower-priority pods from one node (upstream's defaultpreemption plugin and
// preemption.Evaluator, spec kube-scheduler-constraints.md §9). Described in README.md
// in this folder.
//
//   PostFilter: eligibility -> potential nodes (status Unschedulable) -> dry run on
//   clones over numCandidates nodes from a random offset -> pick one node -> write:
//   per victim, Reject when it waits at Permit, else DisruptionTarget condition +
//   DELETE; a "Preempted" event; clear the nominations of lower-priority pods on that
//   node -> result.nominated_node_name.
//
//   The writes act as the leader and are fenced like Bind: each carries
//   Handle::binding_call_options() (the lease's stop and LeadingUntil() deadline), and
//   no victim is evicted once those options no longer allow a call (kError instead).
//   The scheduler then nominates the preemptor (status.nominatedNodeName and the queue's
//   nominator) and requeues it.
//
// Thread-safety: PostFilter and DryRun run on the scheduling thread (one pod at a time);
// the dry run fans out over the Handle's Parallelizer with a private copy of the node
// and state per node.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/stats/stats.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/default_preemption/args.h"
#include "scheduler/plugins/default_preemption/disruption_budget.h"
#include "scheduler/plugins/default_preemption/pick_node.h"

namespace trimaran::sched::plugins {

class DefaultPreemption final : public PostFilterPlugin, public PreemptionPreviewer {
 public:
  static constexpr absl::string_view kName = "DefaultPreemption";
  static constexpr absl::string_view kNotEligiblePolicyNever =
      "not eligible due to preemptionPolicy=Never.";
  static constexpr absl::string_view kNotEligibleTerminating =
      "not eligible due to a terminating pod on the nominated node.";
  static constexpr absl::string_view kNotHelpful = "Preemption is not helpful for scheduling";
  // The DisruptionTarget condition a victim gets before it is deleted.
  static constexpr std::string_view kDisruptionTarget = "DisruptionTarget";
  static constexpr std::string_view kReasonPreemptionByScheduler = "PreemptionByScheduler";

  // The budgets preemption respects (PodDisruptionBudgets from the daemon's informer).
  using BudgetSource = std::function<std::vector<DisruptionBudget>()>;

  static absl::StatusOr<std::unique_ptr<Plugin>> New(const PluginArgs& args, Handle& handle);
  static PluginDescriptor Descriptor();

  // `budgets` null: no budgets. `seed` seeds the random start offset of the dry run.
  DefaultPreemption(DefaultPreemptionArgs args, Handle& handle, BudgetSource budgets,
                    uint64_t seed = std::random_device()());

  absl::string_view Name() const override { return kName; }

  Status PostFilter(CycleState& state, const kube::Pod& pod,
                    const NodeToStatus& filtered_node_status, PostFilterResult& result) override;

  // What preemption would do, without any API call: the chosen node and its victims, or
  // why there is none (the status PostFilter would return, "preemption: " included).
  struct Plan {
    Status status;
    std::optional<Candidate> chosen;
    // Every candidate the dry run found, in dry-run order (non-violating first).
    std::vector<Candidate> candidates;
    // No node could take the pod by preemption (not set when the pod was not eligible):
    // PostFilter then clears its nomination.
    bool no_room = false;
  };
  Plan DryRun(CycleState& state, const kube::Pod& pod, const NodeToStatus& filtered_node_status);
  // DryRun, summarised for the explainer.
  PreemptionPreview Preview(CycleState& state, const kube::Pod& pod,
                            const NodeToStatus& filtered_node_status) override;

  // Whether `pod` may preempt at all (upstream PodEligibleToPreemptOthers); `message` gets
  // the reason when not.
  bool PodEligibleToPreemptOthers(const kube::Pod& pod, const NodeToStatus& filtered_node_status,
                                  std::string& message) const;

  // Tests: the dry run's start offset among n potential nodes (default: random).
  void SetOffsetForTest(std::function<int32_t(int32_t n)> offset) { offset_ = std::move(offset); }

 private:
  // Evicts the victims and clears lower-priority nominations on the node (upstream
  // prepareCandidate). kError on an API failure other than NotFound, and before the
  // first victim not yet evicted once the fence is closed.
  Status PrepareCandidate(const Candidate& candidate, const kube::Pod& pod);
  // kError when Handle::binding_call_options() no longer allow a call (the lease is lost
  // or past LeadingUntil): nothing may be evicted then.
  Status CheckFence(const kube::Pod& victim);
  // Rejects `victim` when it is held at Permit in this profile; whether it was.
  bool RejectIfWaiting(const kube::Pod& victim);
  // DisruptionTarget condition, then DELETE, both fenced. NotFound is success.
  Status EvictVictim(const kube::Pod& victim, const kube::Pod& pod);
  // Lower-priority pods nominated to `node_name` lose their nomination.
  void ClearLowerNominations(const std::string& node_name, const kube::Pod& pod);
  // Patches status.nominatedNodeName "" on `pod` when it has one (fenced).
  void ClearNominatedNodeName(const kube::Pod& pod);

  const DefaultPreemptionArgs args_;
  Handle& handle_;
  BudgetSource budgets_;
  std::mt19937_64 random_;
  std::function<int32_t(int32_t n)> offset_;
  // kube-scheduler's scheduler_preemption_attempts_total and scheduler_preemption_victims
  // (the Handle's upstream scope).
  stats::Counter& attempts_;
  stats::Histogram& victims_;
};

// The budgets the Handle's ObjectLister holds (policy/v1 and policy/v1beta1
// PodDisruptionBudgets, whichever the daemon's informer watches), in every namespace the
// lister's namespaces informer knows (the lister answers per namespace).
std::vector<DisruptionBudget> ListDisruptionBudgets(const ObjectLister& objects);

}  // namespace trimaran::sched::plugins
