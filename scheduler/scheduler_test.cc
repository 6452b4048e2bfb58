#include "scheduler/scheduler.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "common/stats/registry.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/api/binding.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/storage_wrappers.h"
#include "kube/testing/wrappers.h"
#include "scheduler/decisions/decision_ring.h"
#include "scheduler/event_recorder.h"
#include "scheduler/framework/fallback_notes.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/scheduler_test_util.h"
#include "scheduler/testing/fake_plugins.h"

namespace trimaran::sched {
namespace {

using ::testing::HasSubstr;
using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;
using ::trimaran::testing::StatusIs;

class SchedulerTest : public ::testing::Test {
 protected:
  void Start(const std::string& yaml, SchedulerOptions options = {}) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<ProfileConfig> profiles,
                                  scheduler_testing::ProfilesFromYaml(yaml));
    StartWithProfiles(std::move(profiles), std::move(options));
  }
  // As Start, with profiles that may name plugins registered in plugin_registry_ first.
  void StartWithProfiles(std::vector<ProfileConfig> profiles, SchedulerOptions options = {}) {
    TRIMARAN_ASSERT_OK(plugins::RegisterInTreePlugins(plugin_registry_));
    options.parallelism = 2;
    options.binding_parallelism = 2;
    options.run_queue_flushers = false;
    recorder_ =
        std::make_unique<AsyncEventRecorder>(client_, clock_, stats::Scope(stats_, "recorder_"));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        sched_, Scheduler::Create(std::move(profiles), plugin_registry_, client_, clock_,
                                  StatsScopes{.upstream = stats::Scope(stats_, "scheduler_"),
                                              .own = stats::Scope(stats_, "trimaran_")},
                                  options, recorder_.get()));
  }

  void AddNode(const kube::Node& node) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Node created, client_.CreateNode(node));
    sched_->OnNodeAdd(std::make_shared<const kube::Node>(std::move(created)));
  }
  std::shared_ptr<const kube::Pod> AddPod(const kube::Pod& pod) {
    absl::StatusOr<kube::Pod> created = client_.CreatePod(pod);
    TRIMARAN_EXPECT_OK(created.status());
    auto ptr = std::make_shared<const kube::Pod>(*created);
    sched_->OnPodAdd(ptr);
    return ptr;
  }
  // Schedules every pod in activeQ, then waits for the binding cycles and events.
  void Drain() {
    while (sched_->queue().Counts().active > 0) ASSERT_TRUE(sched_->ScheduleOne());
    sched_->WaitForBindings();
    recorder_->Flush();
  }
  std::vector<kube::Event> EventsWithReason(absl::string_view reason) {
    std::vector<kube::Event> out;
    for (const kube::Event& e : client_.Events()) {
      if (e.reason == reason) out.push_back(e);
    }
    return out;
  }

  ::trimaran::testing::FakeClock clock_;
  kube::testing::FakeClient client_{clock_};
  stats::Registry stats_;
  Registry plugin_registry_;
  std::unique_ptr<AsyncEventRecorder> recorder_;
  std::unique_ptr<Scheduler> sched_;
};

kube::Node SmallNode(const std::string& name, const std::string& cpu) {
  return MakeNode().Name(name).Capacity({{"cpu", cpu}, {"memory", "8Gi"}, {"pods", "110"}}).Obj();
}

TEST_F(SchedulerTest, BindsOurPodsAndIgnoresOtherSchedulers) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  for (int i = 0; i < 3; ++i) AddNode(SmallNode(absl::StrFormat("node-%d", i), "4"));
  for (int i = 0; i < 5; ++i) {
    AddPod(MakePod()
               .Name(absl::StrFormat("p-%d", i))
               .Namespace("default")
               .Req({{"cpu", "500m"}})
               .Obj());
  }
  AddPod(MakePod().Name("foreign").Namespace("default").SchedulerName("other").Obj());
  EXPECT_EQ(sched_->queue().Counts().active, 5u);  // the foreign pod is not queued

  Drain();

  const std::vector<kube::Binding> bindings = client_.Bindings();
  ASSERT_EQ(bindings.size(), 5u);
  for (const kube::Binding& b : bindings) {
    SCOPED_TRACE(b.metadata.name);
    EXPECT_NE(b.metadata.name, "foreign");
    EXPECT_THAT(b.target.name, HasSubstr("node-"));
  }
  const std::vector<kube::Event> scheduled = EventsWithReason("Scheduled");
  ASSERT_EQ(scheduled.size(), 5u);
  EXPECT_EQ(scheduled[0].type, "Normal");
  EXPECT_EQ(scheduled[0].action, "Binding");
  EXPECT_EQ(scheduled[0].reporting_controller, "default-scheduler");  // the profile's name
  EXPECT_THAT(scheduled[0].note, HasSubstr("Successfully assigned default/p-"));
  EXPECT_EQ(sched_->cache().PodCount(), 5);  // assumed until the informer confirms
  const QueueCounts counts = sched_->queue().Counts();
  EXPECT_EQ(counts.active + counts.backoff + counts.unschedulable + counts.in_flight, 0u);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod foreign, client_.GetPod("default", "foreign"));
  EXPECT_EQ(foreign.spec.node_name, "");
  EXPECT_TRUE(foreign.status.conditions.empty());
}

TEST_F(SchedulerTest, UnschedulablePodGetsConditionEventAndNodeAddMakesItFit) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "1"));
  AddNode(SmallNode("node-b", "1"));
  AddPod(MakePod().Name("big").Namespace("default").Req({{"cpu", "2"}}).Obj());

  Drain();

  EXPECT_TRUE(client_.Bindings().empty());
  const auto patches = client_.StatusPatches();
  ASSERT_EQ(patches.size(), 1u);
  ASSERT_EQ(patches[0].second.conditions.size(), 1u);
  const kube::PodCondition& cond = patches[0].second.conditions[0];
  EXPECT_EQ(cond.type, "PodScheduled");
  EXPECT_EQ(cond.status, kube::ConditionStatus::kFalse);
  EXPECT_EQ(cond.reason, "Unschedulable");
  // Both 1-CPU nodes lack the 2 CPUs requested; preemption (DefaultPreemption, in the
  // default profile) cannot help: the request exceeds the nodes' allocatable
  // (UnschedulableAndUnresolvable).
  EXPECT_EQ(cond.message,
            "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 "
            "Preemption is not helpful for scheduling.");
  const std::vector<kube::Event> failed = EventsWithReason("FailedScheduling");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].type, "Warning");
  EXPECT_EQ(failed[0].action, "Scheduling");
  EXPECT_EQ(failed[0].note, cond.message);
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 1u);  // requeued, waiting for an event

  // A big node arrives: NodeResourcesFit registered NodeAdd, so the pod moves (to
  // backoffQ: its 1 s backoff has not expired on the fake clock).
  AddNode(SmallNode("node-big", "8"));
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 0u);
  clock_.Advance(absl::Seconds(2));
  sched_->queue().FlushBackoffQCompleted();
  Drain();
  const std::vector<kube::Binding> bindings = client_.Bindings();
  ASSERT_EQ(bindings.size(), 1u);
  EXPECT_EQ(bindings[0].target.name, "node-big");
}

// A pod with DRA resource claims (or a Workload scheduling group) is never bound: it is
// refused before PreFilter with a message naming the field, and counted.
TEST_F(SchedulerTest, PodsThatNeedDraOrTheWorkloadApiAreRefusedNotBoundBlind) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "4"));
  AddNode(SmallNode("node-b", "4"));
  kube::Pod claims = MakePod().Name("gpu").Namespace("default").Req({{"cpu", "1"}}).Obj();
  claims.spec.resource_claims = {{.name = "gpu", .resource_claim_template_name = "one-gpu"}};
  kube::Pod grouped = MakePod().Name("gang-0").Namespace("default").Req({{"cpu", "1"}}).Obj();
  grouped.spec.scheduling_group = kube::PodSchedulingGroup{.pod_group_name = "spark-pi"};
  AddPod(claims);
  AddPod(grouped);
  AddPod(MakePod().Name("plain").Namespace("default").Req({{"cpu", "1"}}).Obj());

  Drain();

  const std::vector<kube::Binding> bindings = client_.Bindings();
  ASSERT_EQ(bindings.size(), 1u);
  EXPECT_EQ(bindings[0].metadata.name, "plain");
  std::map<std::string, std::string> notes;  // pod -> FailedScheduling note
  for (const kube::Event& e : EventsWithReason("FailedScheduling")) {
    notes[e.regarding.name] = e.note;
  }
  EXPECT_EQ(notes["gpu"],
            "0/2 nodes are available: pod uses Dynamic Resource Allocation (spec.resourceClaims: "
            "gpu), which trimaran does not implement; schedule it with kube-scheduler "
            "(spec.schedulerName: default-scheduler).");
  EXPECT_THAT(notes["gang-0"], ::testing::HasSubstr("scheduling group \"spark-pi\""));
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 2u);
  const std::string text = stats_.PrometheusText();
  EXPECT_THAT(text, ::testing::HasSubstr(
                        "trimaran_unsupported_pods_total{feature=\"dynamic_resources\"} 1"));
  EXPECT_THAT(text,
              ::testing::HasSubstr("trimaran_unsupported_pods_total{feature=\"workload\"} 1"));
}

// Queueing hints end to end: a pod kept off a node by an existing pod's required
// anti-affinity waits through unrelated events and moves as soon as that pod is deleted
// (upstream skips this deletion, kubernetes#134393, and the pod waits for the 5-minute
// flush).
TEST_F(SchedulerTest, DeletingTheBlockingPodRequeuesAPodRejectedByItsAntiAffinity) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(MakeNode()
              .Name("node-a")
              .Label("kubernetes.io/hostname", "node-a")
              .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
              .Obj());
  const auto guard =
      AddPod(MakePod()
                 .Name("guard")
                 .Namespace("default")
                 .NodeName("node-a")
                 .PodAntiAffinity("kubernetes.io/hostname",
                                  kube::testing::MakeLabelSelector().In("app", {"web"}).Obj())
                 .Obj());
  AddPod(MakePod().Name("web").Namespace("default").Label("app", "web").Obj());
  Drain();
  ASSERT_TRUE(client_.Bindings().empty());
  ASSERT_EQ(sched_->queue().Counts().unschedulable, 1u);

  // An unrelated pod arrives: InterPodAffinity's hint says QueueSkip.
  AddPod(MakePod().Name("other").Namespace("default").Label("app", "db").NodeName("node-a").Obj());
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 1u);

  sched_->OnPodDelete(guard);
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 0u);
  clock_.Advance(absl::Seconds(2));
  sched_->queue().FlushBackoffQCompleted();
  Drain();
  ASSERT_EQ(client_.Bindings().size(), 1u);
  EXPECT_EQ(client_.Bindings()[0].target.name, "node-a");
}

TEST_F(SchedulerTest, GatedPodIsNeverAttemptedAndBindsOnceItsLastGateIsRemoved) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "4"));
  const std::shared_ptr<const kube::Pod> gated =
      AddPod(MakePod().Name("gated").Namespace("default").SchedulingGates({"a", "b"}).Obj());
  EXPECT_EQ(sched_->queue().Counts().gated, 1u);
  EXPECT_EQ(sched_->queue().Counts().active, 0u);
  // Node events and the flush of old unschedulable pods do not move it.
  AddNode(SmallNode("node-b", "4"));
  clock_.Advance(absl::Minutes(6));
  sched_->queue().FlushUnschedulablePodsLeftover();
  Drain();
  EXPECT_EQ(sched_->queue().Counts().gated, 1u);
  EXPECT_TRUE(client_.Bindings().empty());
  EXPECT_TRUE(client_.StatusPatches().empty()) << "no PodScheduled=False on a gated pod";
  EXPECT_TRUE(EventsWithReason("FailedScheduling").empty());

  // One gate removed: still gated.
  auto one_left = std::make_shared<kube::Pod>(*gated);
  one_left->spec.scheduling_gates = {{"b"}};
  sched_->OnPodUpdate(gated, one_left);
  EXPECT_EQ(sched_->queue().Counts().gated, 1u);
  EXPECT_EQ(sched_->queue().Counts().active, 0u);
  // The last gate removed: straight to activeQ, then bound.
  auto none_left = std::make_shared<kube::Pod>(*one_left);
  none_left->spec.scheduling_gates.clear();
  sched_->OnPodUpdate(one_left, none_left);
  EXPECT_EQ(sched_->queue().Counts().gated, 0u);
  EXPECT_EQ(sched_->queue().Counts().active, 1u);
  Drain();
  ASSERT_EQ(client_.Bindings().size(), 1u);
  EXPECT_EQ(client_.Bindings()[0].metadata.name, "gated");
  EXPECT_EQ(EventsWithReason("Scheduled").size(), 1u);
}

TEST_F(SchedulerTest, BindFailureForgetsRequeuesAndLaterSucceeds) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "4"));
  AddPod(MakePod().Name("p").Namespace("default").Req({{"cpu", "1"}}).Obj());
  client_.FailNext("Bind", absl::UnavailableError("apiserver down"));

  Drain();

  EXPECT_TRUE(client_.Bindings().empty());
  EXPECT_EQ(sched_->cache().PodCount(), 0);         // forgotten
  EXPECT_EQ(sched_->queue().Counts().backoff, 1u);  // an error: backoff, not unschedulable
  const auto patches = client_.StatusPatches();
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_EQ(patches[0].second.conditions[0].reason, "SchedulerError");

  clock_.Advance(absl::Seconds(2));
  sched_->queue().FlushBackoffQCompleted();
  Drain();
  ASSERT_EQ(client_.Bindings().size(), 1u);
  EXPECT_EQ(sched_->cache().PodCount(), 1);
}

TEST_F(SchedulerTest, ABindThatAlreadyCommittedIsASuccess) {
  // The first POST committed, its answer was lost, the retry got 409: the pod is bound to
  // the node we chose. It stays bound, with no failure written onto it.
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "4"));
  std::shared_ptr<const kube::Pod> pod =
      AddPod(MakePod().Name("p").Namespace("default").Req({{"cpu", "1"}}).Obj());
  TRIMARAN_ASSERT_OK(client_.Bind(kube::MakeBinding(pod->metadata, "node-a")));

  Drain();

  EXPECT_TRUE(client_.StatusPatches().empty());
  EXPECT_TRUE(EventsWithReason("FailedScheduling").empty());
  EXPECT_EQ(EventsWithReason("Scheduled").size(), 1u);
  EXPECT_EQ(sched_->cache().PodCount(), 1);
  EXPECT_EQ(sched_->queue().Counts().backoff + sched_->queue().Counts().unschedulable, 0u);
}

TEST_F(SchedulerTest, ABindFailureOnAPodBoundElsewhereWritesNoFailure) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "4"));
  std::shared_ptr<const kube::Pod> pod =
      AddPod(MakePod().Name("p").Namespace("default").Req({{"cpu", "1"}}).Obj());
  // Someone else bound it to a node this scheduler does not know yet.
  TRIMARAN_ASSERT_OK(client_.Bind(kube::MakeBinding(pod->metadata, "node-z")));

  Drain();

  EXPECT_TRUE(client_.StatusPatches().empty());
  EXPECT_TRUE(EventsWithReason("FailedScheduling").empty());
  EXPECT_TRUE(EventsWithReason("Scheduled").empty());
  EXPECT_EQ(sched_->cache().PodCount(), 0);  // forgotten; the informer brings it back
  EXPECT_EQ(sched_->queue().Counts().backoff + sched_->queue().Counts().unschedulable, 0u);
}

TEST_F(SchedulerTest, BehindAClosedFenceNoBindIsSentAndTheAssumedPodIsForgotten) {
  // The lease may have passed to another replica (LeadingUntil is in the past): the
  // queued binding cycle is dropped without any API call and nothing is written.
  SchedulerOptions options;
  options.leading_until = [] { return absl::InfinitePast(); };
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml(), options));
  AddNode(SmallNode("node-a", "4"));
  AddPod(MakePod().Name("p").Namespace("default").Req({{"cpu", "1"}}).Obj());

  Drain();

  EXPECT_EQ(client_.Calls("Bind"), 0);
  EXPECT_TRUE(client_.Bindings().empty());
  EXPECT_EQ(sched_->cache().PodCount(), 0);  // forgotten
  EXPECT_TRUE(client_.StatusPatches().empty()) << "the next leader schedules it";
  EXPECT_TRUE(EventsWithReason("FailedScheduling").empty());
  EXPECT_TRUE(EventsWithReason("Scheduled").empty());
  const QueueCounts counts = sched_->queue().Counts();
  EXPECT_EQ(counts.active + counts.backoff + counts.unschedulable + counts.in_flight, 0u);
}

TEST_F(SchedulerTest, AnOpenFenceBindsAsUsual) {
  SchedulerOptions options;
  options.leading_until = [this] { return clock_.Now() + absl::Seconds(3); };
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml(), options));
  AddNode(SmallNode("node-a", "4"));
  AddPod(MakePod().Name("p").Namespace("default").Req({{"cpu", "1"}}).Obj());
  Drain();
  EXPECT_EQ(client_.Bindings().size(), 1u);
  EXPECT_EQ(EventsWithReason("Scheduled").size(), 1u);
}

TEST_F(SchedulerTest, ABindInFlightIsAbandonedWhenLeadershipIsLost) {
  std::stop_source lost;
  SchedulerOptions options;
  options.leading_until = [this] { return clock_.Now() + absl::Hours(1); };
  options.fence_stop = lost.get_token();
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml(), options));
  AddNode(SmallNode("node-a", "4"));
  AddPod(MakePod().Name("p").Namespace("default").Req({{"cpu", "1"}}).Obj());
  client_.Hang("Bind", true);  // the POST gets no answer
  ASSERT_TRUE(sched_->ScheduleOne());
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (client_.Calls("Bind") == 0 && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(1));
  ASSERT_EQ(client_.Calls("Bind"), 1);
  lost.request_stop();  // the elector's loss signal
  sched_->WaitForBindings();
  recorder_->Flush();

  EXPECT_TRUE(client_.Bindings().empty());
  EXPECT_EQ(client_.Calls("GetPod"), 0) << "no look-up of the pod after the loss";
  EXPECT_EQ(sched_->cache().PodCount(), 0);
  EXPECT_TRUE(client_.StatusPatches().empty());
  EXPECT_TRUE(EventsWithReason("FailedScheduling").empty());
  const QueueCounts counts = sched_->queue().Counts();
  EXPECT_EQ(counts.active + counts.backoff + counts.unschedulable + counts.in_flight, 0u);
}

TEST_F(SchedulerTest, ATombstoneOfAnAssumedPodRemovesIt) {
  // Bound and deleted while the watch was away (a 410 gap): the re-list's tombstone is
  // the last version seen, unassigned. The assumed pod must not leak.
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "4"));
  std::shared_ptr<const kube::Pod> pod =
      AddPod(MakePod().Name("p").Namespace("default").Req({{"cpu", "1"}}).Obj());
  Drain();
  ASSERT_TRUE(sched_->cache().IsAssumedPod(*pod));
  ASSERT_EQ(sched_->cache().PodCount(), 1);

  sched_->OnPodDelete(pod);

  EXPECT_FALSE(sched_->cache().IsAssumedPod(*pod));
  EXPECT_EQ(sched_->cache().PodCount(), 0);
  const CacheDump dump = sched_->cache().Dump();
  ASSERT_EQ(dump.nodes.size(), 1u);
  EXPECT_EQ(dump.nodes[0].requested().milli_cpu, 0);
  EXPECT_TRUE(dump.assumed_pods.empty());
}

TEST_F(SchedulerTest, RunExpiresAssumedPodsWhoseConfirmationNeverArrives) {
  // Bound, but the informer's Add never comes: with a TTL, Run's periodic cleanup drops
  // the assumed pod TTL after its binding finished and frees its node's resources.
  SchedulerOptions options;
  options.assumed_pod_ttl = absl::Minutes(1);
  options.assumed_pod_cleanup_period = absl::Seconds(1);
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml(), options));
  AddNode(SmallNode("node-a", "4"));
  std::shared_ptr<const kube::Pod> pod =
      AddPod(MakePod().Name("p").Namespace("default").Req({{"cpu", "1"}}).Obj());
  Drain();
  ASSERT_TRUE(sched_->cache().IsAssumedPod(*pod));

  const size_t others = clock_.sleepers();
  std::stop_source stop;
  std::thread run([&] { sched_->Run(stop.get_token()); });
  ASSERT_TRUE(clock_.AwaitSleepers(others + 1));  // the cleanup thread sleeps 1 s
  clock_.Advance(absl::Seconds(59));              // one cleanup at TTL - 1 s: kept
  ASSERT_TRUE(clock_.AwaitSleepers(others + 1));
  EXPECT_TRUE(sched_->cache().IsAssumedPod(*pod));
  EXPECT_EQ(sched_->cache().PodCount(), 1);

  clock_.Advance(absl::Seconds(2));  // past the TTL: expired
  ASSERT_TRUE(clock_.AwaitSleepers(others + 1));
  EXPECT_FALSE(sched_->cache().IsAssumedPod(*pod));
  EXPECT_EQ(sched_->cache().PodCount(), 0);
  const CacheDump dump = sched_->cache().Dump();
  ASSERT_EQ(dump.nodes.size(), 1u);
  EXPECT_EQ(dump.nodes[0].requested().milli_cpu, 0);

  stop.request_stop();
  run.join();
  EXPECT_EQ(clock_.sleepers(), others);  // the cleanup thread is gone
}

TEST_F(SchedulerTest, WithoutATtlAssumedPodsNeverExpire) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "4"));
  std::shared_ptr<const kube::Pod> pod =
      AddPod(MakePod().Name("p").Namespace("default").Req({{"cpu", "1"}}).Obj());
  Drain();
  const size_t others = clock_.sleepers();
  std::stop_source stop;
  std::thread run([&] { sched_->Run(stop.get_token()); });
  clock_.Advance(absl::Hours(24));
  stop.request_stop();
  run.join();
  EXPECT_EQ(clock_.sleepers(), others);  // no cleanup thread was started
  EXPECT_TRUE(sched_->cache().IsAssumedPod(*pod));
}

TEST_F(SchedulerTest, PodEventHandlers) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "4"));
  struct Case {
    std::string name;
    kube::Pod pod;
    size_t queued;
    int cached;
  };
  const std::vector<Case> cases = {
      {"unassigned ours", MakePod().Name("u").Namespace("d").Obj(), 1, 0},
      {"unassigned other scheduler",
       MakePod().Name("o").Namespace("d").SchedulerName("other").Obj(), 0, 0},
      {"assigned ours", MakePod().Name("a").Namespace("d").NodeName("node-a").Obj(), 0, 1},
      {"assigned other scheduler",
       MakePod().Name("b").Namespace("d").SchedulerName("other").NodeName("node-a").Obj(), 0, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const size_t queued_before = sched_->queue().Counts().active;
    const int cached_before = sched_->cache().PodCount();
    sched_->OnPodAdd(std::make_shared<const kube::Pod>(c.pod));
    EXPECT_EQ(sched_->queue().Counts().active - queued_before, c.queued);
    EXPECT_EQ(sched_->cache().PodCount() - cached_before, c.cached);
  }
  // The queued pod gets assigned by someone else: out of the queue, into the cache.
  auto old_pod = std::make_shared<const kube::Pod>(cases[0].pod);
  auto bound = std::make_shared<kube::Pod>(cases[0].pod);
  bound->spec.node_name = "node-a";
  sched_->OnPodUpdate(old_pod, bound);
  EXPECT_EQ(sched_->queue().Counts().active, 0u);
  EXPECT_EQ(sched_->cache().PodCount(), 3);
  // Deleting an assigned pod removes it from the cache.
  sched_->OnPodDelete(bound);
  EXPECT_EQ(sched_->cache().PodCount(), 2);
  // A pod being deleted is skipped by the scheduling cycle.
  AddPod(MakePod().Name("t").Namespace("d").Terminating().Obj());
  Drain();
  EXPECT_TRUE(client_.Bindings().empty());
}

// Preemption through the whole loop (spec kube-scheduler-constraints.md §9.2 steps 8-9):
// the high-priority pod that fits nowhere evicts the lowest-priority pods of one node, is
// nominated there (status and queue), a later equal-priority pod does not take that
// room, and once the victims' deletions arrive the preemptor binds to its node.
TEST_F(SchedulerTest, PreemptionNominatesEvictsAndBindsOnTheNominatedNode) {
  decisions::DecisionRing ring(10);
  ASSERT_NO_FATAL_FAILURE(
      Start(scheduler_testing::DefaultProfileYaml(), SchedulerOptions{.decisions = &ring}));
  AddNode(SmallNode("node-a", "2"));
  AddNode(SmallNode("node-b", "2"));
  std::vector<std::shared_ptr<const kube::Pod>> low;
  for (const char* node : {"node-a", "node-b"}) {
    for (int i = 0; i < 2; ++i) {
      low.push_back(AddPod(MakePod()
                               .Name(absl::StrFormat("low-%s-%d", node, i))
                               .Namespace("d")
                               .UID(absl::StrFormat("low-%s-%d", node, i))
                               .NodeName(node)
                               .Priority(node == std::string("node-a") ? 10 : 0)
                               .Req({{"cpu", "1"}})
                               .Obj()));
    }
  }
  const auto high = AddPod(
      MakePod().Name("high").Namespace("d").UID("high").Priority(1000).Req({{"cpu", "1"}}).Obj());
  Drain();
  // node-b's pods have the lower priority: one of them is enough.
  int deleted = 0;
  std::string victim;
  for (const auto& p : low) {
    if (!client_.GetPod("d", p->metadata.name).ok()) {
      ++deleted;
      victim = p->metadata.name;
    }
  }
  EXPECT_EQ(deleted, 1);
  EXPECT_THAT(victim, HasSubstr("node-b"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod high_now, client_.GetPod("d", "high"));
  EXPECT_EQ(high_now.status.nominated_node_name, "node-b");
  ASSERT_EQ(sched_->queue().NominatedPodsForNode("node-b").size(), 1u);
  EXPECT_TRUE(client_.Bindings().empty());
  ASSERT_EQ(EventsWithReason("Preempted").size(), 1u);
  EXPECT_EQ(EventsWithReason("Preempted")[0].note, "Preempted by pod high on node node-b");

  // The informer brings the nomination and the victim's deletion.
  sched_->OnPodUpdate(high, std::make_shared<const kube::Pod>(high_now));
  for (const auto& p : low) {
    if (p->metadata.name == victim) sched_->OnPodDelete(p);
  }
  clock_.Advance(absl::Seconds(5));
  sched_->queue().FlushBackoffQCompleted();
  Drain();
  const std::vector<kube::Binding> bindings = client_.Bindings();
  ASSERT_EQ(bindings.size(), 1u);
  EXPECT_EQ(bindings[0].metadata.name, "high");
  EXPECT_EQ(bindings[0].target.name, "node-b");
  EXPECT_TRUE(sched_->queue().NominatedPodsForNode("node-b").empty());
  // The decisions: nominated by preemption, then bound there (newest first).
  const auto decided = ring.List("d/high", 0);
  ASSERT_EQ(decided.size(), 2u);
  EXPECT_EQ(decided[0]->result, decisions::DecisionResult::kBound);
  EXPECT_EQ(decided[0]->node, "node-b");
  EXPECT_EQ(decided[1]->result, decisions::DecisionResult::kNominated);
  EXPECT_EQ(decided[1]->node, "node-b");
  EXPECT_THAT(decided[1]->message, HasSubstr("0/2 nodes are available"));
}

// Two high-priority pods that arrive together do not both preempt for the same room: the
// second sees the first's nomination and evicts elsewhere (or more).
TEST_F(SchedulerTest, TwoPreemptorsDoNotShareTheRoom) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  for (const char* node : {"node-a", "node-b"}) {
    AddNode(SmallNode(node, "2"));
    for (int i = 0; i < 2; ++i) {
      AddPod(MakePod()
                 .Name(absl::StrFormat("low-%s-%d", node, i))
                 .Namespace("d")
                 .NodeName(node)
                 .Req({{"cpu", "1"}})
                 .Obj());
    }
  }
  AddPod(MakePod().Name("h1").Namespace("d").UID("h1").Priority(1000).Req({{"cpu", "1"}}).Obj());
  AddPod(MakePod().Name("h2").Namespace("d").UID("h2").Priority(1000).Req({{"cpu", "1"}}).Obj());
  Drain();
  // Two victims in all; each preemptor nominated, and not both to a node with one victim.
  int deleted = 0;
  for (const char* node : {"node-a", "node-b"}) {
    for (int i = 0; i < 2; ++i) {
      if (!client_.GetPod("d", absl::StrFormat("low-%s-%d", node, i)).ok()) ++deleted;
    }
  }
  EXPECT_EQ(deleted, 2);
  const size_t on_a = sched_->queue().NominatedPodsForNode("node-a").size();
  const size_t on_b = sched_->queue().NominatedPodsForNode("node-b").size();
  EXPECT_EQ(on_a + on_b, 2u);
  EXPECT_EQ(EventsWithReason("Preempted").size(), 2u);
}

TEST_F(SchedulerTest, RecorderDeduplicatesFailedSchedulingWithinTenMinutes) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  const kube::Pod pod = MakePod().Name("p").Namespace("d").UID("u1").Obj();
  recorder_->Eventf(pod, nullptr, EventType::kWarning, "FailedScheduling", "Scheduling", "x");
  recorder_->Eventf(pod, nullptr, EventType::kWarning, "FailedScheduling", "Scheduling", "x");
  recorder_->Eventf(pod, nullptr, EventType::kWarning, "FailedScheduling", "Scheduling", "y");
  recorder_->Flush();
  EXPECT_EQ(client_.Events().size(), 2u);  // x once, y once
  clock_.Advance(absl::Minutes(11));
  recorder_->Eventf(pod, nullptr, EventType::kWarning, "FailedScheduling", "Scheduling", "x");
  recorder_->Flush();
  EXPECT_EQ(client_.Events().size(), 3u);  // the window passed: x again
}

TEST(AsyncEventRecorderTest, DedupKeysArePrunedOldestFirstAndBounded) {
  ::trimaran::testing::FakeClock clock;
  kube::testing::FakeClient client(clock);
  stats::Registry stats;
  AsyncEventRecorder recorder(client, clock, stats::Scope(stats, "recorder_"),
                              {.dedup_capacity = 2});
  const kube::Pod pod = MakePod().Name("p").Namespace("d").UID("u1").Obj();
  auto emit = [&](absl::string_view note) {
    recorder.Eventf(pod, nullptr, EventType::kWarning, "FailedScheduling", "Scheduling", note);
    recorder.Flush();
    return client.Events().size();
  };
  EXPECT_EQ(emit("a"), 1u);
  EXPECT_EQ(emit("a"), 1u);  // deduplicated
  clock.Advance(absl::Minutes(11));
  EXPECT_EQ(emit("a"), 2u);  // the window passed
  clock.Advance(absl::Minutes(1));
  // The first "a"'s stale FIFO entry was pruned without forgetting the fresh one.
  EXPECT_EQ(emit("a"), 2u);
  EXPECT_EQ(emit("b"), 3u);
  EXPECT_EQ(emit("c"), 4u);  // capacity 2: "a" is forgotten
  EXPECT_EQ(emit("c"), 4u);
  EXPECT_EQ(emit("a"), 5u);  // written again (harmless)
}

// Issue 4, "Bin packing that actually packs": 3,000 pods of 100m / 500Mi on 500 nodes of
// 32 CPU / 128Gi / 110 pods. A node holds min(32000/100, 128Gi/500Mi = 262, 110) = 110
// pods, so the lower bound is ceil(3000/110) = 28 nodes; allow 31.
TEST_F(SchedulerTest, MostAllocatedPacks) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::MostAllocatedProfileYaml("packer")));
  for (int i = 0; i < 500; ++i) {
    AddNode(MakeNode()
                .Name(absl::StrFormat("node-%03d", i))
                .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "110"}})
                .Obj());
  }
  for (int i = 0; i < 3000; ++i) {
    AddPod(MakePod()
               .Name(absl::StrFormat("p-%04d", i))
               .Namespace("default")
               .SchedulerName("packer")
               .Req({{"cpu", "100m"}, {"memory", "500Mi"}})
               .Obj());
  }
  Drain();
  const std::vector<kube::Binding> bindings = client_.Bindings();
  ASSERT_EQ(bindings.size(), 3000u);
  std::set<std::string> nodes;
  for (const kube::Binding& b : bindings) nodes.insert(b.target.name);
  EXPECT_LE(nodes.size(), 31u);
  RecordProperty("distinct_nodes", static_cast<int>(nodes.size()));
  std::printf("packing: 3000 pods on %zu nodes\n", nodes.size());
}

// Host selection's last tie-break. Eight identical empty 4-CPU nodes, then eight pods of
// 4 CPUs one at a time: each pod fills a node, so every pod ties (exactly) on the nodes
// still empty. Returns the nodes in binding order.
class TieBreakTest : public SchedulerTest, public ::testing::WithParamInterface<uint64_t> {
 protected:
  std::vector<std::string> FillNodesOneByOne(SchedulerOptions options) {
    options.seed = GetParam();
    Start(scheduler_testing::MostAllocatedProfileYaml("packer"), options);
    for (const char* name :
         {"node-f", "node-c", "node-h", "node-a", "node-e", "node-d", "node-g", "node-b"}) {
      AddNode(SmallNode(name, "4"));
    }
    for (int i = 0; i < 8; ++i) {
      AddPod(MakePod()
                 .Name(absl::StrFormat("p-%d", i))
                 .Namespace("default")
                 .SchedulerName("packer")
                 .Req({{"cpu", "4"}, {"memory", "1Gi"}})
                 .Obj());
      Drain();
    }
    std::vector<std::string> targets;
    for (const kube::Binding& b : client_.Bindings()) targets.push_back(b.target.name);
    return targets;
  }
};

// deterministic_tie_break (the daemon's --tie-break=lowest-name): the smallest name,
// whatever the seed, as the Explainer (and so the simulator) picks.
TEST_P(TieBreakTest, LowestNameTakesTheSmallestTiedNodeWhateverTheSeed) {
  SchedulerOptions options;
  options.deterministic_tie_break = true;
  EXPECT_THAT(FillNodesOneByOne(options),
              ::testing::ElementsAre("node-a", "node-b", "node-c", "node-d", "node-e", "node-f",
                                     "node-g", "node-h"));
}

// The default (--tie-break=random): a seeded random pick among the tied nodes. Name order
// for all eight would be a 1-in-40320 draw.
TEST_P(TieBreakTest, RandomDoesNotFollowTheNames) {
  const std::vector<std::string> targets = FillNodesOneByOne(SchedulerOptions{});
  ASSERT_EQ(targets.size(), 8u);
  EXPECT_FALSE(std::is_sorted(targets.begin(), targets.end())) << ::testing::PrintToString(targets);
}

INSTANTIATE_TEST_SUITE_P(Seeds, TieBreakTest,
                         ::testing::Values(uint64_t{1}, uint64_t{2}, uint64_t{0x7431'6d61}));

TEST(SchedulerCreateTest, RejectsDuplicateProfiles) {
  ::trimaran::testing::FakeClock clock;
  kube::testing::FakeClient client(clock);
  stats::Registry stats;
  Registry registry;
  TRIMARAN_ASSERT_OK(plugins::RegisterInTreePlugins(registry));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::vector<ProfileConfig> profiles,
      scheduler_testing::ProfilesFromYaml(scheduler_testing::DefaultProfileYaml()));
  profiles.push_back(profiles[0]);
  const StatsScopes scopes{.upstream = stats::Scope(stats, "scheduler_"),
                           .own = stats::Scope(stats, "trimaran_")};
  EXPECT_THAT(Scheduler::Create(profiles, registry, client, clock, scopes).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate")));
}

// Volumes: a pod whose claim is unbound (Immediate class) fails in VolumeBinding's
// PreFilter and waits; the PV and claim events of the PV controller's binding move it,
// and it binds.
template <typename T>
std::shared_ptr<const kube::StorageObject> StorageObj(T object) {
  return std::make_shared<const kube::StorageObject>(kube::StorageObject::Make(std::move(object)));
}

// The volume tests' storage: an Immediate class "imm" and the unbound claim
// default/data of that class (returned), as the informers would report them.
kube::PersistentVolumeClaim StartWithUnboundImmediateClaim(Scheduler& sched) {
  sched.OnStorageAdd(StorageObj(kube::testing::MakeStorageClass("imm", "example.com/p")));
  kube::PersistentVolumeClaim claim =
      kube::testing::MakeClaim("default", "data").Class("imm").Obj();
  sched.OnStorageAdd(StorageObj(claim));
  return claim;
}

TEST_F(SchedulerTest, PodWithUnboundImmediateClaimWaitsForTheClaimToBind) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "4"));
  auto storage = [](auto object) { return StorageObj(std::move(object)); };
  const kube::PersistentVolumeClaim claim = StartWithUnboundImmediateClaim(*sched_);
  AddPod(kube::testing::WithClaims(MakePod().Name("p").Namespace("default").Obj(), {"data"}));

  Drain();

  EXPECT_TRUE(client_.Bindings().empty());
  const auto patches = client_.StatusPatches();
  ASSERT_EQ(patches.size(), 1u);
  ASSERT_EQ(patches[0].second.conditions.size(), 1u);
  EXPECT_THAT(patches[0].second.conditions[0].message,
              HasSubstr("pod has unbound immediate PersistentVolumeClaims"));
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 1u);

  // The PV controller creates and binds a PV: a PV event moves the pod.
  sched_->OnStorageAdd(storage(kube::testing::MakePv("pv-1").Class("imm").ClaimRef(claim).Obj()));
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 0u);
  kube::PersistentVolumeClaim bound = kube::testing::ClaimWrapper(claim).BoundTo("pv-1").Obj();
  bound.metadata.resource_version = "2";
  sched_->OnStorageUpdate(nullptr, storage(bound));
  clock_.Advance(absl::Seconds(2));
  sched_->queue().FlushBackoffQCompleted();
  Drain();
  const std::vector<kube::Binding> bindings = client_.Bindings();
  ASSERT_EQ(bindings.size(), 1u);
  EXPECT_EQ(bindings[0].target.name, "node-a");
}

// ---- Decisions (scheduler/decisions/) ----

// A Score plugin that scores nothing (0) and reports one fallback line per cycle.
class NotingScorePlugin final : public ScorePlugin, public FallbackNotes {
 public:
  absl::string_view Name() const override { return "Noting"; }
  ScoreResult Score(const CycleState&, const kube::Pod&, const NodeInfo&) const override {
    return ScoreResult::Of(0);
  }
  void AppendFallbackNotes(const CycleState&, std::vector<std::string>& out) const override {
    out.push_back("Noting: metrics stale on 7 node(s), used requests");
  }
};

class SchedulerDecisionsTest : public SchedulerTest {
 protected:
  // The default profile with three Score plugins: ScoreA (weight 2: node-i scores 10 i),
  // ScoreB (weight 1: node-i scores 100 - 5 i) and Noting (weight 1, 0 everywhere).
  // Totals: 100 + 15 i.
  void StartScored(int nodes) {
    absl::flat_hash_map<std::string, int64_t> a;
    absl::flat_hash_map<std::string, int64_t> b;
    for (int i = 0; i < nodes; ++i) {
      a[absl::StrFormat("node-%d", i)] = 10 * i;
      b[absl::StrFormat("node-%d", i)] = 100 - 5 * i;
    }
    TRIMARAN_ASSERT_OK(plugin_registry_.Register(
        "ScoreA", sched::testing::FixedScorePlugin::Factory(a, "ScoreA")));
    TRIMARAN_ASSERT_OK(plugin_registry_.Register(
        "ScoreB", sched::testing::FixedScorePlugin::Factory(b, "ScoreB")));
    TRIMARAN_ASSERT_OK(plugin_registry_.Register(
        "Noting", [](const PluginArgs&, Handle&) -> absl::StatusOr<std::unique_ptr<Plugin>> {
          return std::make_unique<NotingScorePlugin>();
        }));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        std::vector<ProfileConfig> profiles,
        scheduler_testing::ProfilesFromYaml(scheduler_testing::DefaultProfileYaml()));
    profiles[0].score = {{"ScoreA", 2}, {"ScoreB", 1}, {"Noting", 1}};
    ASSERT_NO_FATAL_FAILURE(
        StartWithProfiles(std::move(profiles), SchedulerOptions{.decisions = &ring_}));
    for (int i = 0; i < nodes; ++i) AddNode(SmallNode(absl::StrFormat("node-%d", i), "4"));
  }

  decisions::DecisionRing ring_{10};
};

TEST_F(SchedulerDecisionsTest, BoundDecisionHoldsTheCyclesTopNodesAndWeightedScores) {
  ASSERT_NO_FATAL_FAILURE(StartScored(7));
  clock_.Advance(absl::Seconds(5));
  const absl::Time when = clock_.Now();
  auto pod = AddPod(MakePod().Name("web").Namespace("default").UID("uid-1").Obj());

  Drain();

  ASSERT_EQ(client_.Bindings().size(), 1u);
  const std::vector<std::shared_ptr<const decisions::Decision>> got = ring_.List("", 0);
  ASSERT_EQ(got.size(), 1u);
  const decisions::Decision& d = *got[0];
  EXPECT_EQ(d.pod, "default/web");
  EXPECT_EQ(d.uid, "uid-1");
  EXPECT_EQ(d.profile, "default-scheduler");
  EXPECT_EQ(d.result, decisions::DecisionResult::kBound);
  EXPECT_EQ(d.node, client_.Bindings()[0].target.name);
  EXPECT_EQ(d.node, "node-6");
  EXPECT_EQ(d.time, when);
  EXPECT_EQ(d.evaluated_nodes, 7);
  EXPECT_EQ(d.feasible_nodes, 7);
  EXPECT_EQ(d.message, "");
  EXPECT_EQ(d.fallbacks,
            std::vector<std::string>{"Noting: metrics stale on 7 node(s), used requests"});
  // The chosen node first, then the next four by total; weight x score per plugin.
  std::vector<decisions::TopNode> want;
  for (int i : {6, 5, 4, 3, 2}) {
    want.push_back(
        decisions::TopNode{absl::StrFormat("node-%d", i),
                           100 + 15 * i,
                           {{"ScoreA", 2 * 10 * i}, {"ScoreB", 100 - 5 * i}, {"Noting", 0}}});
  }
  EXPECT_EQ(d.top, want);
}

TEST_F(SchedulerDecisionsTest, UnschedulableDecisionHasTheMessageAndNoNodes) {
  ASSERT_NO_FATAL_FAILURE(StartScored(2));
  AddPod(MakePod().Name("big").Namespace("default").Req({{"cpu", "8"}}).Obj());

  Drain();

  const auto got = ring_.List("default/big", 0);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]->result, decisions::DecisionResult::kUnschedulable);
  EXPECT_EQ(got[0]->node, "");
  EXPECT_THAT(got[0]->message, HasSubstr("0/2 nodes are available"));
  EXPECT_THAT(got[0]->message, HasSubstr("Insufficient cpu"));
  EXPECT_TRUE(got[0]->top.empty());
  EXPECT_TRUE(got[0]->fallbacks.empty());
  EXPECT_EQ(got[0]->feasible_nodes, 0);
}

TEST_F(SchedulerDecisionsTest, OneFeasibleNodeIsChosenWithoutScores) {
  ASSERT_NO_FATAL_FAILURE(StartScored(1));
  AddPod(MakePod().Name("p").Namespace("default").Obj());

  Drain();

  const auto got = ring_.List("default/p", 0);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]->result, decisions::DecisionResult::kBound);
  EXPECT_EQ(got[0]->node, "node-0");
  ASSERT_EQ(got[0]->top.size(), 1u);
  EXPECT_EQ(got[0]->top[0].node, "node-0");
  EXPECT_TRUE(got[0]->top[0].scores.empty());
}

TEST_F(SchedulerDecisionsTest, ABindFailureIsAnErrorThenTheRetryIsBound) {
  ASSERT_NO_FATAL_FAILURE(StartScored(3));
  AddPod(MakePod().Name("p").Namespace("default").Obj());
  client_.FailNext("Bind", absl::UnavailableError("apiserver down"));

  Drain();
  clock_.Advance(absl::Seconds(2));
  sched_->queue().FlushBackoffQCompleted();
  Drain();

  const auto got = ring_.List("default/p", 0);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]->result, decisions::DecisionResult::kBound);  // newest first
  EXPECT_EQ(got[1]->result, decisions::DecisionResult::kError);
  EXPECT_THAT(got[1]->message, HasSubstr("apiserver down"));
  EXPECT_EQ(got[1]->node, "");
  EXPECT_EQ(got[1]->top.size(), 3u);  // what the failed attempt's cycle computed
}

// The storage event handlers hand their objects to the queue, and the volume plugins'
// hints decide: another claim's change leaves a pod rejected by VolumeBinding where it
// is, its own claim's change moves it (spec §4.9).
TEST_F(SchedulerTest, StorageEventsReachTheVolumePluginsHints) {
  ASSERT_NO_FATAL_FAILURE(Start(scheduler_testing::DefaultProfileYaml()));
  AddNode(SmallNode("node-a", "4"));
  auto storage = [](auto object) { return StorageObj(std::move(object)); };
  const kube::PersistentVolumeClaim claim = StartWithUnboundImmediateClaim(*sched_);
  AddPod(kube::testing::WithClaims(MakePod().Name("p").Namespace("default").Obj(), {"data"}));
  Drain();
  ASSERT_EQ(sched_->queue().Counts().unschedulable, 1u);

  // Someone else's claim, or a class update that leaves allowedTopologies alone: skip.
  const kube::PersistentVolumeClaim other =
      kube::testing::MakeClaim("default", "other").Class("imm").Obj();
  sched_->OnStorageAdd(storage(other));
  sched_->OnStorageUpdate(storage(other), storage(other));
  kube::StorageClass relabelled = kube::testing::MakeStorageClass("imm", "example.com/p");
  relabelled.metadata.labels["team"] = "a";
  sched_->OnStorageUpdate(storage(kube::testing::MakeStorageClass("imm", "example.com/p")),
                          storage(relabelled));
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 1u);

  // Its own claim changes: the pod moves.
  kube::PersistentVolumeClaim touched = claim;
  touched.metadata.labels["x"] = "y";
  sched_->OnStorageUpdate(storage(claim), storage(touched));
  EXPECT_EQ(sched_->queue().Counts().unschedulable, 0u);
}

}  // namespace
}  // namespace trimaran::sched
