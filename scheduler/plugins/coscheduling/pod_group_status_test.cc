#include "scheduler/plugins/coscheduling/pod_group_status.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/testing/fake_clock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"
#include "scheduler/backend/cache/pod_group_store.h"

namespace trimaran::sched::plugins {
namespace {

std::vector<std::shared_ptr<const kube::Pod>> Pods(int pending, int bound, int running,
                                                   int succeeded, int failed) {
  std::vector<std::shared_ptr<const kube::Pod>> out;
  int i = 0;
  auto add = [&](bool assigned, kube::PodPhase phase) {
    kube::Pod p = kube::testing::MakePod().Name("p" + std::to_string(i++)).Namespace("jobs").Obj();
    if (assigned) p.spec.node_name = "n1";
    p.status.phase = phase;
    out.push_back(std::make_shared<const kube::Pod>(std::move(p)));
  };
  for (int k = 0; k < pending; ++k) add(false, kube::PodPhase::kPending);
  for (int k = 0; k < bound; ++k) add(true, kube::PodPhase::kPending);
  for (int k = 0; k < running; ++k) add(true, kube::PodPhase::kRunning);
  for (int k = 0; k < succeeded; ++k) add(true, kube::PodPhase::kSucceeded);
  for (int k = 0; k < failed; ++k) add(true, kube::PodPhase::kFailed);
  return out;
}

TEST(PodGroupStatusTest, PhasesAsUpstreamsController) {
  using P = kube::PodGroupPhase;
  struct Row {
    std::string name;
    P from;
    std::vector<std::shared_ptr<const kube::Pod>> pods;
    P want;
    int32_t scheduled;
  };
  const std::vector<Row> rows = {
      {"new group, too few pods", P::kNone, Pods(2, 0, 0, 0, 0), P::kPending, 0},
      {"enough pods", P::kNone, Pods(3, 0, 0, 0, 0), P::kScheduling, 0},
      {"some bound", P::kScheduling, Pods(1, 2, 0, 0, 0), P::kScheduling, 2},
      {"minMember bound", P::kScheduling, Pods(0, 3, 0, 0, 0), P::kScheduled, 3},
      {"running", P::kScheduled, Pods(0, 0, 3, 0, 0), P::kRunning, 3},
      {"finished", P::kRunning, Pods(0, 0, 0, 3, 0), P::kFinished, 3},
      {"failed", P::kRunning, Pods(0, 0, 2, 0, 1), P::kFailed, 3},
      {"members deleted", P::kRunning, Pods(0, 0, 2, 0, 0), P::kPending, 2},
  };
  const absl::Time now = absl::FromUnixSeconds(5000);
  for (const Row& r : rows) {
    kube::PodGroup pg;
    pg.spec.min_member = 3;
    pg.status.phase = r.from;
    kube::PodGroupStatus s = ComputePodGroupStatus(pg, r.pods, now);
    EXPECT_EQ(s.phase, r.want) << r.name;
    EXPECT_EQ(s.scheduled, r.scheduled) << r.name;
  }
}

TEST(PodGroupStatusTest, SchedulingStartsTheClock) {
  kube::PodGroup pg;
  pg.spec.min_member = 1;
  pg.status.phase = kube::PodGroupPhase::kPending;
  kube::PodGroupStatus s = ComputePodGroupStatus(pg, Pods(1, 0, 0, 0, 0), absl::FromUnixSeconds(7));
  EXPECT_EQ(s.phase, kube::PodGroupPhase::kScheduling);
  EXPECT_EQ(s.schedule_start_time, absl::FromUnixSeconds(7));
}

// The writer's patches carry the leader's fence: none once its options no longer allow a
// call (the lease is lost, or its deadline passed), and the groups stay dirty for later.
class PodGroupStatusWriterTest : public ::testing::Test {
 protected:
  PodGroupStatusWriterTest() : client_(clock_) {
    client_.SetRawHandler([this](absl::string_view method, absl::string_view path,
                                 absl::string_view) -> absl::StatusOr<std::string> {
      if (method == "PATCH" && absl::EndsWith(path, "/status")) ++patches_;
      return std::string("{}");
    });
    for (const std::string name : {"a", "b"}) {
      kube::PodGroup pg;
      pg.metadata.namespace_name = "jobs";
      pg.metadata.name = name;
      pg.spec.min_member = 1;
      store_.Apply(std::make_shared<const kube::PodGroup>(std::move(pg)));
    }
  }

  ::trimaran::testing::FakeClock clock_;
  kube::testing::FakeClient client_;
  PodGroupStore store_;
  int patches_ = 0;
};

TEST_F(PodGroupStatusWriterTest, WritesWhileTheFenceIsOpen) {
  const absl::Time deadline = clock_.Now() + absl::Seconds(3);
  PodGroupStatusWriter writer(store_, client_, clock_,
                              [deadline] { return kube::CallOptions{.deadline = deadline}; });
  writer.MarkDirty("jobs", "a");
  writer.MarkDirty("jobs", "b");
  EXPECT_EQ(writer.SyncDirty(), 2);
  EXPECT_EQ(patches_, 2);
}

TEST_F(PodGroupStatusWriterTest, NothingIsWrittenOnceTheLeaseIsLost) {
  std::stop_source lost;
  PodGroupStatusWriter writer(store_, client_, clock_,
                              [&lost] { return kube::CallOptions{.stop = lost.get_token()}; });
  lost.request_stop();
  writer.MarkDirty("jobs", "a");
  writer.MarkDirty("jobs", "b");
  EXPECT_EQ(writer.SyncDirty(), 0);
  EXPECT_EQ(patches_, 0);
}

TEST_F(PodGroupStatusWriterTest, NothingIsWrittenPastTheDeadlineAndTheGroupsStayDirty) {
  absl::Time deadline = clock_.Now() + absl::Seconds(3);
  PodGroupStatusWriter writer(store_, client_, clock_,
                              [&deadline] { return kube::CallOptions{.deadline = deadline}; });
  clock_.Advance(absl::Seconds(3));
  writer.MarkDirty("jobs", "a");
  writer.MarkDirty("jobs", "b");
  EXPECT_EQ(writer.SyncDirty(), 0);
  EXPECT_EQ(patches_, 0);
  // A renewal moves the deadline (LeadingUntil()): both groups are written then.
  deadline = clock_.Now() + absl::Seconds(3);
  EXPECT_EQ(writer.SyncDirty(), 2);
  EXPECT_EQ(patches_, 2);
}

}  // namespace
}  // namespace trimaran::sched::plugins
