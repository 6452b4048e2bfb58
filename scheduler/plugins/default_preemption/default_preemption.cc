#include "scheduler/plugins/default_preemption/default_preemption.h"

#include <atomic>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/logging.h"
#include "kube/api/pod_status_patch.h"
#include "kube/client.h"
#include "scheduler/framework/types.h"
#include "scheduler/plugins/default_preemption/victims.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kPrefix = "preemption: ";

// Terminating because a scheduler preempted it (1.27+): deletionTimestamp set and
// DisruptionTarget=True with reason PreemptionByScheduler.
bool TerminatingByPreemption(const kube::Pod& pod) {
  if (!kube::IsTerminating(pod)) return false;
  const kube::PodCondition* c =
      kube::FindCondition(pod.status, DefaultPreemption::kDisruptionTarget);
  return c != nullptr && c->status == kube::ConditionStatus::kTrue &&
         c->reason == DefaultPreemption::kReasonPreemptionByScheduler;
}

// By UID (as upstream's GetWaitingPod), by namespace/name for pods without one (tests).
bool SamePod(const kube::Pod& a, const kube::Pod& b) {
  if (!a.metadata.uid.empty() || !b.metadata.uid.empty()) return a.metadata.uid == b.metadata.uid;
  return a.metadata.namespace_name == b.metadata.namespace_name &&
         a.metadata.name == b.metadata.name;
}

Status Prefixed(const Status& s) {
  std::string msg = s.Message();
  if (msg.empty()) return s;
  return Status(s.code(), {absl::StrCat(kPrefix, msg)});
}

}  // namespace

std::vector<DisruptionBudget> ListDisruptionBudgets(const ObjectLister& objects) {
  std::vector<DisruptionBudget> out;
  // The lister answers per namespace: walk the namespaces the informer knows.
  std::vector<std::string> namespaces;
  for (const auto& ns : objects.List(kube::SelectorResource::kNamespaces, "")) {
    namespaces.push_back(ns->metadata.name);
  }
  for (kube::SelectorResource r : {kube::SelectorResource::kPodDisruptionBudgets,
                                   kube::SelectorResource::kPodDisruptionBudgetsV1beta1}) {
    for (const std::string& ns : namespaces) {
      for (const auto& obj : objects.List(r, ns)) {
        DisruptionBudget b;
        b.namespace_name = obj->metadata.namespace_name;
        b.name = obj->metadata.name;
        // A selector that does not compile matches nothing (upstream skips such budgets).
        if (absl::StatusOr<helper::Selector> s = helper::Selector::FromOptional(obj->selector);
            s.ok()) {
          b.selector = *std::move(s);
        }
        b.disruptions_allowed = obj->disruptions_allowed;
        b.disrupted_pods.insert(obj->disrupted_pods.begin(), obj->disrupted_pods.end());
        out.push_back(std::move(b));
      }
    }
  }
  return out;
}

absl::StatusOr<std::unique_ptr<Plugin>> DefaultPreemption::New(const PluginArgs& args,
                                                               Handle& handle) {
  absl::StatusOr<DefaultPreemptionArgs> decoded = DecodeDefaultPreemptionArgs(args);
  if (!decoded.ok()) return decoded.status();
  Handle* h = &handle;
  return std::make_unique<DefaultPreemption>(
      *decoded, handle, [h] { return ListDisruptionBudgets(h->object_lister()); });
}

PluginDescriptor DefaultPreemption::Descriptor() {
  PluginDescriptor d = DescriptorFor<DefaultPreemption>();
  d.validate_args = ArgsValidatorFrom(&DecodeDefaultPreemptionArgs);
  return d;
}

DefaultPreemption::DefaultPreemption(DefaultPreemptionArgs args, Handle& handle,
                                     BudgetSource budgets, uint64_t seed)
    : args_(args),
      handle_(handle),
      budgets_(std::move(budgets)),
      random_(seed),
      attempts_(handle.stats_scopes()
                    .upstream
                    .CounterFamily("preemption_attempts_total",
                                   "Total preemption attempts in the cluster till now")
                    .Get()),
      victims_(handle.stats_scopes()
                   .upstream
                   .HistogramFamily("preemption_victims",
                                    "Number of selected preemption victims for preemption "
                                    "initiated by a single pod",
                                    {}, stats::ExponentialBuckets(1, 2, 7))
                   .Get()) {
  offset_ = [this](int32_t n) {
    return static_cast<int32_t>(std::uniform_int_distribution<int32_t>(0, n - 1)(random_));
  };
}

bool DefaultPreemption::PodEligibleToPreemptOthers(const kube::Pod& pod,
                                                   const NodeToStatus& filtered_node_status,
                                                   std::string& message) const {
  if (pod.spec.preemption_policy == kube::PreemptionPolicy::kNever) {
    message = std::string(kNotEligiblePolicyNever);
    return false;
  }
  const std::string& nominated = pod.status.nominated_node_name;
  if (nominated.empty()) return true;
  // The nominated node cannot take the pod whatever is evicted: try elsewhere.
  if (filtered_node_status.Get(nominated).code() == Code::kUnschedulableAndUnresolvable) {
    return true;
  }
  absl::StatusOr<const NodeInfo*> node = handle_.snapshot_lister().NodeInfos().Get(nominated);
  if (!node.ok()) return true;
  const int32_t priority = kube::PodPriority(pod);
  for (const PodInfo& p : (*node)->pods()) {
    if (kube::PodPriority(*p.pod) < priority && TerminatingByPreemption(*p.pod)) {
      message = std::string(kNotEligibleTerminating);
      return false;
    }
  }
  return true;
}

PreemptionPreview DefaultPreemption::Preview(CycleState& state, const kube::Pod& pod,
                                             const NodeToStatus& filtered_node_status) {
  Plan plan = DryRun(state, pod, filtered_node_status);
  PreemptionPreview preview;
  preview.candidates = static_cast<int>(plan.candidates.size());
  if (!plan.chosen.has_value()) {
    preview.message = plan.status.Message();
    return preview;
  }
  preview.would_preempt = true;
  preview.node = plan.chosen->node_name;
  preview.pdb_violations = plan.chosen->victims.num_pdb_violations;
  for (const std::shared_ptr<const kube::Pod>& v : plan.chosen->victims.pods) {
    preview.victims.push_back(kube::NamespacedName(*v));
  }
  preview.message =
      absl::StrCat("would evict ", preview.victims.size(), " pod(s) on ", preview.node, " (",
                   preview.pdb_violations, " PodDisruptionBudget violation(s), ",
                   preview.candidates, " candidate node(s))");
  return preview;
}

DefaultPreemption::Plan DefaultPreemption::DryRun(CycleState& state, const kube::Pod& pod,
                                                  const NodeToStatus& filtered_node_status) {
  Plan plan;
  std::string message;
  if (!PodEligibleToPreemptOthers(pod, filtered_node_status, message)) {
    plan.status = Status::Unschedulable(absl::StrCat(kPrefix, message));
    return plan;
  }
  const PluginsRunner* runner = handle_.plugins_runner();
  if (runner == nullptr) {
    plan.status = Status::Error("preemption: no PluginsRunner in the Handle");
    return plan;
  }
  const std::span<const NodeInfo* const> all = handle_.snapshot_lister().NodeInfos().List();
  const std::vector<const NodeInfo*> potential =
      filtered_node_status.NodesForStatusCode(all, Code::kUnschedulable);

  Diagnosis diagnosis;
  diagnosis.node_to_status.set_absent_nodes_status(
      Status::UnschedulableAndUnresolvable(kNotHelpful));
  const int n = static_cast<int>(potential.size());
  if (n > 0) {
    const std::vector<DisruptionBudget> budgets =
        budgets_ ? budgets_() : std::vector<DisruptionBudget>();
    const int32_t offset = offset_(n);
    const int32_t k = NumCandidates(args_, n);
    const absl::Time now = handle_.clock().Now();
    // Results per piece, merged in piece order afterwards.
    std::vector<std::optional<Candidate>> found(n);
    std::vector<std::optional<Status>> failed(n);
    std::atomic<int> non_violating{0};
    std::atomic<int> total{0};
    std::atomic<bool> stop{false};
    handle_.parallelizer().Until(
        n,
        [&](int i) {
          if (stop.load(std::memory_order_relaxed)) return;
          const NodeInfo& original = *potential[(offset + i) % n];
          std::unique_ptr<NodeInfo> node = original.Clone();
          std::unique_ptr<CycleState> state_copy = state.Clone();
          Victims victims;
          Status s = SelectVictimsOnNode(*runner, *state_copy, pod, *node, budgets, now, victims);
          if (s.IsSuccess() && !victims.pods.empty()) {
            const bool clean = victims.num_pdb_violations == 0;
            found[i] = Candidate{original.name(), std::move(victims)};
            const int nv = clean ? non_violating.fetch_add(1) + 1 : non_violating.load();
            const int t = total.fetch_add(1) + 1;
            if (nv > 0 && t >= k) stop.store(true, std::memory_order_relaxed);
            return;
          }
          if (s.IsSuccess()) {
            s = Status::Error(
                absl::StrCat("expected at least one victim pod on node ", original.name()));
          }
          failed[i] = std::move(s);
        },
        "Preemption");
    std::vector<Candidate> violating;
    for (int i = 0; i < n; ++i) {
      const std::string& name = potential[(offset + i) % n]->name();
      if (failed[i].has_value()) {
        if (failed[i]->IsError()) {
          plan.status = Prefixed(*failed[i]);
          return plan;
        }
        diagnosis.node_to_status.Set(name, *failed[i]);
      } else if (found[i].has_value()) {
        std::vector<Candidate>& list =
            found[i]->victims.num_pdb_violations == 0 ? plan.candidates : violating;
        if (static_cast<int32_t>(list.size()) < k) list.push_back(*std::move(found[i]));
      }
    }
    for (Candidate& c : violating) plan.candidates.push_back(std::move(c));
    if (!plan.candidates.empty()) {
      const int best = PickOneNodeForPreemption(plan.candidates, now);
      plan.chosen = plan.candidates[best];
      plan.status = Status();
      return plan;
    }
  }
  plan.no_room = true;
  plan.status = Status::Unschedulable(
      absl::StrCat(kPrefix, FitErrorMessage(static_cast<int>(all.size()), diagnosis)));
  return plan;
}

Status DefaultPreemption::PostFilter(CycleState& state, const kube::Pod& pod,
                                     const NodeToStatus& filtered_node_status,
                                     PostFilterResult& result) {
  attempts_.Inc();  // every PostFilter call, as upstream's deferred increment
  Plan plan = DryRun(state, pod, filtered_node_status);
  if (!plan.status.IsSuccess() || !plan.chosen.has_value()) {
    // Not eligible keeps the nomination; no room anywhere drops it (upstream clears it
    // when no node could help or no candidate was found).
    if (plan.no_room) ClearNominatedNodeName(pod);
    return plan.status;
  }
  victims_.Observe(static_cast<double>(plan.chosen->victims.pods.size()));
  if (Status s = PrepareCandidate(*plan.chosen, pod); !s.IsSuccess()) return s;
  result.nominated_node_name = plan.chosen->node_name;
  return Status();
}

void DefaultPreemption::ClearNominatedNodeName(const kube::Pod& pod) {
  if (pod.status.nominated_node_name.empty()) return;
  kube::PodStatusPatch patch;
  patch.nominated_node_name = "";
  if (absl::Status s = handle_.client().PatchPodStatus(
          pod.metadata.namespace_name, pod.metadata.name, patch, handle_.binding_call_options());
      !s.ok() && !absl::IsNotFound(s)) {
    Log(Component::kPlugin)
        .warn("clear nominatedNodeName of pod={}: {}", kube::NamespacedName(pod), s.ToString());
  }
}

Status DefaultPreemption::CheckFence(const kube::Pod& victim) {
  const absl::Status s =
      kube::CheckCallOptions(handle_.binding_call_options(), handle_.clock().Now(), "preemption");
  if (s.ok()) return Status();
  return Status::Error(absl::StrCat("preemption: not evicting ", kube::NamespacedName(victim),
                                    ": the lease may have passed to another replica (", s.message(),
                                    ")"));
}

bool DefaultPreemption::RejectIfWaiting(const kube::Pod& victim) {
  bool rejected = false;
  handle_.IterateOverWaitingPods([&](WaitingPodHandle& waiting) {
    if (rejected || !SamePod(waiting.pod(), victim)) return;
    waiting.Reject(kName, "preempted");
    rejected = true;
  });
  if (rejected) {
    Log(Component::kPlugin)
        .info("preemption rejected a pod waiting at Permit pod={} node={}",
              kube::NamespacedName(victim), victim.spec.node_name);
  }
  return rejected;
}

Status DefaultPreemption::EvictVictim(const kube::Pod& victim, const kube::Pod& pod) {
  kube::Client& client = handle_.client();
  const std::string& ns = victim.metadata.namespace_name;
  const std::string& name = victim.metadata.name;
  kube::PodCondition condition;
  condition.type = std::string(kDisruptionTarget);
  condition.status = kube::ConditionStatus::kTrue;
  condition.reason = std::string(kReasonPreemptionByScheduler);
  condition.message =
      absl::StrCat(pod.spec.scheduler_name, ": preempting to accommodate a higher priority pod");
  const kube::PodCondition* old = kube::FindCondition(victim.status, kDisruptionTarget);
  if (old == nullptr || old->status != condition.status || old->reason != condition.reason ||
      old->message != condition.message) {
    condition.last_transition_time = handle_.clock().Now();
    kube::PodStatusPatch patch;
    patch.conditions.push_back(std::move(condition));
    if (absl::Status s = client.PatchPodStatus(ns, name, patch, handle_.binding_call_options());
        !s.ok()) {
      if (absl::IsNotFound(s)) return Status();  // already gone
      return Status::Error(
          absl::StrCat("preemption: patch victim ", ns, "/", name, ": ", s.message()));
    }
  }
  if (absl::Status s = client.DeletePod(ns, name, handle_.binding_call_options());
      !s.ok() && !absl::IsNotFound(s)) {
    return Status::Error(
        absl::StrCat("preemption: delete victim ", ns, "/", name, ": ", s.message()));
  }
  return Status();
}

void DefaultPreemption::ClearLowerNominations(const std::string& node_name, const kube::Pod& pod) {
  PodNominator* nominator = handle_.nominator();
  if (nominator == nullptr) return;
  const int32_t priority = kube::PodPriority(pod);
  for (const PodInfo& p : nominator->NominatedPodsForNode(node_name)) {
    if (kube::PodPriority(*p.pod) >= priority) continue;
    nominator->DeleteNominatedPodIfExists(*p.pod);
    ClearNominatedNodeName(*p.pod);
  }
}

Status DefaultPreemption::PrepareCandidate(const Candidate& candidate, const kube::Pod& pod) {
  for (const std::shared_ptr<const kube::Pod>& victim : candidate.victims.pods) {
    // Each eviction acts as the leader: none once the lease may be lost (the calls
    // themselves carry the same fence, for a loss while they are in flight).
    if (Status s = CheckFence(*victim); !s.IsSuccess()) return s;
    // Upstream's order: a victim held at Permit is rejected (its binding cycle unreserves
    // it), never deleted; any other victim gets DisruptionTarget, then DELETE.
    if (!RejectIfWaiting(*victim)) {
      if (Status s = EvictVictim(*victim, pod); !s.IsSuccess()) return s;
    }
    handle_.event_recorder().Eventf(
        *victim, &pod, EventType::kNormal, "Preempted", "Preempting",
        absl::StrCat("Preempted by pod ", pod.metadata.uid, " on node ", candidate.node_name));
  }
  // Lower-priority pods nominated to this node lose their nomination: the room is for
  // this pod now.
  ClearLowerNominations(candidate.node_name, pod);
  return Status();
}

}  // namespace trimaran::sched::plugins
