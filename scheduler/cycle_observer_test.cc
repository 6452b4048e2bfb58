// The scheduling cycle's outcome points (schedule_one.cc), seen through a fake
// CycleObserver: one OnEvaluated per attempt, then exactly one outcome carrying what
// OnEvaluated returned.

#include "scheduler/cycle_observer.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "common/stats/registry.h"
#include "common/status_macros.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"
#include "scheduler/decisions/decision_ring.h"
#include "scheduler/event_recorder.h"
#include "scheduler/plugins/registry.h"
#include "scheduler/scheduler.h"
#include "scheduler/scheduler_test_util.h"

namespace trimaran::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::trimaran::kube::testing::MakeNode;
using ::trimaran::kube::testing::MakePod;
using ::trimaran::testing::StatusIs;

// Records every call as one line: "evaluated ns/pod feasible=N", then
// "scheduled ns/pod node", "unschedulable ns/pod [nominated] message" or
// "error ns/pod message", the pod taken from the attempt OnEvaluated returned.
class FakeCycleObserver final : public CycleObserver {
 public:
  struct PodAttempt final : Attempt {
    explicit PodAttempt(std::string p) : pod(std::move(p)) {}
    std::string pod;
  };

  std::shared_ptr<Attempt> OnEvaluated(const Framework&, const CycleState&, const kube::Pod& pod,
                                       const ScheduleResult& result,
                                       const SchedulingAlgorithmState&) override {
    std::string name = kube::NamespacedName(pod);
    Add(absl::StrCat("evaluated ", name, " feasible=", result.feasible_nodes));
    return std::make_shared<PodAttempt>(std::move(name));
  }
  void OnScheduled(std::shared_ptr<Attempt> attempt, absl::string_view node) override {
    Add(absl::StrCat("scheduled ", PodOf(*attempt), " ", node));
  }
  void OnUnschedulable(std::shared_ptr<Attempt> attempt, absl::string_view message,
                       absl::string_view nominated_node) override {
    Add(absl::StrCat("unschedulable ", PodOf(*attempt), " [", nominated_node, "] ", message));
  }
  void OnError(std::shared_ptr<Attempt> attempt, absl::string_view message) override {
    Add(absl::StrCat("error ", PodOf(*attempt), " ", message));
  }

  std::vector<std::string> calls() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

 private:
  static std::string PodOf(const Attempt& attempt) {
    return static_cast<const PodAttempt&>(attempt).pod;
  }
  void Add(std::string call) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    calls_.push_back(std::move(call));
  }

  mutable absl::Mutex mu_;
  std::vector<std::string> calls_ ABSL_GUARDED_BY(mu_);
};

class CycleObserverTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::unique_ptr<Scheduler>> Create(SchedulerOptions options) {
    TRIMARAN_ASSIGN_OR_RETURN(
        std::vector<ProfileConfig> profiles,
        scheduler_testing::ProfilesFromYaml(scheduler_testing::DefaultProfileYaml()));
    options.parallelism = 2;
    options.binding_parallelism = 2;
    options.run_queue_flushers = false;
    return Scheduler::Create(std::move(profiles), plugins::InTreeRegistry(), client_, clock_,
                             StatsScopes{.upstream = stats::Scope(stats_, "scheduler_"),
                                         .own = stats::Scope(stats_, "trimaran_")},
                             options, &recorder_);
  }
  void Start() {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(sched_, Create(SchedulerOptions{.cycle_observer = &observer_}));
    for (int i = 0; i < 2; ++i) {
      TRIMARAN_ASSERT_OK_AND_ASSIGN(
          kube::Node node,
          client_.CreateNode(MakeNode()
                                 .Name(absl::StrFormat("node-%d", i))
                                 .Capacity({{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "110"}})
                                 .Obj()));
      sched_->OnNodeAdd(std::make_shared<const kube::Node>(std::move(node)));
    }
  }
  void AddPod(const kube::Pod& pod) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(kube::Pod created, client_.CreatePod(pod));
    sched_->OnPodAdd(std::make_shared<const kube::Pod>(std::move(created)));
  }
  void Drain() {
    while (sched_->queue().Counts().active > 0) ASSERT_TRUE(sched_->ScheduleOne());
    sched_->WaitForBindings();
  }

  ::trimaran::testing::FakeClock clock_;
  kube::testing::FakeClient client_{clock_};
  stats::Registry stats_;
  AsyncEventRecorder recorder_{client_, clock_, stats::Scope(stats_, "recorder_")};
  FakeCycleObserver observer_;
  std::unique_ptr<Scheduler> sched_;
};

TEST_F(CycleObserverTest, ABoundPodIsEvaluatedThenScheduledOnItsNode) {
  ASSERT_NO_FATAL_FAILURE(Start());
  AddPod(MakePod().Name("web").Namespace("default").Req({{"cpu", "500m"}}).Obj());

  Drain();

  ASSERT_EQ(client_.Bindings().size(), 1u);
  EXPECT_THAT(observer_.calls(), ElementsAre("evaluated default/web feasible=2",
                                             absl::StrCat("scheduled default/web ",
                                                          client_.Bindings()[0].target.name)));
}

TEST_F(CycleObserverTest, APodThatFitsNowhereIsUnschedulableWithTheFitError) {
  ASSERT_NO_FATAL_FAILURE(Start());
  AddPod(MakePod().Name("big").Namespace("default").Req({{"cpu", "4"}}).Obj());

  Drain();

  const std::vector<std::string> calls = observer_.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], "evaluated default/big feasible=0");
  EXPECT_THAT(calls[1], StartsWith("unschedulable default/big [] 0/2 nodes are available"));
  EXPECT_THAT(calls[1], HasSubstr("Insufficient cpu"));
}

TEST_F(CycleObserverTest, AFailedBindIsAnErrorAndTheRetryIsScheduled) {
  ASSERT_NO_FATAL_FAILURE(Start());
  AddPod(MakePod().Name("p").Namespace("default").Obj());
  client_.FailNext("Bind", absl::UnavailableError("apiserver down"));

  Drain();
  clock_.Advance(absl::Seconds(2));
  sched_->queue().FlushBackoffQCompleted();
  Drain();

  const std::vector<std::string> calls = observer_.calls();
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0], "evaluated default/p feasible=2");
  EXPECT_THAT(calls[1], StartsWith("error default/p "));
  EXPECT_THAT(calls[1], HasSubstr("apiserver down"));
  EXPECT_EQ(calls[2], "evaluated default/p feasible=2");
  EXPECT_THAT(calls[3], StartsWith("scheduled default/p node-"));
}

TEST_F(CycleObserverTest, APodOfNoProfileIsNotObserved) {
  ASSERT_NO_FATAL_FAILURE(Start());
  AddPod(MakePod().Name("foreign").Namespace("default").SchedulerName("other").Obj());

  Drain();

  EXPECT_TRUE(observer_.calls().empty());
}

TEST_F(CycleObserverTest, AnObserverAndADecisionsRingAreNotBothAccepted) {
  decisions::DecisionRing ring(10);
  EXPECT_THAT(Create(SchedulerOptions{.cycle_observer = &observer_, .decisions = &ring}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not both")));
}

}  // namespace
}  // namespace trimaran::sched
