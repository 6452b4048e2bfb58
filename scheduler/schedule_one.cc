// The scheduling and binding cycles of one pod (upstream's pkg/scheduler/schedule_one.go)
// as named steps (scheduler.h, "ScheduleOne"):
//
//   ScheduleOne      Pop → FrameworkForPod → SkipPodSchedule → SchedulingCycle →
//                    StartBindingCycle
//   SchedulingCycle  UpdateSnapshot → [RefuseUnsupportedPod] → SchedulePod →
//                    ObserveEvaluated → [RunPostFilter] → AssumeReserveAndPermit; a
//                    failure → HandleFailure
//   BindingCycle     [DropIfStopping] → WaitOnPermit → PreBind → [DropIfStopping] →
//                    Bind → CompleteBinding; a failure → HandleBindingCycleError
//
// The observer (cycle_observer.h) is told at ObserveEvaluated and at the outcome points:
// HandleFailure, DropBinding, CompleteBinding and a failed Bind that the API shows bound.

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "kube/api/pod_status_patch.h"
#include "scheduler/event_recorder.h"
#include "scheduler/framework/cluster_event.h"
#include "scheduler/scheduler.h"
#include "scheduler/unsupported_pods.h"

namespace trimaran::sched {
namespace {

constexpr absl::string_view kResultScheduled = "scheduled";
constexpr absl::string_view kResultUnschedulable = "unschedulable";
constexpr absl::string_view kResultError = "error";

}  // namespace

// ---- The scheduling cycle ----

bool Scheduler::ScheduleOne() {
  std::optional<QueuedPodInfo> popped = queue_->Pop();
  if (!popped.has_value()) return false;
  const std::shared_ptr<const kube::Pod> pod = popped->pod;
  Framework* fwk = FrameworkForPod(*pod);
  if (fwk == nullptr || SkipPodSchedule(*pod)) {
    queue_->Done(*pod);
    return true;
  }
  std::optional<PodAttempt> attempt = SchedulingCycle(*fwk, *std::move(popped));
  if (attempt.has_value()) StartBindingCycle(*std::move(attempt));
  return true;
}

Framework* Scheduler::FrameworkForPod(const kube::Pod& pod) const {
  Framework* fwk = FrameworkFor(pod.spec.scheduler_name);
  if (fwk == nullptr) {
    Log(Component::kMain)
        .error("no profile for schedulerName={} pod={}", pod.spec.scheduler_name,
               kube::NamespacedName(pod));
  }
  return fwk;
}

bool Scheduler::SkipPodSchedule(const kube::Pod& pod) const {
  return kube::IsTerminating(pod) || cache_->IsAssumedPod(pod);
}

std::optional<Scheduler::PodAttempt> Scheduler::SchedulingCycle(Framework& fwk,
                                                                QueuedPodInfo pod_info) {
  PodAttempt attempt{.fwk = &fwk,
                     .pod_info = std::move(pod_info),
                     .cycle = queue_->SchedulingCycle(),
                     .start = clock_.Now(),
                     .state = std::make_shared<CycleState>()};
  const std::shared_ptr<const kube::Pod> pod = attempt.pod_info.pod;
  if (absl::Status s = cache_->UpdateSnapshot(snapshot_); !s.ok()) {
    ObserveEvaluated(attempt, ScheduleResult{});
    HandleFailure(std::move(attempt), Status::FromAbsl(s), nullptr);
    return std::nullopt;
  }
  if (std::optional<UnsupportedPod> refused = RefuseUnsupported(*pod); refused.has_value()) {
    RefuseUnsupportedPod(std::move(attempt), *refused);
    return std::nullopt;
  }
  const ScheduleOptions schedule_options{.deterministic_tie_break =
                                             options_.deterministic_tie_break};
  ScheduleResult result =
      SchedulePod(fwk, *attempt.state, *pod, snapshot_, algo_, random_, schedule_options);
  metrics_->algorithm.Observe(absl::ToDoubleSeconds(clock_.Now() - attempt.start));
  ObserveEvaluated(attempt, result);
  if (!result.status.IsSuccess()) {
    const std::string nominated_node = RunPostFilter(attempt, result);
    HandleFailure(std::move(attempt), result.status,
                  result.status.IsRejected() ? &result.diagnosis : nullptr, nominated_node);
    return std::nullopt;
  }
  attempt.evaluated_nodes = result.evaluated_nodes;
  attempt.feasible_nodes = result.feasible_nodes;
  if (Status s = AssumeReserveAndPermit(attempt, result.suggested_host); !s.IsSuccess()) {
    HandleFailure(std::move(attempt), s, nullptr);
    return std::nullopt;
  }
  return attempt;
}

void Scheduler::RefuseUnsupportedPod(PodAttempt attempt, const UnsupportedPod& refused) {
  // As a PreFilter rejection: no node examined, no preemption.
  ScheduleResult result;
  result.num_all_nodes = static_cast<int>(snapshot_.NumNodes());
  result.diagnosis.pre_filter_msg = refused.status.Message();
  result.diagnosis.unschedulable_plugins.insert(std::string(refused.status.plugin()));
  result.status = Status(Code::kUnschedulableAndUnresolvable,
                         {FitErrorMessage(result.num_all_nodes, result.diagnosis)})
                      .WithPlugin(refused.status.plugin());
  unsupported_pods_->WithLabels({refused.feature}).Inc();
  ObserveEvaluated(attempt, result);
  HandleFailure(std::move(attempt), result.status, &result.diagnosis);
}

void Scheduler::ObserveEvaluated(PodAttempt& attempt, const ScheduleResult& result) {
  // The scores the cycle computed are gone after the next one: the observer reads them now.
  if (observer_ == nullptr) return;
  attempt.observed =
      observer_->OnEvaluated(*attempt.fwk, *attempt.state, *attempt.pod_info.pod, result, algo_);
}

std::string Scheduler::RunPostFilter(PodAttempt& attempt, ScheduleResult& result) {
  PostFilterResult post;
  if (result.status.IsRejected() && attempt.fwk->HasPostFilterPlugins()) {
    const Status ps = attempt.fwk->RunPostFilterPlugins(*attempt.state, *attempt.pod_info.pod,
                                                        result.diagnosis.node_to_status, post);
    if (!ps.IsSuccess()) {
      result.diagnosis.post_filter_msg = ps.Message();
      result.status =
          Status(result.status.code(), {FitErrorMessage(result.num_all_nodes, result.diagnosis)});
    }
  }
  return post.nominated_node_name;
}

Status Scheduler::AssumeReserveAndPermit(PodAttempt& attempt, const std::string& host) {
  Framework& fwk = *attempt.fwk;
  const kube::Pod& pod = *attempt.pod_info.pod;
  auto assumed = std::make_shared<kube::Pod>(pod);
  assumed->spec.node_name = host;
  attempt.assumed = std::move(assumed);
  if (absl::Status s = cache_->AssumePod(attempt.assumed); !s.ok()) return Status::FromAbsl(s);
  // Placed: a nomination (from an earlier preemption) has done its job.
  queue_->DeleteNominatedPodIfExists(pod);
  Status s = fwk.RunReservePluginsReserve(*attempt.state, *attempt.assumed, host);
  if (s.IsSuccess() || s.code() == Code::kSkip) {
    s = fwk.RunPermitPlugins(*attempt.state, attempt.assumed, host);
    if (s.code() == Code::kWait || s.code() == Code::kSkip) s = Status();
  }
  if (!s.IsSuccess()) UnreserveAndForget(fwk, *attempt.state, *attempt.assumed);
  return s;
}

void Scheduler::HandleFailure(PodAttempt attempt, const Status& status, const Diagnosis* diagnosis,
                              const std::string& nominated_node, bool clear_nomination) {
  const bool rejected = status.IsRejected();
  const std::string message = status.Message();
  if (observer_ != nullptr) {
    if (rejected) {
      observer_->OnUnschedulable(std::move(attempt.observed), message, nominated_node);
    } else {
      observer_->OnError(std::move(attempt.observed), message);
    }
  }
  QueuedPodInfo& pod_info = attempt.pod_info;
  pod_info.unschedulable_plugins.clear();
  pod_info.pending_plugins.clear();
  if (rejected) {
    if (diagnosis != nullptr) {
      pod_info.unschedulable_plugins = diagnosis->unschedulable_plugins;
      pod_info.pending_plugins = diagnosis->pending_plugins;
    }
    if (pod_info.unschedulable_plugins.empty() && pod_info.pending_plugins.empty() &&
        !status.plugin().empty()) {
      if (status.code() == Code::kPending) {
        pod_info.pending_plugins.insert(std::string(status.plugin()));
      } else {
        pod_info.unschedulable_plugins.insert(std::string(status.plugin()));
      }
    }
  }
  ObserveAttempt(rejected ? kResultUnschedulable : kResultError, attempt.fwk->profile_name(),
                 attempt.start);
  const std::shared_ptr<const kube::Pod> pod = pod_info.pod;
  if (rejected && VLogIsOn(2)) {
    // kube-scheduler's V(2) line for a pod that fits nowhere.
    Log(Component::kMain)
        .info("\"Unable to schedule pod; no fit; waiting\" pod=\"{}\" err=\"{}\"",
              kube::NamespacedName(*pod), message);
  } else if (!rejected) {
    Log(Component::kMain)
        .error("\"Error scheduling pod; retrying\" pod=\"{}\" cycle={} err=\"{}\"",
               kube::NamespacedName(*pod), attempt.cycle, message);
  }
  if (absl::Status qs = queue_->AddUnschedulableIfNotPresent(std::move(pod_info), attempt.cycle);
      !qs.ok()) {
    Log(Component::kMain).debug("requeue pod={}: {}", kube::NamespacedName(*pod), qs.ToString());
  }
  if (!nominated_node.empty()) queue_->AddNominatedPod(pod, nominated_node);
  if (clear_nomination) queue_->DeleteNominatedPodIfExists(*pod);
  queue_->Done(*pod);

  recorder_->Eventf(*pod, nullptr, EventType::kWarning, "FailedScheduling", "Scheduling", message);

  kube::PodCondition condition;
  condition.type = std::string(kube::kPodScheduled);
  condition.status = kube::ConditionStatus::kFalse;
  condition.reason =
      std::string(rejected ? kube::kPodReasonUnschedulable : kube::kPodReasonSchedulerError);
  condition.message = message;
  const bool nominate =
      !nominated_node.empty() && nominated_node != pod->status.nominated_node_name;
  if (const kube::PodCondition* old = kube::FindCondition(pod->status, kube::kPodScheduled);
      !nominate && !clear_nomination && old != nullptr && old->status == condition.status &&
      old->reason == condition.reason && old->message == condition.message) {
    return;  // nothing would change (upstream updatePod skips this too)
  }
  condition.last_transition_time = clock_.Now();
  kube::PodStatusPatch patch;
  patch.conditions.push_back(std::move(condition));
  if (nominate) patch.nominated_node_name = nominated_node;
  if (clear_nomination) patch.nominated_node_name = "";
  binding_pool_->Submit([this, ns = pod->metadata.namespace_name, name = pod->metadata.name,
                         patch = std::move(patch)] {
    if (Fenced()) return;  // the next leader writes its own
    if (absl::Status s = client_.PatchPodStatus(ns, name, patch, BindingCallOptions()); !s.ok()) {
      Log(Component::kMain).warn("patch status of pod={}/{}: {}", ns, name, s.ToString());
    }
  });
}

void Scheduler::UnreserveAndForget(Framework& fwk, CycleState& state, const kube::Pod& assumed) {
  fwk.RunReservePluginsUnreserve(state, assumed, assumed.spec.node_name);
  if (absl::Status s = cache_->ForgetPod(assumed); !s.ok()) {
    Log(Component::kMain).error("forget pod={}: {}", kube::NamespacedName(assumed), s.ToString());
  }
}

void Scheduler::ObserveAttempt(absl::string_view result, absl::string_view profile,
                               absl::Time start) {
  metrics_->attempts.WithLabels({result, profile}).Inc();
  metrics_->duration.WithLabels({result, profile})
      .Observe(absl::ToDoubleSeconds(clock_.Now() - start));
}

// ---- The binding cycle ----

void Scheduler::StartBindingCycle(PodAttempt attempt) {
  const bool may_wait = attempt.fwk->BindingCycleMayWait(*attempt.state, *attempt.assumed,
                                                         attempt.assumed->spec.node_name);
  attempt.binding_may_wait = may_wait;
  std::function<void()> cycle = [this, attempt = std::move(attempt)]() mutable {
    BindingCycle(std::move(attempt));
  };
  if (may_wait) {
    const absl::Status started = waiting_cycles_->Start(&cycle);
    if (started.ok()) return;
    // No thread to spare: the pool runs it (and holds a worker while it waits).
    Log(Component::kMain).warn("binding cycle on the binding pool: {}", started.ToString());
  }
  binding_pool_->Submit(std::move(cycle));
}

void Scheduler::BindingCycle(PodAttempt attempt) {
  if (DropIfStopping(attempt)) return;
  if (attempt.binding_may_wait) NominateWhileBinding(attempt);
  Framework& fwk = *attempt.fwk;
  const kube::Pod& assumed = *attempt.assumed;
  Status s = fwk.WaitOnPermit(assumed, shutdown_.get_token());
  if (s.IsSuccess()) s = fwk.RunPreBindPlugins(*attempt.state, assumed, assumed.spec.node_name);
  bool bind_attempted = false;
  if (s.IsSuccess()) {
    if (DropIfStopping(attempt)) return;
    bind_attempted = true;
    s = Bind(attempt);
  }
  if (!s.IsSuccess()) {
    HandleBindingCycleError(std::move(attempt), s, bind_attempted);
    return;
  }
  CompleteBinding(std::move(attempt));
}

void Scheduler::NominateWhileBinding(const PodAttempt& attempt) {
  const kube::Pod& pod = *attempt.pod_info.pod;
  const std::string& host = attempt.assumed->spec.node_name;
  if (pod.status.nominated_node_name == host) return;  // nothing would change
  kube::PodStatusPatch patch;
  patch.nominated_node_name = host;
  if (absl::Status s = client_.PatchPodStatus(pod.metadata.namespace_name, pod.metadata.name, patch,
                                              BindingCallOptions());
      !s.ok()) {
    Log(Component::kMain)
        .warn("set nominatedNodeName of pod={} to node={} while binding: {}",
              kube::NamespacedName(pod), host, s.ToString());
  }
}

Status Scheduler::Bind(PodAttempt& attempt) {
  Status s = attempt.fwk->RunBindPlugins(*attempt.state, *attempt.assumed,
                                         attempt.assumed->spec.node_name);
  if (s.code() == Code::kSkip) s = Status::Error("no Bind plugin bound the pod");
  return s;
}

void Scheduler::HandleBindingCycleError(PodAttempt attempt, const Status& status,
                                        bool bind_attempted) {
  // Lost the lease or stopping meanwhile (a wait cancelled, say): no GET, no failure
  // written; the next leader sees whether the POST (if it went out) took effect.
  if (DropIfStopping(attempt)) return;
  const std::shared_ptr<const kube::Pod> assumed = attempt.assumed;
  UnreserveAndForget(*attempt.fwk, *attempt.state, *assumed);
  // The forgotten pod freed room: other pods may fit now (not this one).
  const std::string key = kube::NamespacedName(*assumed);
  queue_->MoveAllToActiveOrBackoffQueue(
      kAssignedPodDeleteEvent, EventObjects{.old_pod = assumed.get()},
      [&key](const kube::Pod& p) { return kube::NamespacedName(p) != key; });
  if (bind_attempted && IsBoundInApi(*assumed)) {
    // Bound after all (by an attempt whose answer was lost, or by someone else): the
    // informer brings it into the cache. Never a failure condition on a bound pod.
    if (observer_ != nullptr) {
      observer_->OnScheduled(std::move(attempt.observed), assumed->spec.node_name);
    }
    queue_->Done(*attempt.pod_info.pod);
    return;
  }
  // Nominated to its node while it waited (NominateWhileBinding): that room is gone.
  const bool clear_nomination = attempt.binding_may_wait;
  HandleFailure(std::move(attempt), status, nullptr, "", clear_nomination);
}

void Scheduler::CompleteBinding(PodAttempt attempt) {
  Framework& fwk = *attempt.fwk;
  const kube::Pod& assumed = *attempt.assumed;
  const QueuedPodInfo& pod_info = attempt.pod_info;
  const std::string& host = assumed.spec.node_name;
  if (observer_ != nullptr) observer_->OnScheduled(std::move(attempt.observed), host);
  if (absl::Status fs = cache_->FinishBinding(assumed); !fs.ok()) {
    Log(Component::kMain)
        .warn("finish binding pod={}: {}", kube::NamespacedName(assumed), fs.ToString());
  }
  ObserveAttempt(kResultScheduled, fwk.profile_name(), attempt.start);
  if (VLogIsOn(2)) {
    Log(Component::kMain)
        .info(
            "\"Successfully bound pod to node\" pod=\"{}\" node=\"{}\" evaluatedNodes={} "
            "feasibleNodes={}",
            kube::NamespacedName(assumed), host, attempt.evaluated_nodes, attempt.feasible_nodes);
  }
  metrics_->pod_attempts.Observe(pod_info.attempts);
  if (pod_info.initial_attempt_timestamp.has_value()) {
    const std::string attempts =
        pod_info.attempts >= 15 ? std::string("15+") : absl::StrCat(pod_info.attempts);
    metrics_->sli.WithLabels({absl::string_view(attempts)})
        .Observe(absl::ToDoubleSeconds(clock_.Now() - *pod_info.initial_attempt_timestamp));
  }
  recorder_->Eventf(
      *pod_info.pod, nullptr, EventType::kNormal, "Scheduled", "Binding",
      absl::StrCat("Successfully assigned ", kube::NamespacedName(*pod_info.pod), " to ", host));
  fwk.RunPostBindPlugins(*attempt.state, assumed, host);
  queue_->Done(*pod_info.pod);
}

bool Scheduler::IsBoundInApi(const kube::Pod& pod) {
  absl::StatusOr<kube::Pod> current =
      client_.GetPod(pod.metadata.namespace_name, pod.metadata.name);
  if (!current.ok() || current->spec.node_name.empty()) return false;
  if (!pod.metadata.uid.empty() && current->metadata.uid != pod.metadata.uid) return false;
  Log(Component::kMain)
      .warn("bind failed but pod={} is bound to node={}: no failure recorded",
            kube::NamespacedName(pod), current->spec.node_name);
  return true;
}

// ---- The fence ----

kube::CallOptions Scheduler::BindingCallOptions() const {
  kube::CallOptions options;
  options.stop = options_.fence_stop;
  if (options_.leading_until) options.deadline = options_.leading_until();
  return options;
}

bool Scheduler::Fenced() const {
  const kube::CallOptions options = BindingCallOptions();
  return options.stop.stop_requested() || clock_.Now() >= options.deadline;
}

absl::string_view Scheduler::DropReason() const {
  if (Fenced()) {
    return "binding dropped: this replica is no longer the leader (the next leader schedules "
           "the pod)";
  }
  if (shutdown_.stop_requested()) {
    return "binding dropped: the scheduler is stopping (the pod stays pending for the next "
           "leader)";
  }
  return "";
}

bool Scheduler::DropIfStopping(PodAttempt& attempt) {
  const absl::string_view why = DropReason();
  if (why.empty()) return false;
  DropBinding(attempt, why);
  return true;
}

void Scheduler::DropBinding(PodAttempt& attempt, absl::string_view why) {
  Framework& fwk = *attempt.fwk;
  const kube::Pod& assumed = *attempt.assumed;
  Log(Component::kMain)
      .debug("pod={} node={}: {}", kube::NamespacedName(assumed), assumed.spec.node_name, why);
  if (observer_ != nullptr) observer_->OnError(std::move(attempt.observed), why);
  // Dropped before WaitOnPermit: the pod may still be held there.
  if (auto waiting = fwk.waiting_pods().Get(assumed); waiting != nullptr) {
    waiting->Reject("", why);
    fwk.waiting_pods().Remove(assumed);
  }
  UnreserveAndForget(fwk, *attempt.state, assumed);
  queue_->Done(*attempt.pod_info.pod);
}

}  // namespace trimaran::sched
