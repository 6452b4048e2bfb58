#include "scheduler/plugins/coscheduling/coscheduling.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/logging.h"
#include "kube/api/pod_resources.h"

namespace trimaran::sched::plugins {
namespace {

std::string FullName(std::string_view ns, std::string_view name) {
  return absl::StrCat(absl::string_view(ns.data(), ns.size()), "/",
                      absl::string_view(name.data(), name.size()));
}

std::string PodKey(const kube::Pod& pod) {
  return FullName(pod.metadata.namespace_name, pod.metadata.name);
}

// "cpu=4000m, memory=1073741824, pods=3": the resources still missing.
std::string FormatGap(const kube::Resource& gap) {
  std::vector<std::string> parts;
  if (gap.milli_cpu > 0) parts.push_back(absl::StrCat("cpu=", gap.milli_cpu, "m"));
  if (gap.memory > 0) parts.push_back(absl::StrCat("memory=", gap.memory));
  if (gap.ephemeral_storage > 0) {
    parts.push_back(absl::StrCat("ephemeral-storage=", gap.ephemeral_storage));
  }
  std::vector<std::pair<std::string, int64_t>> scalar(gap.scalar.begin(), gap.scalar.end());
  std::sort(scalar.begin(), scalar.end());
  for (const auto& [name, value] : scalar) {
    if (value > 0) parts.push_back(absl::StrCat(name, "=", value));
  }
  if (gap.allowed_pod_number > 0) parts.push_back(absl::StrCat("pods=", gap.allowed_pod_number));
  return absl::StrJoin(parts, ", ");
}

// Takes min(need, free) off `need`; a negative free amount takes nothing.
void Take(int64_t& need, int64_t free) {
  if (need <= 0 || free <= 0) return;
  need -= std::min(need, free);
}

std::atomic<bool> g_logged_unreadable{false};

// Written by PreFilter when it turns the pod away: PostFilter then leaves the group alone
// (the pod never reached Filter, nothing of the group was tried; backing the group off
// again would extend its backoff for as long as its pods keep coming).
constexpr absl::string_view kRejectedAtPreFilterKey = "Coscheduling/rejectedAtPreFilter";
class RejectedAtPreFilter final : public StateData {
 public:
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<RejectedAtPreFilter>();
  }
};

Status RejectAtPreFilter(CycleState& state, std::string message) {
  state.Write(kRejectedAtPreFilterKey, std::make_unique<RejectedAtPreFilter>());
  return Status::UnschedulableAndUnresolvable(message);
}

}  // namespace

kube::Resource ResourceGap(const kube::PodGroup& pg, const std::string& group_full_name,
                           std::span<const NodeInfo* const> nodes) {
  kube::Resource need =
      kube::Resource::FromResourceList(pg.spec.min_resources.value_or(kube::ResourceList{}));
  need.allowed_pod_number = pg.spec.min_member;
  for (const NodeInfo* info : nodes) {
    if (info == nullptr || info->node() == nullptr) continue;
    kube::Resource requested = info->requested();
    int64_t pods = static_cast<int64_t>(info->pods().size());
    for (const PodInfo& p : info->pods()) {
      if (p.pod != nullptr && kube::PodGroupFullNameOf(*p.pod) == group_full_name) {
        requested.Sub(p.request);
        --pods;
      }
    }
    const kube::Resource& alloc = info->allocatable();
    Take(need.milli_cpu, alloc.milli_cpu - requested.milli_cpu);
    Take(need.memory, alloc.memory - requested.memory);
    Take(need.ephemeral_storage, alloc.ephemeral_storage - requested.ephemeral_storage);
    Take(need.allowed_pod_number, alloc.allowed_pod_number - pods);
    for (auto& [name, amount] : need.scalar) {
      auto a = alloc.scalar.find(name);
      auto r = requested.scalar.find(name);
      Take(amount, (a == alloc.scalar.end() ? 0 : a->second) -
                       (r == requested.scalar.end() ? 0 : r->second));
    }
    if (need.IsZero()) break;
  }
  // Report only what is missing.
  need.milli_cpu = std::max<int64_t>(need.milli_cpu, 0);
  need.memory = std::max<int64_t>(need.memory, 0);
  need.ephemeral_storage = std::max<int64_t>(need.ephemeral_storage, 0);
  need.allowed_pod_number = std::max<int64_t>(need.allowed_pod_number, 0);
  for (auto& [unused, amount] : need.scalar) amount = std::max<int64_t>(amount, 0);
  return need;
}

absl::StatusOr<std::unique_ptr<Plugin>> Coscheduling::New(const PluginArgs& args, Handle& handle) {
  absl::StatusOr<CoschedulingArgs> decoded = DecodeCoschedulingArgs(args);
  if (!decoded.ok()) return decoded.status();
  return std::make_unique<Coscheduling>(*decoded, handle);
}

PluginDescriptor Coscheduling::Descriptor() {
  PluginDescriptor d = DescriptorFor<Coscheduling>();
  d.validate_args = ArgsValidatorFrom(&DecodeCoschedulingArgs);
  return d;
}

Coscheduling::Coscheduling(const CoschedulingArgs& args, Handle& handle)
    : args_(args), handle_(handle) {}

absl::Duration Coscheduling::WaitTime(const kube::PodGroup& pg) const {
  absl::Duration wait = args_.permit_waiting_time();
  if (pg.spec.schedule_timeout_seconds.has_value() && *pg.spec.schedule_timeout_seconds > 0) {
    wait = absl::Seconds(*pg.spec.schedule_timeout_seconds);
  }
  return std::min(wait, kMaxPermitTimeout);
}

absl::Time Coscheduling::OrderTime(const QueuedPodInfo& info) const {
  const absl::Time fallback = info.initial_attempt_timestamp.value_or(info.timestamp);
  const std::string_view group = kube::PodGroupNameOf(*info.pod);
  if (group.empty()) return fallback;
  const std::string full = FullName(info.pod->metadata.namespace_name, group);
  {
    absl::ReaderMutexLock lock(&mu_);
    auto it = groups_.find(full);
    if (it != groups_.end() && it->second.last_failed.has_value()) return *it->second.last_failed;
  }
  auto pg = handle_.pod_group_lister().Get(info.pod->metadata.namespace_name, group);
  if (pg == nullptr || !pg->metadata.creation_timestamp.has_value()) return fallback;
  return *pg->metadata.creation_timestamp;
}

bool Coscheduling::Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
  if (a.pod == nullptr || b.pod == nullptr) return a.pod != nullptr && b.pod == nullptr;
  const int32_t pa = kube::PodPriority(*a.pod);
  const int32_t pb = kube::PodPriority(*b.pod);
  if (pa != pb) return pa > pb;
  const absl::Time ta = OrderTime(a);
  const absl::Time tb = OrderTime(b);
  if (ta != tb) return ta < tb;
  // Same time: members of one group stay together, groups in name order.
  std::string ga = kube::PodGroupFullNameOf(*a.pod);
  std::string gb = kube::PodGroupFullNameOf(*b.pod);
  if (ga.empty()) ga = PodKey(*a.pod);
  if (gb.empty()) gb = PodKey(*b.pod);
  if (ga != gb) return ga < gb;
  return PodKey(*a.pod) < PodKey(*b.pod);
}

Status Coscheduling::PreFilter(CycleState& state, const kube::Pod& pod,
                               std::span<const NodeInfo* const> nodes, PreFilterResult& result) {
  (void)result;
  const std::string_view group = kube::PodGroupNameOf(pod);
  if (group.empty()) return Status();
  const std::string& ns = pod.metadata.namespace_name;
  const std::string full = FullName(ns, group);
  const PodGroupLister& lister = handle_.pod_group_lister();
  if (absl::Status health = lister.Health(); !health.ok()) {
    if (!g_logged_unreadable.exchange(true)) {
      Log(Component::kPlugin)
          .warn("Coscheduling: PodGroups cannot be read; pods with the {} label wait: {}",
                kube::kPodGroupLabel, health.message());
    }
    return RejectAtPreFilter(
        state, absl::StrCat("PodGroup ", full, " cannot be read: ", health.message()));
  }
  std::shared_ptr<const kube::PodGroup> pg = lister.Get(ns, group);
  if (pg == nullptr) {
    return RejectAtPreFilter(state, absl::StrCat("PodGroup ", full, " not found"));
  }
  const absl::Time now = handle_.clock().Now();
  {
    absl::ReaderMutexLock lock(&mu_);
    auto it = groups_.find(full);
    if (it != groups_.end() && it->second.backoff_until.has_value() &&
        now < *it->second.backoff_until) {
      return RejectAtPreFilter(state, absl::StrCat("podGroup ", full, " failed recently"));
    }
  }
  const std::vector<std::shared_ptr<const kube::Pod>> pods = lister.Pods(ns, group);
  int64_t quorum_gap =
      static_cast<int64_t>(pg->spec.min_member) - static_cast<int64_t>(pods.size());
  if (quorum_gap > 0) {
    return RejectAtPreFilter(
        state, absl::StrCat("pre-filter pod ", pod.metadata.name,
                            " cannot find enough sibling pods, current pods number: ", pods.size(),
                            ", minMember of group: ", pg->spec.min_member));
  }
  for (const auto& p : pods) {
    if (!p->spec.scheduling_gates.empty()) ++quorum_gap;
  }
  if (quorum_gap > 0) {
    return RejectAtPreFilter(
        state, absl::StrCat("pre-filter pod ", pod.metadata.name,
                            " cannot proceed due to gated pods in the same PodGroup"));
  }
  if (!pg->spec.min_resources.has_value()) return Status();
  {
    absl::ReaderMutexLock lock(&mu_);
    auto it = groups_.find(full);
    if (it != groups_.end() && it->second.permitted_until.has_value() &&
        now < *it->second.permitted_until) {
      return Status();
    }
  }
  const kube::Resource gap = ResourceGap(*pg, full, nodes);
  if (!gap.IsZero()) {
    return RejectAtPreFilter(
        state,
        absl::StrCat("PodGroup ", full,
                     " minResources do not fit the cluster: resource gap: ", FormatGap(gap)));
  }
  absl::MutexLock lock(&mu_);
  groups_[full].permitted_until = now + args_.permit_waiting_time();
  return Status();
}

int Coscheduling::AssignedCountLocked(const std::string& ns, const std::string& group,
                                      const GroupState* gs) const {
  std::set<std::string> assigned;
  if (gs != nullptr) assigned = gs->assumed;
  for (const auto& p : handle_.pod_group_lister().Pods(ns, group)) {
    if (kube::IsAssigned(*p)) assigned.insert(p->metadata.name);
  }
  return static_cast<int>(assigned.size());
}

int Coscheduling::AssignedCount(const std::string& ns, const std::string& group) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = groups_.find(FullName(ns, group));
  return AssignedCountLocked(ns, group, it == groups_.end() ? nullptr : &it->second);
}

int Coscheduling::RejectWaiting(const kube::Pod& trigger, const std::string& ns,
                                const std::string& group, absl::string_view message) {
  int rejected = 0;
  handle_.IterateOverWaitingPods([&](WaitingPodHandle& waiting) {
    const kube::Pod& p = waiting.pod();
    if (p.metadata.namespace_name != ns || kube::PodGroupNameOf(p) != group) return;
    {
      absl::MutexLock lock(&mu_);
      rejected_by_us_.insert(PodKey(p));
    }
    waiting.Reject(kName, message);
    ++rejected;
  });
  if (rejected > 0) {
    const std::string full = FullName(ns, group);
    Log(Component::kPlugin)
        .info("Coscheduling: rejected {} waiting member(s) of PodGroup {} ({}), trigger pod={}",
              rejected, full, message, PodKey(trigger));
    handle_.event_recorder().Eventf(
        trigger, nullptr, EventType::kWarning, "PodGroupRejected", "Scheduling",
        absl::StrCat("PodGroup ", full, ": ", rejected,
                     " waiting member(s) rejected and their reservations released: ", message));
  }
  return rejected;
}

Status Coscheduling::PostFilter(CycleState& state, const kube::Pod& pod,
                                const NodeToStatus& filtered_node_status,
                                PostFilterResult& result) {
  (void)filtered_node_status;
  (void)result;
  if (state.Read<RejectedAtPreFilter>(kRejectedAtPreFilterKey).ok()) {
    return Status(Code::kUnschedulable);
  }
  const std::string_view group_view = kube::PodGroupNameOf(pod);
  const std::string& ns = pod.metadata.namespace_name;
  std::shared_ptr<const kube::PodGroup> pg =
      group_view.empty() ? nullptr : handle_.pod_group_lister().Get(ns, group_view);
  if (pg == nullptr) return Status::Unschedulable("can not find pod group");
  const std::string group(group_view);
  const std::string full = FullName(ns, group);
  const int assigned = AssignedCount(ns, group);
  const int32_t min_member = pg->spec.min_member;
  if (assigned >= min_member) return Status(Code::kUnschedulable);
  // A small gap: later members may still complete the gang.
  const double not_assigned = static_cast<double>(min_member - assigned) / min_member;
  if (not_assigned <= static_cast<double>(args_.pod_group_reject_percentage) / 100.0) {
    return Status(Code::kUnschedulable);
  }
  RejectWaiting(pod, ns, group, "optimistic rejection in PostFilter");
  const absl::Time now = handle_.clock().Now();
  const size_t pods = handle_.pod_group_lister().Pods(ns, group).size();
  {
    absl::MutexLock lock(&mu_);
    GroupState& gs = groups_[full];
    if (args_.pod_group_backoff_seconds > 0 && pods >= static_cast<size_t>(min_member)) {
      gs.backoff_until = now + args_.pod_group_backoff();
    }
    gs.permitted_until.reset();
    gs.deadline.reset();
    gs.last_failed = now;
  }
  return Status::Unschedulable(absl::StrCat("PodGroup ", full, " gets rejected due to Pod ",
                                            pod.metadata.name,
                                            " is unschedulable even after PostFilter"));
}

Status Coscheduling::Reserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) {
  (void)state;
  (void)pod;
  (void)node_name;
  return Status();
}

void Coscheduling::Unreserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) {
  (void)state;
  (void)node_name;
  const std::string_view group_view = kube::PodGroupNameOf(pod);
  if (group_view.empty()) return;
  const std::string group(group_view);
  const std::string& ns = pod.metadata.namespace_name;
  const std::string full = FullName(ns, group);
  {
    absl::MutexLock lock(&mu_);
    auto it = groups_.find(full);
    if (it != groups_.end()) it->second.assumed.erase(pod.metadata.name);
    // Rejected by this plugin with its group: that round is already done.
    if (rejected_by_us_.erase(PodKey(pod)) > 0) return;
    GroupState& gs = groups_[full];
    gs.permitted_until.reset();
    gs.deadline.reset();
    gs.last_failed = handle_.clock().Now();
  }
  if (handle_.pod_group_lister().Get(ns, group) == nullptr) return;
  // Stopping: the scheduler drops every waiting member itself (no event for that).
  if (handle_.shutdown_token().stop_requested()) return;
  RejectWaiting(pod, ns, group, "rejection in Unreserve");
}

Status Coscheduling::Permit(CycleState& state, const kube::Pod& pod, absl::string_view node_name,
                            absl::Duration& timeout) {
  (void)state;
  (void)node_name;
  const std::string_view group_view = kube::PodGroupNameOf(pod);
  if (group_view.empty()) return Status();
  const std::string group(group_view);
  const std::string& ns = pod.metadata.namespace_name;
  std::shared_ptr<const kube::PodGroup> pg = handle_.pod_group_lister().Get(ns, group);
  if (pg == nullptr) return Status::Unschedulable("PodGroup not found");
  const std::string full = FullName(ns, group);
  const absl::Time now = handle_.clock().Now();
  {
    absl::MutexLock lock(&mu_);
    rejected_by_us_.erase(PodKey(pod));
    GroupState& gs = groups_[full];
    gs.assumed.insert(pod.metadata.name);
    const int assigned = AssignedCountLocked(ns, group, &gs);
    if (assigned < pg->spec.min_member) {
      if (!gs.deadline.has_value()) gs.deadline = now + WaitTime(*pg);
      timeout = std::max(*gs.deadline - now, absl::Milliseconds(1));
      return Status::Wait();
    }
    if (gs.deadline.has_value() && now > *gs.deadline - kQuorumMargin) {
      // Too close to the gang's deadline: a member may be timing out right now. Refuse;
      // this pod's Unreserve rejects the others, and the gang retries whole.
      return Status::Unschedulable(absl::StrCat("PodGroup ", full, " reached minMember within ",
                                                absl::FormatDuration(kQuorumMargin),
                                                " of its Permit deadline; the gang is retried"));
    }
    gs.deadline.reset();
    gs.last_failed.reset();
  }
  handle_.IterateOverWaitingPods([&](WaitingPodHandle& waiting) {
    const kube::Pod& p = waiting.pod();
    if (p.metadata.namespace_name == ns && kube::PodGroupNameOf(p) == group) waiting.Allow(kName);
  });
  return Status();
}

std::vector<ClusterEvent> Coscheduling::EventsToRegister() const {
  return {
      ClusterEvent{EventResource::kPodGroup, ActionType::kAll, "PodGroupChange"},
      ClusterEvent{EventResource::kPod, ActionType::kAdd | ActionType::kDelete, "PodAddOrDelete"},
      ClusterEvent{EventResource::kNode, ActionType::kAdd | ActionType::kUpdateNodeAllocatable,
                   "NodeAddOrAllocatable"},
  };
}

}  // namespace trimaran::sched::plugins
