// Binding cycles that wait (a pod held at Permit, a PreBind that waits for a volume)
// never hold a worker of the binding pool, and Stop cancels every wait at once (issue 30
// point 1). The fake plugin "Waiter" holds pods by label: wait=permit waits at Permit
// (15 min, as a Coscheduling gang below minMember), wait=prebind waits in PreBind until
// the scheduler stops (as VolumeBinding for a claim nothing provisions), wait=gated
// waits in PreBind until the test opens its gate.
#include <atomic>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/synchronization/notification.h"
#include "common/clock.h"
#include "common/stats/registry.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"
#include "scheduler/event_recorder.h"
#include "scheduler/framework/interface.h"
#include "scheduler/framework/pre_bind_pre_flight.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_test_util.h"

namespace trimaran::sched {
namespace {

using ::testing::HasSubstr;
using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;

constexpr absl::string_view kWaiter = "Waiter";
constexpr absl::Duration kPermitWait = absl::Minutes(15);

// What the test reads of the plugin (shared with the instance the Framework builds).
struct WaiterProbe {
  std::atomic<int> unreserved{0};
  std::atomic<int> in_prebind{0};
  std::atomic<Handle*> handle{nullptr};
  absl::Notification gate;
};

std::string WaitLabel(const kube::Pod& pod) {
  auto it = pod.metadata.labels.find(std::string_view("wait"));
  return it == pod.metadata.labels.end() ? std::string() : std::string(it->second);
}

class WaiterPlugin final : public ReservePlugin,
                           public PermitPlugin,
                           public PreBindPlugin,
                           public PreBindPreFlightExtension {
 public:
  WaiterPlugin(Handle& handle, std::shared_ptr<WaiterProbe> probe)
      : handle_(handle), probe_(std::move(probe)) {
    probe_->handle.store(&handle_);
  }
  absl::string_view Name() const override { return kWaiter; }
  Status Reserve(CycleState&, const kube::Pod&, absl::string_view) override { return Status(); }
  void Unreserve(CycleState&, const kube::Pod&, absl::string_view) override {
    probe_->unreserved.fetch_add(1);
  }
  Status Permit(CycleState&, const kube::Pod& pod, absl::string_view,
                absl::Duration& timeout) override {
    if (WaitLabel(pod) != "permit") return Status();
    timeout = kPermitWait;
    return Status::Wait();
  }
  Status PreBindPreFlight(CycleState&, const kube::Pod& pod, absl::string_view) override {
    const std::string wait = WaitLabel(pod);
    return wait == "prebind" || wait == "gated" ? Status() : Status::Skip();
  }
  Status PreBind(CycleState&, const kube::Pod& pod, absl::string_view) override {
    const std::string wait = WaitLabel(pod);
    if (wait == "gated") {
      probe_->in_prebind.fetch_add(1);
      probe_->gate.WaitForNotification();
      return Status();
    }
    if (wait != "prebind") return Status();
    probe_->in_prebind.fetch_add(1);
    // VolumeBinding's wait: the Clock's cancellable sleep, ended by the shutdown.
    if (!handle_.clock().SleepUntil(absl::InfiniteFuture(), handle_.shutdown_token())) {
      return Status::Error("binding volumes: cancelled").WithPlugin(kWaiter);
    }
    return Status();
  }

 private:
  Handle& handle_;
  std::shared_ptr<WaiterProbe> probe_;
};

class BindingWaitTest : public ::testing::Test {
 protected:
  // `real_clock`: the scheduler and the plugins wait on the real clock (the fake one polls
  // each Permit wait every millisecond, which a thousand waiters turn into seconds of CPU).
  void Start(int binding_parallelism, bool real_clock = false) {
    const Clock& clock = real_clock ? static_cast<const Clock&>(RealClock::Get()) : clock_;
    TRIMARAN_ASSERT_OK(plugins::RegisterInTreePlugins(registry_));
    TRIMARAN_ASSERT_OK(registry_.Register(std::string(kWaiter),
                                          [probe = probe_](const PluginArgs&, Handle& handle)
                                              -> absl::StatusOr<std::unique_ptr<Plugin>> {
                                            return std::make_unique<WaiterPlugin>(handle, probe);
                                          }));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        std::vector<ProfileConfig> profiles,
        scheduler_testing::ProfilesFromYaml(scheduler_testing::DefaultProfileYaml()));
    profiles[0].reserve.push_back(std::string(kWaiter));
    profiles[0].permit.push_back(std::string(kWaiter));
    profiles[0].pre_bind.push_back(std::string(kWaiter));
    SchedulerOptions options;
    options.parallelism = 2;
    options.binding_parallelism = binding_parallelism;
    options.run_queue_flushers = false;
    recorder_ =
        std::make_unique<AsyncEventRecorder>(client_, clock_, stats::Scope(stats_, "recorder_"));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        sched_, Scheduler::Create(std::move(profiles), registry_, client_, clock,
                                  StatsScopes{.upstream = stats::Scope(stats_, "scheduler_"),
                                              .own = stats::Scope(stats_, "trimaran_")},
                                  options, recorder_.get()));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        kube::Node node,
        client_.CreateNode(MakeNode()
                               .Name("node-a")
                               .Capacity({{"cpu", "1000"}, {"memory", "1000Gi"}, {"pods", "5000"}})
                               .Obj()));
    sched_->OnNodeAdd(std::make_shared<const kube::Node>(std::move(node)));
  }

  // Creates `n` pods labelled wait=`wait` (none when empty) and schedules them (their
  // scheduling cycles; the binding cycles run on).
  void SchedulePods(const std::string& prefix, int n, const std::string& wait) {
    for (int i = 0; i < n; ++i) {
      kube::testing::PodWrapper pod =
          MakePod().Name(absl::StrFormat("%s-%d", prefix, i)).Namespace("default");
      if (!wait.empty()) pod.Label("wait", wait);
      absl::StatusOr<kube::Pod> created = client_.CreatePod(pod.Obj());
      TRIMARAN_ASSERT_OK(created.status());
      sched_->OnPodAdd(std::make_shared<const kube::Pod>(*created));
    }
    while (sched_->queue().Counts().active > 0) ASSERT_TRUE(sched_->ScheduleOne());
  }

  // Real time: the binding cycles run on real threads.
  template <typename Pred>
  bool Eventually(Pred pred, absl::Duration within = absl::Seconds(20)) {
    const absl::Time give_up = absl::Now() + within;
    while (!pred()) {
      if (absl::Now() > give_up) return false;
      absl::SleepFor(absl::Milliseconds(1));
    }
    return true;
  }

  size_t Waiting() { return sched_->FrameworkFor("default-scheduler")->waiting_pods().size(); }

  int EventsWithReason(absl::string_view reason) {
    int n = 0;
    for (const kube::Event& e : client_.Events()) n += e.reason == reason;
    return n;
  }

  // What Stop leaves: every waiting pod dropped (unreserved, forgotten, nothing written),
  // only `bound` bindings.
  void ExpectDroppedCleanly(size_t bound, int waiting) {
    recorder_->Flush();
    EXPECT_EQ(client_.Bindings().size(), bound);
    EXPECT_EQ(client_.Calls("Bind"), static_cast<int>(bound)) << "no Bind after the stop";
    EXPECT_EQ(probe_->unreserved.load(), waiting);
    EXPECT_EQ(sched_->cache().PodCount(), static_cast<int>(bound)) << "the waiting ones forgotten";
    EXPECT_EQ(Waiting(), 0u);
    // Only the nominations written when the waits began (NominatedNodeNameForExpectation);
    // no failure for a dropped pod.
    EXPECT_EQ(client_.StatusPatches().size(), static_cast<size_t>(waiting));
    for (const auto& [pod, patch] : client_.StatusPatches()) {
      EXPECT_TRUE(patch.conditions.empty()) << pod;
      EXPECT_THAT(patch.nominated_node_name, ::testing::Optional(HasSubstr("node-"))) << pod;
    }
    EXPECT_EQ(EventsWithReason("FailedScheduling"), 0);
    const QueueCounts counts = sched_->queue().Counts();
    EXPECT_EQ(counts.in_flight, 0u);
    absl::StatusOr<kube::PodList> pods = client_.ListPods("default", {});
    TRIMARAN_ASSERT_OK(pods.status());
    for (const kube::Pod& pod : pods->items) {
      if (WaitLabel(pod).empty()) continue;
      EXPECT_EQ(pod.spec.node_name, "") << pod.metadata.name << " stays pending";
    }
  }

  std::shared_ptr<WaiterProbe> probe_ = std::make_shared<WaiterProbe>();
  ::trimaran::testing::FakeClock clock_;
  kube::testing::FakeClient client_{clock_};
  stats::Registry stats_;
  Registry registry_;
  std::unique_ptr<AsyncEventRecorder> recorder_;
  std::unique_ptr<Scheduler> sched_;
};

TEST_F(BindingWaitTest, OrdinaryPodsBindWhileMorePodsWaitThanThePoolHasWorkers) {
  // Two pool workers; 40 pods held at Permit and 40 waiting in PreBind. Before issue 30
  // each waiting cycle held a worker and no other pod could bind.
  ASSERT_NO_FATAL_FAILURE(Start(/*binding_parallelism=*/2));
  ASSERT_NO_FATAL_FAILURE(SchedulePods("gang", 40, "permit"));
  ASSERT_NO_FATAL_FAILURE(SchedulePods("volume", 40, "prebind"));
  ASSERT_TRUE(Eventually([&] { return probe_->in_prebind.load() == 40; }));
  EXPECT_EQ(Waiting(), 40u);

  ASSERT_NO_FATAL_FAILURE(SchedulePods("plain", 30, ""));
  ASSERT_TRUE(Eventually([&] { return client_.Bindings().size() == 30; }))
      << client_.Bindings().size() << " of 30 ordinary pods bound";
  for (const kube::Binding& b : client_.Bindings()) {
    EXPECT_THAT(b.metadata.name, HasSubstr("plain-"));
  }

  const absl::Time stop_start = absl::Now();
  sched_->Stop();
  const absl::Duration took = absl::Now() - stop_start;
  EXPECT_LT(took, absl::Seconds(2));
  ExpectDroppedCleanly(30, 80);
}

TEST_F(BindingWaitTest, StopWithAThousandWaitingPodsEndsEveryWaitAtOnce) {
  ASSERT_NO_FATAL_FAILURE(Start(/*binding_parallelism=*/16, /*real_clock=*/true));
  ASSERT_NO_FATAL_FAILURE(SchedulePods("gang", 500, "permit"));
  ASSERT_NO_FATAL_FAILURE(SchedulePods("volume", 500, "prebind"));
  ASSERT_TRUE(Eventually([&] { return probe_->in_prebind.load() == 500; }));
  ASSERT_EQ(Waiting(), 500u);

  const absl::Time stop_start = absl::Now();
  sched_->Stop();
  const absl::Duration took = absl::Now() - stop_start;
  std::cout << "Stop with 1000 waiting binding cycles: " << took << "\n";
  EXPECT_LT(took, absl::Seconds(2));
  ExpectDroppedCleanly(0, 1000);
}

TEST_F(BindingWaitTest, AHeldPodBindsOnceAllowedAndIsRejectedAtItsTimeout) {
  ASSERT_NO_FATAL_FAILURE(Start(/*binding_parallelism=*/1));
  ASSERT_NO_FATAL_FAILURE(SchedulePods("gang", 2, "permit"));
  ASSERT_EQ(Waiting(), 2u);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod gang0, client_.GetPod("default", "gang-0"));
  std::shared_ptr<WaitingPod> first =
      sched_->FrameworkFor("default-scheduler")->waiting_pods().Get(gang0);
  ASSERT_NE(first, nullptr);
  first->Allow(kWaiter);
  ASSERT_TRUE(Eventually([&] { return client_.Bindings().size() == 1; }));
  EXPECT_EQ(client_.Bindings()[0].metadata.name, "gang-0");

  // The other one times out on the fake clock: a rejection like any other.
  clock_.Advance(kPermitWait + absl::Seconds(1));
  ASSERT_TRUE(Eventually([&] { return Waiting() == 0; }));
  sched_->WaitForBindings();
  recorder_->Flush();
  EXPECT_EQ(client_.Bindings().size(), 1u);
  EXPECT_EQ(probe_->unreserved.load(), 1);
  EXPECT_EQ(EventsWithReason("FailedScheduling"), 1);
  const QueueCounts counts = sched_->queue().Counts();
  EXPECT_EQ(counts.unschedulable + counts.backoff, 1u) << "requeued";
  // Nominated while it waited; the rejection clears it (upstream's clearNominatedNode),
  // in the API and in the queue, so the room it no longer holds is free for others.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod gang1, client_.GetPod("default", "gang-1"));
  EXPECT_EQ(gang1.status.nominated_node_name, "");
  EXPECT_TRUE(sched_->queue().NominatedPodsForNode("node-a").empty());
}

TEST_F(BindingWaitTest, ACycleWhosePreBindEndsAfterTheStopBindsNothing) {
  ASSERT_NO_FATAL_FAILURE(Start(/*binding_parallelism=*/1));
  ASSERT_NO_FATAL_FAILURE(SchedulePods("late", 1, "gated"));
  ASSERT_TRUE(Eventually([&] { return probe_->in_prebind.load() == 1; }));
  std::thread stopper([&] { sched_->Stop(); });
  Handle* handle = probe_->handle.load();
  ASSERT_NE(handle, nullptr);
  ASSERT_TRUE(Eventually([&] { return handle->shutdown_token().stop_requested(); }));
  probe_->gate.Notify();  // PreBind succeeds, after the stop
  stopper.join();
  ExpectDroppedCleanly(0, 1);
}

// 1.35+'s NominatedNodeNameForExpectation: a pod waiting at Permit or in PreBind carries
// status.nominatedNodeName = its node, so autoscalers see where it is going; a pod that
// binds at once is not nominated (no extra write).
TEST_F(BindingWaitTest, WaitingPodsAreNominatedToTheirNodeAndOthersAreNot) {
  ASSERT_NO_FATAL_FAILURE(Start(/*binding_parallelism=*/2));
  ASSERT_NO_FATAL_FAILURE(SchedulePods("gang", 1, "permit"));
  ASSERT_NO_FATAL_FAILURE(SchedulePods("volume", 1, "prebind"));
  ASSERT_NO_FATAL_FAILURE(SchedulePods("plain", 3, ""));
  ASSERT_TRUE(Eventually([&] { return client_.Bindings().size() == 3; }));
  ASSERT_TRUE(Eventually([&] { return probe_->in_prebind.load() == 1; }));
  ASSERT_TRUE(Eventually([&] { return client_.StatusPatches().size() == 2; }));
  for (const char* name : {"gang-0", "volume-0"}) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod pod, client_.GetPod("default", name));
    EXPECT_EQ(pod.spec.node_name, "") << name;
    EXPECT_EQ(pod.status.nominated_node_name, "node-a") << name;
  }
  for (const auto& [pod, patch] : client_.StatusPatches()) {
    EXPECT_THAT(pod, ::testing::Not(HasSubstr("plain-")));
  }
  sched_->Stop();
}

TEST_F(BindingWaitTest, OrdinaryPodsStayOnThePool) {
  // No pod waits: no binding cycle needs a thread of its own.
  ASSERT_NO_FATAL_FAILURE(Start(/*binding_parallelism=*/2));
  ASSERT_NO_FATAL_FAILURE(SchedulePods("plain", 20, ""));
  sched_->WaitForBindings();
  EXPECT_EQ(client_.Bindings().size(), 20u);
}

}  // namespace
}  // namespace trimaran::sched
