#include "scheduler/backend/queue/priority_queue.h"

#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"

namespace trimaran::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

using PodPtr = std::shared_ptr<const kube::Pod>;

PodPtr NewPod(const std::string& name, int32_t priority = 0) {
  return std::make_shared<const kube::Pod>(
      MakePod().Name(name).Namespace("default").Priority(priority).Obj());
}

PodPtr WithLabel(const PodPtr& pod, const std::string& key, const std::string& value) {
  auto copy = std::make_shared<kube::Pod>(*pod);
  copy->metadata.labels[key] = value;
  return copy;
}

// A PreEnqueue plugin that gates pods with scheduling gates (as SchedulingGates does).
class GatesPlugin final : public PreEnqueuePlugin {
 public:
  absl::string_view Name() const override { return "SchedulingGates"; }
  Status PreEnqueue(const kube::Pod& pod) const override {
    if (pod.spec.scheduling_gates.empty()) return Status();
    return Status::UnschedulableAndUnresolvable("waiting for scheduling gates");
  }
};

// Orders by name, to show that the QueueSort plugin decides activeQ's order.
class ByNameSort final : public QueueSortPlugin {
 public:
  absl::string_view Name() const override { return "ByName"; }
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override {
    return a.pod->metadata.name < b.pod->metadata.name;
  }
};

class PriorityQueueTest : public ::testing::Test {
 protected:
  PriorityQueue& NewQueue(PriorityQueueOptions options = {}) {
    queue_.reset();
    queue_ = std::make_unique<PriorityQueue>(clock_, stats::Scope(registry_, "scheduler_"),
                                             std::move(options));
    return *queue_;
  }

  // Pops the next pod and fails its attempt, rejected by `plugins` (none: an error).
  QueuedPodInfo PopAndFail(std::vector<std::string> plugins,
                           std::vector<std::string> pending_plugins = {}) {
    std::optional<QueuedPodInfo> info = queue_->Pop();
    EXPECT_TRUE(info.has_value());
    const int64_t cycle = queue_->SchedulingCycle();
    QueuedPodInfo failed = *info;
    for (std::string& p : plugins) failed.unschedulable_plugins.insert(std::move(p));
    for (std::string& p : pending_plugins) failed.pending_plugins.insert(std::move(p));
    EXPECT_THAT(queue_->AddUnschedulableIfNotPresent(failed, cycle), IsOk());
    queue_->Done(*info->pod);
    return *info;
  }

  // Where the pod named `name` is: "active", "backoff", "unschedulable" (incl. gated) or "".
  std::string WhereIs(const std::string& name) const {
    const QueueCounts counts = queue_->Counts();
    // PendingPods lists activeQ, then backoffQ, then the unschedulable pool.
    const std::vector<PodPtr> all = queue_->PendingPods();
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i]->metadata.name != name) continue;
      if (i < counts.active) return "active";
      if (i < counts.active + counts.backoff) return "backoff";
      return "unschedulable";
    }
    return "";
  }

  double Pending(absl::string_view queue) {
    return registry_.GaugeFamily("scheduler_pending_pods", "", {"queue"})
        .WithLabels({queue})
        .Value();
  }
  double UnschedulablePods(absl::string_view plugin,
                           absl::string_view profile = "default-scheduler") {
    return registry_.GaugeFamily("scheduler_unschedulable_pods", "", {"plugin", "profile"})
        .WithLabels({plugin, profile})
        .Value();
  }
  double Incoming(absl::string_view queue, absl::string_view event) {
    return registry_.CounterFamily("scheduler_queue_incoming_pods_total", "", {"queue", "event"})
        .WithLabels({queue, event})
        .Value();
  }

  trimaran::testing::FakeClock clock_;
  stats::Registry registry_;
  std::unique_ptr<PriorityQueue> queue_;
};

std::vector<std::string> PopAll(PriorityQueue& queue) {
  std::vector<std::string> names;
  while (queue.Counts().active > 0) names.push_back(queue.Pop()->pod->metadata.name);
  return names;
}

TEST_F(PriorityQueueTest, PrioritySortThenFifo) {
  PriorityQueue& queue = NewQueue();
  // Added in this order, 1 ms apart: a(0) b(10) c(0) d(10) e(-5).
  for (auto [name, prio] : std::vector<std::pair<std::string, int>>{
           {"a", 0}, {"b", 10}, {"c", 0}, {"d", 10}, {"e", -5}}) {
    queue.Add(NewPod(name, prio));
    clock_.Advance(absl::Milliseconds(1));
  }
  // Priority 10 first (b before d: earlier), then 0 (a, c), then -5.
  EXPECT_THAT(PopAll(queue), ElementsAre("b", "d", "a", "c", "e"));
}

TEST_F(PriorityQueueTest, QueueSortPluginDecidesOrder) {
  ByNameSort sort;
  queue_ = std::make_unique<PriorityQueue>(clock_, stats::Scope(registry_, "scheduler_"), sort);
  queue_->Add(NewPod("z", 100));
  queue_->Add(NewPod("m", 0));
  queue_->Add(NewPod("a", -100));
  EXPECT_THAT(PopAll(*queue_), ElementsAre("a", "m", "z"));
}

TEST_F(PriorityQueueTest, BackoffDoublesUpToMax) {
  PriorityQueue& queue = NewQueue();
  queue.Add(NewPod("p"));
  // Each attempt fails with an error (no rejecting plugin) and goes to backoffQ;
  // backoff = min(1 s × 2^(attempts−1), 10 s).
  const absl::Duration want[] = {absl::Seconds(1), absl::Seconds(2),  absl::Seconds(4),
                                 absl::Seconds(8), absl::Seconds(10), absl::Seconds(10)};
  for (int attempt = 1; attempt <= 6; ++attempt) {
    SCOPED_TRACE(attempt);
    const QueuedPodInfo popped = PopAndFail({});
    EXPECT_EQ(popped.attempts, attempt);
    EXPECT_EQ(queue.Counts().backoff, 1u);
    const absl::Duration backoff = want[attempt - 1];
    clock_.Advance(backoff - absl::Milliseconds(1));
    queue.FlushBackoffQCompleted();
    EXPECT_EQ(queue.Counts().backoff, 1u) << "released 1 ms early";
    clock_.Advance(absl::Milliseconds(1));
    queue.FlushBackoffQCompleted();
    EXPECT_EQ(queue.Counts().backoff, 0u);
    EXPECT_EQ(queue.Counts().active, 1u);
  }
}

TEST_F(PriorityQueueTest, BackoffQFlushesInExpiryOrder) {
  PriorityQueue& queue = NewQueue();
  queue.Add(NewPod("slow", 10));
  PopAndFail({});  // slow: attempt 1, backoff 1 s
  clock_.Advance(absl::Seconds(1));
  queue.FlushBackoffQCompleted();
  queue.Add(NewPod("fast", 0));
  // At t1 both fail: slow (priority 10, popped first) for the 2nd time → 2 s, until t3;
  // fast for the 1st time → 1 s, until t2.
  PopAndFail({});
  PopAndFail({});
  EXPECT_EQ(queue.Counts().backoff, 2u);
  clock_.Advance(absl::Seconds(1));  // t2
  queue.FlushBackoffQCompleted();
  EXPECT_EQ(WhereIs("fast"), "active");
  EXPECT_EQ(WhereIs("slow"), "backoff");
  clock_.Advance(absl::Seconds(1));  // t3
  queue.FlushBackoffQCompleted();
  EXPECT_EQ(WhereIs("slow"), "active");
}

TEST_F(PriorityQueueTest, MoveOnlyOnRegisteredEvents) {
  const ClusterEvent kNodeTaint{EventResource::kNode, ActionType::kUpdateNodeTaint, "NodeTaint"};
  const ClusterEvent kNodeLabel{EventResource::kNode, ActionType::kUpdateNodeLabel, "NodeLabel"};
  struct Case {
    std::string name;
    ClusterEvent event;
    absl::Duration wait;  // time between the failures and the event
    PreEnqueueCheck pre_check;
    std::vector<std::string> want_active;
    std::vector<std::string> want_backoff;
  };
  const std::vector<Case> cases = {
      // fit registered NodeAdd; unknown has no registration (= wildcard).
      {"node add after backoff", kNodeAddEvent, absl::Seconds(2), nullptr, {"fit", "unknown"}, {}},
      // Still within the 1 s backoff: to backoffQ instead.
      {"node add during backoff",
       kNodeAddEvent,
       absl::ZeroDuration(),
       nullptr,
       {},
       {"fit", "unknown"}},
      {"node taint", kNodeTaint, absl::Seconds(2), nullptr, {"taint", "unknown"}, {}},
      // Nobody registered node label updates except the wildcard.
      {"node label", kNodeLabel, absl::Seconds(2), nullptr, {"unknown"}, {}},
      {"assigned pod delete",
       kAssignedPodDeleteEvent,
       absl::Seconds(2),
       nullptr,
       {"unknown", "both"},
       {}},
      // An incoming wildcard event moves everyone.
      {"wildcard",
       kWildCardEvent,
       absl::Seconds(2),
       nullptr,
       {"fit", "taint", "unknown", "both"},
       {}},
      {"pre-check filters",
       kWildCardEvent,
       absl::Seconds(2),
       [](const kube::Pod& p) { return p.metadata.name != "taint"; },
       {"fit", "unknown", "both"},
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PriorityQueue& queue = NewQueue({.plugin_events = {
                                         {"Fit", {kNodeAddEvent}},
                                         {"Taint", {kNodeTaint}},
                                         {"Affinity", {kAssignedPodDeleteEvent}},
                                     }});
    // Rejected by: fit → Fit, taint → Taint, unknown → Unknown (no registration),
    // both → Fit and Affinity (either's events move it).
    const std::vector<std::pair<std::string, std::vector<std::string>>> pods = {
        {"fit", {"Fit"}},
        {"taint", {"Taint"}},
        {"unknown", {"Unknown"}},
        {"both", {"Fit", "Affinity"}}};
    for (const auto& [name, plugins] : pods) {
      queue.Add(NewPod(name));
      PopAndFail(plugins);
    }
    ASSERT_EQ(queue.Counts().unschedulable, 4u);
    clock_.Advance(c.wait);
    queue.MoveAllToActiveOrBackoffQueue(c.event, {}, c.pre_check);
    std::vector<std::string> active, backoff;
    for (const auto& [name, plugins] : pods) {
      const std::string where = WhereIs(name);
      if (where == "active") active.push_back(name);
      if (where == "backoff") backoff.push_back(name);
    }
    // "both" also matches NodeAdd through Fit.
    std::vector<std::string> want_active = c.want_active, want_backoff = c.want_backoff;
    if (c.event.label == "NodeAdd") {
      (c.wait > absl::ZeroDuration() ? want_active : want_backoff).push_back("both");
    }
    EXPECT_THAT(active, ::testing::UnorderedElementsAreArray(want_active));
    EXPECT_THAT(backoff, ::testing::UnorderedElementsAreArray(want_backoff));
    EXPECT_EQ(queue.MoveRequestCycle(), queue.SchedulingCycle());
  }
}

TEST_F(PriorityQueueTest, PendingPluginEventSkipsBackoff) {
  PriorityQueue& queue = NewQueue({.plugin_events = {{"Dra", {kNodeAddEvent}}}});
  queue.Add(NewPod("p"));
  QueuedPodInfo info = *queue.Pop();
  info.pending_plugins.insert("Dra");
  ASSERT_THAT(queue.AddUnschedulableIfNotPresent(info, queue.SchedulingCycle()), IsOk());
  queue.Done(*info.pod);
  EXPECT_EQ(WhereIs("p"), "unschedulable");
  queue.MoveAllToActiveOrBackoffQueue(kNodeAddEvent);  // still within its 1 s backoff
  EXPECT_EQ(WhereIs("p"), "active");
}

TEST_F(PriorityQueueTest, MoveRequestDuringCycleSendsToBackoff) {
  struct Case {
    std::string name;
    bool move_before_pop;
    bool move_during_cycle;
    std::string want;
  };
  const Case cases[] = {
      // No move request: the pool.
      {"no move", false, false, "unschedulable"},
      // Move request before the pod's cycle started: moveRequestCycle (0) < cycle (1).
      {"move before pop", true, false, "unschedulable"},
      // Move request while the pod was in flight: moveRequestCycle (1) >= cycle (1).
      {"move during cycle", false, true, "backoff"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PriorityQueue& queue = NewQueue();
    queue.Add(NewPod("p"));
    if (c.move_before_pop) queue.MoveAllToActiveOrBackoffQueue(kNodeAddEvent);
    QueuedPodInfo info = *queue.Pop();
    const int64_t cycle = queue.SchedulingCycle();
    EXPECT_EQ(cycle, 1);
    if (c.move_during_cycle) queue.MoveAllToActiveOrBackoffQueue(kNodeAddEvent);
    info.unschedulable_plugins.insert("Fit");
    ASSERT_THAT(queue.AddUnschedulableIfNotPresent(info, cycle), IsOk());
    queue.Done(*info.pod);
    EXPECT_EQ(WhereIs("p"), c.want);
  }
}

// scheduler_unschedulable_pods as kube-scheduler 1.37: once per rejecting (or pending)
// plugin from the requeue until the pod is popped again or deleted.
TEST_F(PriorityQueueTest, UnschedulablePodsGaugeCountsEachRejectorUntilPopOrDelete) {
  PriorityQueue& queue = NewQueue();
  queue.Add(NewPod("p"));
  queue.Add(NewPod("q"));
  PopAndFail({"NodeResourcesFit", "TaintToleration"});
  PopAndFail({"NodeResourcesFit"}, {"VolumeBinding"});
  EXPECT_EQ(UnschedulablePods("NodeResourcesFit"), 2);
  EXPECT_EQ(UnschedulablePods("TaintToleration"), 1);
  EXPECT_EQ(UnschedulablePods("VolumeBinding"), 1);
  // The pods go back to activeQ (counted still), then p is popped: its counts go.
  clock_.Advance(absl::Minutes(6));
  queue.FlushUnschedulablePodsLeftover();
  std::optional<QueuedPodInfo> popped = queue.Pop();
  ASSERT_TRUE(popped.has_value());
  const std::string first = popped->pod->metadata.name;
  EXPECT_EQ(UnschedulablePods("NodeResourcesFit"), 1);
  EXPECT_EQ(UnschedulablePods(first == "p" ? "TaintToleration" : "VolumeBinding"), 0);
  // The other is deleted while queued: nothing is left.
  queue.Delete(*NewPod(first == "p" ? "q" : "p"));
  EXPECT_EQ(UnschedulablePods("NodeResourcesFit"), 0);
  EXPECT_EQ(UnschedulablePods("TaintToleration"), 0);
  EXPECT_EQ(UnschedulablePods("VolumeBinding"), 0);
}

TEST_F(PriorityQueueTest, AddUnschedulableRejectsQueuedPod) {
  PriorityQueue& queue = NewQueue();
  queue.Add(NewPod("p"));
  QueuedPodInfo info = *queue.Pop();
  queue.Add(NewPod("q"));
  ASSERT_THAT(queue.AddUnschedulableIfNotPresent(info, 1), IsOk());
  EXPECT_THAT(queue.AddUnschedulableIfNotPresent(info, 1),
              StatusIs(absl::StatusCode::kAlreadyExists));
}

TEST_F(PriorityQueueTest, LeftoverFlushAfterFiveMinutes) {
  PriorityQueue& queue = NewQueue();
  queue.Add(NewPod("p"));
  PopAndFail({"Fit"});
  EXPECT_EQ(WhereIs("p"), "unschedulable");
  clock_.Advance(absl::Minutes(5));
  queue.FlushUnschedulablePodsLeftover();
  EXPECT_EQ(WhereIs("p"), "unschedulable") << "exactly 5 min is not longer than 5 min";
  clock_.Advance(absl::Seconds(1));
  queue.FlushUnschedulablePodsLeftover();
  EXPECT_EQ(WhereIs("p"), "active");  // 1 s backoff long over
  EXPECT_EQ(Incoming("active", "UnschedulableTimeout"), 1);
}

TEST_F(PriorityQueueTest, LeftoverFlushToBackoffWhenStillBackingOff) {
  // A short pool timeout (2 s) and a pod with 4 attempts (8 s backoff).
  PriorityQueue& queue = NewQueue({.pod_max_in_unschedulable_pods_duration = absl::Seconds(2)});
  QueuedPodInfo info;
  info.pod = NewPod("p");
  info.attempts = 4;
  info.unschedulable_plugins.insert("Fit");
  ASSERT_THAT(queue.AddUnschedulableIfNotPresent(info, 4), IsOk());
  clock_.Advance(absl::Seconds(3));  // 3 s > 2 s in the pool; 3 s < 8 s backoff
  queue.FlushUnschedulablePodsLeftover();
  EXPECT_EQ(WhereIs("p"), "backoff");
  clock_.Advance(absl::Seconds(5));  // 8 s: backoff over
  queue.FlushBackoffQCompleted();
  EXPECT_EQ(WhereIs("p"), "active");
}

TEST_F(PriorityQueueTest, UpdateInEachSubQueue) {
  struct Case {
    std::string name;
    std::string start;    // where the pod is before the update
    bool spec_change;     // false: only the status changes
    absl::Duration wait;  // time between the failure and the update
    std::string want;
  };
  const Case cases[] = {
      {"active in place", "active", true, absl::ZeroDuration(), "active"},
      {"backoff in place", "backoff", true, absl::ZeroDuration(), "backoff"},
      {"pool, status only: stays", "unschedulable", false, absl::Seconds(2), "unschedulable"},
      {"pool, change during backoff", "unschedulable", true, absl::ZeroDuration(), "backoff"},
      {"pool, change after backoff", "unschedulable", true, absl::Seconds(2), "active"},
      {"unknown pod: added", "", true, absl::ZeroDuration(), "active"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PriorityQueue& queue = NewQueue();
    const PodPtr old_pod = NewPod("p");
    if (!c.start.empty()) queue.Add(old_pod);
    if (c.start == "backoff") PopAndFail({});
    if (c.start == "unschedulable") PopAndFail({"Fit"});
    ASSERT_EQ(WhereIs("p"), c.start);
    clock_.Advance(c.wait);
    PodPtr new_pod;
    if (c.spec_change) {
      new_pod = WithLabel(old_pod, "app", "web");
    } else {
      auto copy = std::make_shared<kube::Pod>(*old_pod);
      copy->status.start_time = clock_.Now();
      copy->metadata.resource_version = "42";
      new_pod = copy;
    }
    queue.Update(*old_pod, new_pod);
    EXPECT_EQ(WhereIs("p"), c.want);
    const std::vector<PodPtr> pending = queue.PendingPods();
    ASSERT_EQ(pending.size(), 1u);
    EXPECT_EQ(pending[0], new_pod) << "the queue holds the new version";
  }
}

TEST_F(PriorityQueueTest, DeleteFromEachSubQueue) {
  for (const std::string start : {"active", "backoff", "unschedulable"}) {
    SCOPED_TRACE(start);
    PriorityQueue& queue = NewQueue();
    const PodPtr pod = NewPod("p");
    queue.Add(pod);
    if (start == "backoff") PopAndFail({});
    if (start == "unschedulable") PopAndFail({"Fit"});
    ASSERT_EQ(WhereIs("p"), start);
    queue.Delete(*pod);
    EXPECT_THAT(queue.PendingPods(), IsEmpty());
    EXPECT_EQ(Pending(start), 0);
  }
}

TEST_F(PriorityQueueTest, ActiveQUpdateReorders) {
  PriorityQueue& queue = NewQueue();
  const PodPtr a = NewPod("a", 1);
  queue.Add(a);
  queue.Add(NewPod("b", 5));
  auto raised = std::make_shared<kube::Pod>(*a);
  raised->spec.priority = 10;
  queue.Update(*a, raised);
  EXPECT_THAT(PopAll(queue), ElementsAre("a", "b"));
}

TEST_F(PriorityQueueTest, PopBlocksUntilAddFromAnotherThread) {
  PriorityQueue& queue = NewQueue();
  std::optional<QueuedPodInfo> popped;
  std::thread popper([&] { popped = queue.Pop(); });
  queue.Add(NewPod("p"));
  popper.join();
  ASSERT_TRUE(popped.has_value());
  EXPECT_EQ(popped->pod->metadata.name, "p");
  EXPECT_EQ(popped->attempts, 1);
  EXPECT_EQ(popped->initial_attempt_timestamp, clock_.Now());
}

TEST_F(PriorityQueueTest, CloseWakesPop) {
  PriorityQueue& queue = NewQueue();
  std::optional<QueuedPodInfo> popped = QueuedPodInfo{};
  std::thread popper([&] { popped = queue.Pop(); });
  queue.Close();
  popper.join();
  EXPECT_FALSE(popped.has_value());
  queue.Add(NewPod("p"));
  EXPECT_FALSE(queue.Pop().has_value()) << "closed: Pop never returns a pod again";
}

TEST_F(PriorityQueueTest, InFlightAccounting) {
  PriorityQueue& queue = NewQueue();
  queue.Add(NewPod("p"));
  queue.Add(NewPod("q"));
  QueuedPodInfo p = *queue.Pop();
  QueuedPodInfo q = *queue.Pop();
  EXPECT_EQ(queue.Counts().in_flight, 2u);
  EXPECT_EQ(queue.SchedulingCycle(), 2);
  queue.Done(*p.pod);
  EXPECT_EQ(queue.Counts().in_flight, 1u);
  queue.Done(*q.pod);
  EXPECT_EQ(queue.Counts().in_flight, 0u);
}

TEST_F(PriorityQueueTest, DeleteWhileInFlightDropsRequeue) {
  PriorityQueue& queue = NewQueue();
  const PodPtr pod = NewPod("p");
  queue.Add(pod);
  QueuedPodInfo info = *queue.Pop();
  queue.Delete(*pod);
  info.unschedulable_plugins.insert("Fit");
  EXPECT_THAT(queue.AddUnschedulableIfNotPresent(info, 1), IsOk());
  EXPECT_THAT(queue.PendingPods(), IsEmpty());
  queue.Done(*pod);
  EXPECT_EQ(queue.Counts().in_flight, 0u);
}

TEST_F(PriorityQueueTest, UpdateWhileInFlightRequeuesNewVersion) {
  PriorityQueue& queue = NewQueue();
  const PodPtr pod = NewPod("p");
  queue.Add(pod);
  QueuedPodInfo info = *queue.Pop();
  const PodPtr updated = WithLabel(pod, "app", "web");
  queue.Update(*pod, updated);
  EXPECT_EQ(queue.Counts().active, 0u) << "no second copy while in flight";
  info.unschedulable_plugins.insert("Fit");
  ASSERT_THAT(queue.AddUnschedulableIfNotPresent(info, 1), IsOk());
  // The spec/labels changed during the attempt: it may help, so backoffQ, not the pool.
  EXPECT_EQ(WhereIs("p"), "backoff");
  EXPECT_EQ(queue.PendingPods()[0], updated);
}

TEST_F(PriorityQueueTest, GatedPods) {
  GatesPlugin gates;
  PriorityQueue& queue = NewQueue(
      {.plugin_events = {{"SchedulingGates",
                          {{EventResource::kPod, ActionType::kUpdatePodSchedulingGatesEliminated,
                            "PodSchedulingGatesEliminated"}}}},
       .pre_enqueue_plugins = {&gates}});
  const PodPtr gated = std::make_shared<const kube::Pod>(
      MakePod().Name("g").Namespace("default").SchedulingGates({"wait"}).Obj());
  queue.Add(gated);
  EXPECT_EQ(queue.Counts().gated, 1u);
  EXPECT_EQ(queue.Counts().unschedulable, 0u);
  EXPECT_EQ(Pending("gated"), 1);
  EXPECT_EQ(Incoming("gated", "PodAdd"), 1);
  EXPECT_EQ(UnschedulablePods("SchedulingGates"), 1);  // counted under its gating plugin
  // A node event does not concern the gating plugin; the 5-minute flush re-checks and
  // keeps it gated.
  queue.MoveAllToActiveOrBackoffQueue(kNodeAddEvent);
  clock_.Advance(absl::Minutes(6));
  queue.FlushUnschedulablePodsLeftover();
  EXPECT_EQ(queue.Counts().gated, 1u);
  // Removing the gates lets it in.
  auto ungated = std::make_shared<kube::Pod>(*gated);
  ungated->spec.scheduling_gates.clear();
  queue.Update(*gated, ungated);
  EXPECT_EQ(queue.Counts().gated, 0u);
  EXPECT_EQ(WhereIs("g"), "active");
  EXPECT_EQ(queue.Pop()->attempts, 1);
  EXPECT_EQ(UnschedulablePods("SchedulingGates"), 0);
}

TEST_F(PriorityQueueTest, QueueingHintsDecideWhichPodsMove) {
  // Affinity queues only for assigned pods labelled app=db; Broken's hint fails (an
  // error queues); Fit registered deletes and scale-downs only, without a hint.
  const ClusterEvent pod_add_or_update{EventResource::kPod,
                                       ActionType::kAdd | ActionType::kUpdatePodLabel, "PodAU"};
  std::vector<std::string> asked;
  PriorityQueue& queue = NewQueue(
      {.plugin_events = {{"Affinity", {pod_add_or_update}},
                         {"Broken", {pod_add_or_update}},
                         {"Fit",
                          {ClusterEvent{EventResource::kPod,
                                        ActionType::kDelete | ActionType::kUpdatePodScaleDown,
                                        "PodDS"}}}},
       .queueing_hints = {{"Affinity",
                           [&](const kube::Pod& pod, const ClusterEvent&,
                               const EventObjects& objects) -> absl::StatusOr<QueueingHint> {
                             asked.push_back(pod.metadata.name);
                             const kube::Pod* p = objects.new_pod;
                             return p != nullptr && p->metadata.labels.contains("app") &&
                                            p->metadata.labels.at("app") == "db"
                                        ? QueueingHint::kQueue
                                        : QueueingHint::kQueueSkip;
                           }},
                          {"Broken",
                           [](const kube::Pod&, const ClusterEvent&,
                              const EventObjects&) -> absl::StatusOr<QueueingHint> {
                             return absl::InternalError("boom");
                           }}}});
  queue.Add(NewPod("aff"));
  PopAndFail({"Affinity"});
  queue.Add(NewPod("plain"));
  PopAndFail({"Fit"});
  clock_.Advance(absl::Seconds(2));

  const PodPtr web = std::make_shared<const kube::Pod>(
      MakePod().Name("web").Namespace("default").Label("app", "web").NodeName("n1").Obj());
  queue.AssignedPodAdded(*web);
  EXPECT_THAT(asked, ::testing::ElementsAre("aff"));  // Fit did not register adds
  EXPECT_EQ(WhereIs("aff"), "unschedulable");         // QueueSkip
  EXPECT_EQ(WhereIs("plain"), "unschedulable");
  EXPECT_EQ(queue.MoveRequestCycle(), 2);  // recorded even when nothing moved

  const PodPtr db = std::make_shared<const kube::Pod>(
      MakePod().Name("db").Namespace("default").Label("app", "db").NodeName("n1").Obj());
  queue.AssignedPodUpdated(*web, *db, ActionType::kUpdatePodLabel);
  EXPECT_EQ(WhereIs("aff"), "active");
  EXPECT_EQ(WhereIs("plain"), "unschedulable");
  // A scale-down frees resources: Fit (no hint) queues.
  queue.AssignedPodUpdated(*db, *db, ActionType::kUpdatePodScaleDown);
  EXPECT_EQ(WhereIs("plain"), "active");

  // A hint that fails counts as Queue.
  queue.Add(NewPod("broken"));
  PopAndFail({"Broken"});
  clock_.Advance(absl::Seconds(2));
  queue.AssignedPodAdded(*web);
  EXPECT_EQ(WhereIs("broken"), "active");
}

TEST_F(PriorityQueueTest, PendingPluginHintSendsToActiveAtOnce) {
  PriorityQueue& queue = NewQueue(
      {.plugin_events = {{"Volume", {kNodeAddEvent}}},
       .queueing_hints = {{"Volume",
                           [](const kube::Pod&, const ClusterEvent&,
                              const EventObjects& objects) -> absl::StatusOr<QueueingHint> {
                             return objects.new_node != nullptr &&
                                            objects.new_node->metadata.name == "good"
                                        ? QueueingHint::kQueue
                                        : QueueingHint::kQueueSkip;
                           }}}});
  queue.Add(NewPod("p"));
  PopAndFail({}, {"Volume"});
  const kube::Node bad = MakeNode().Name("bad").Obj();
  const kube::Node good = MakeNode().Name("good").Obj();
  queue.MoveAllToActiveOrBackoffQueue(kNodeAddEvent, EventObjects{.new_node = &bad});
  EXPECT_EQ(WhereIs("p"), "unschedulable");
  // Still inside its backoff, but a Pending plugin's Queue skips it.
  queue.MoveAllToActiveOrBackoffQueue(kNodeAddEvent, EventObjects{.new_node = &good});
  EXPECT_EQ(WhereIs("p"), "active");
}

// Storage events carry their objects to the hints (PVC, StorageClass, CSINode, CSIDriver
// and CSIStorageCapacity events of the volume plugins), and an event of a resource the
// plugin did not register asks no hint.
TEST_F(PriorityQueueTest, StorageEventObjectsReachTheHints) {
  const ClusterEvent claim_event{EventResource::kPersistentVolumeClaim,
                                 ActionType::kAdd | ActionType::kUpdate, "PvcAddOrUpdate"};
  int asked = 0;
  PriorityQueue& queue = NewQueue(
      {.plugin_events = {{"VolumeBinding", {claim_event}}},
       .queueing_hints = {{"VolumeBinding",
                           [&](const kube::Pod&, const ClusterEvent&,
                               const EventObjects& objects) -> absl::StatusOr<QueueingHint> {
                             ++asked;
                             const auto* claim = EventStorage<kube::PersistentVolumeClaim>(objects);
                             return claim != nullptr && claim->metadata.name == "mine"
                                        ? QueueingHint::kQueue
                                        : QueueingHint::kQueueSkip;
                           }}}});
  queue.Add(NewPod("p"));
  PopAndFail({"VolumeBinding"});
  clock_.Advance(absl::Seconds(2));

  kube::PersistentVolumeClaim other;
  other.metadata.name = "other";
  const kube::StorageObject other_obj = kube::StorageObject::Make(other);
  queue.MoveAllToActiveOrBackoffQueue(
      ClusterEvent{EventResource::kPersistentVolumeClaim, ActionType::kAdd, "StorageAdd"},
      EventObjects{.new_storage = &other_obj});
  EXPECT_EQ(WhereIs("p"), "unschedulable");
  // Another resource: not registered, no hint asked.
  kube::CSIDriver driver;
  driver.metadata.name = "d";
  const kube::StorageObject driver_obj = kube::StorageObject::Make(driver);
  queue.MoveAllToActiveOrBackoffQueue(
      ClusterEvent{EventResource::kCSIDriver, ActionType::kAdd, "StorageAdd"},
      EventObjects{.new_storage = &driver_obj});
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(WhereIs("p"), "unschedulable");

  kube::PersistentVolumeClaim mine;
  mine.metadata.name = "mine";
  const kube::StorageObject old_obj = kube::StorageObject::Make(mine);
  mine.metadata.labels["x"] = "y";
  const kube::StorageObject new_obj = kube::StorageObject::Make(mine);
  queue.MoveAllToActiveOrBackoffQueue(
      ClusterEvent{EventResource::kPersistentVolumeClaim, ActionType::kUpdateOther,
                   "StorageUpdate"},
      EventObjects{.old_storage = &old_obj, .new_storage = &new_obj});
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(WhereIs("p"), "active");
}

TEST_F(PriorityQueueTest, NominatedPods) {
  PriorityQueue& queue = NewQueue();
  const PodPtr p = NewPod("p");
  queue.Add(p);
  EXPECT_FALSE(queue.HasNominatedPods());
  queue.AddNominatedPod(p, "n1");
  EXPECT_TRUE(queue.HasNominatedPods());
  ASSERT_EQ(queue.NominatedPodsForNode("n1").size(), 1u);
  EXPECT_EQ(queue.NominatedPodsForNode("n1")[0].pod, p);
  // An update without status.nominatedNodeName keeps the scheduler's own nomination.
  const PodPtr p2 = WithLabel(p, "a", "b");
  queue.Update(*p, p2);
  ASSERT_EQ(queue.NominatedPodsForNode("n1").size(), 1u);
  EXPECT_EQ(queue.NominatedPodsForNode("n1")[0].pod, p2);
  // The API status names another node: follow it.
  auto p3 = std::make_shared<kube::Pod>(*p2);
  p3->status.nominated_node_name = "n2";
  queue.Update(*p2, p3);
  EXPECT_THAT(queue.NominatedPodsForNode("n1"), IsEmpty());
  EXPECT_EQ(queue.NominatedPodsForNode("n2").size(), 1u);
  // A new pod that already carries a nomination.
  auto q = std::make_shared<kube::Pod>(*NewPod("q"));
  q->status.nominated_node_name = "n2";
  queue.Add(q);
  EXPECT_EQ(queue.NominatedPodsForNode("n2").size(), 2u);
  queue.DeleteNominatedPodIfExists(*p3);
  EXPECT_EQ(queue.NominatedPodsForNode("n2").size(), 1u);
  EXPECT_TRUE(queue.HasNominatedPods());
  queue.Delete(*q);
  EXPECT_THAT(queue.NominatedPodsForNode("n2"), IsEmpty());
  // The lock-free count follows every path that changes the nominator.
  EXPECT_FALSE(queue.HasNominatedPods());
}

TEST_F(PriorityQueueTest, Metrics) {
  PriorityQueue& queue = NewQueue();
  for (const char* name : {"a", "b", "c", "d"}) {
    queue.Add(NewPod(name));
    clock_.Advance(absl::Milliseconds(1));  // FIFO among equal priorities
  }
  PopAndFail({});       // a → backoff
  PopAndFail({"Fit"});  // b → unschedulable
  // Now: active {c, d} = 2, backoff {a} = 1, unschedulable {b} = 1.
  EXPECT_EQ(Pending("active"), 2);
  EXPECT_EQ(Pending("backoff"), 1);
  EXPECT_EQ(Pending("unschedulable"), 1);
  EXPECT_EQ(Pending("gated"), 0);
  EXPECT_EQ(Incoming("active", "PodAdd"), 4);
  EXPECT_EQ(Incoming("backoff", "ScheduleAttemptFailure"), 1);
  EXPECT_EQ(Incoming("unschedulable", "ScheduleAttemptFailure"), 1);
  clock_.Advance(absl::Seconds(1));
  queue.FlushBackoffQCompleted();                      // a back to active (3)
  queue.MoveAllToActiveOrBackoffQueue(kNodeAddEvent);  // b: 1 s passed, active (4)
  EXPECT_EQ(Pending("active"), 4);
  EXPECT_EQ(Pending("backoff"), 0);
  EXPECT_EQ(Pending("unschedulable"), 0);
  EXPECT_EQ(Incoming("active", "BackoffComplete"), 1);
  EXPECT_EQ(Incoming("active", "NodeAdd"), 1);
  EXPECT_THAT(registry_.PrometheusText(),
              HasSubstr("scheduler_pending_pods{queue=\"active\"} 4\n"));
}

TEST_F(PriorityQueueTest, RunFlushesBackoffOnTheClock) {
  PriorityQueue& queue = NewQueue();
  queue.Add(NewPod("p"));
  PopAndFail({});  // backoffQ, 1 s
  std::stop_source stop;
  queue.Run(stop.get_token());
  clock_.Advance(absl::Seconds(2));
  // Pop blocks until the flusher thread (woken by the fake clock) moves the pod.
  std::optional<QueuedPodInfo> popped = queue.Pop();
  ASSERT_TRUE(popped.has_value());
  EXPECT_EQ(popped->attempts, 2);
  stop.request_stop();  // the destructor joins the stopped thread
}

TEST_F(PriorityQueueTest, PrioritySortLessTable) {
  struct Case {
    int32_t prio_a, prio_b;
    int ts_a, ts_b;
    bool want;
  };
  const Case cases[] = {
      {10, 0, 5, 1, true},                        // higher priority wins regardless of time
      {0, 10, 1, 5, false}, {3, 3, 1, 2, true},   // equal priority: earlier first
      {3, 3, 2, 1, false},  {3, 3, 1, 1, false},  // strict: equal is not less
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << c.prio_a << "/" << c.prio_b << " " << c.ts_a << "/" << c.ts_b);
    QueuedPodInfo a{.pod = NewPod("a", c.prio_a), .timestamp = absl::FromUnixSeconds(c.ts_a)};
    QueuedPodInfo b{.pod = NewPod("b", c.prio_b), .timestamp = absl::FromUnixSeconds(c.ts_b)};
    EXPECT_EQ(PrioritySortLess(a, b), c.want);
  }
}

}  // namespace
}  // namespace trimaran::sched
