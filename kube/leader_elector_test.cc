#include "kube/leader_elector.h"

#include <atomic>
#include <thread>

#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"

namespace trimaran::kube {
namespace {

using kube::testing::FakeClient;
using trimaran::testing::FakeClock;

// Moves fake time forward in 50 ms steps while the elector threads run.
class TimeDriver {
 public:
  explicit TimeDriver(FakeClock& clock)
      : thread_([&clock](std::stop_token stop) {
          while (!stop.stop_requested()) {
            clock.Advance(absl::Milliseconds(50));
            absl::SleepFor(absl::Microseconds(300));
          }
        }) {}

 private:
  std::jthread thread_;
};

// Waits (real time) until `cond`; false after 20 s.
bool Eventually(const std::function<bool()>& cond) {
  absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (absl::Now() < deadline) {
    if (cond()) return true;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return cond();
}

struct Candidate {
  Candidate(FakeClient& client, FakeClock& clock, std::string id, bool release = true) {
    LeaderElectionConfig c;
    c.lease_name = "trimaran";
    c.identity = std::move(id);
    c.release_on_cancel = release;
    c.on_started_leading = [this, &clock](std::stop_token stop) {
      started_at = clock.Now();
      started = true;
      while (!stop.stop_requested()) absl::SleepFor(absl::Microseconds(200));
      leading_stop_seen = true;
    };
    c.on_stopped_leading = [this] { stopped = true; };
    elector = std::make_unique<LeaderElector>(client, clock, c);
  }
  void Start() {
    thread = std::jthread([this](std::stop_token stop) { elector->Run(stop); });
  }
  void Stop() {
    thread.request_stop();
    thread.join();
  }
  std::unique_ptr<LeaderElector> elector;
  std::jthread thread;
  std::atomic<bool> started{false};
  std::atomic<bool> stopped{false};
  std::atomic<bool> leading_stop_seen{false};
  absl::Time started_at;
};

TEST(LeaderElectorTest, ExactlyOneLeadsAndReleaseHandsOver) {
  FakeClient client;
  FakeClock clock;
  TimeDriver driver(clock);
  Candidate a(client, clock, "a"), b(client, clock, "b");
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); }));
  b.Start();
  // 40 s of fake time: a renews, b never leads.
  absl::Time until = clock.Now() + absl::Seconds(40);
  while (clock.Now() < until) {
    ASSERT_FALSE(b.elector->IsLeader());
    ASSERT_TRUE(a.elector->IsLeader());
    absl::SleepFor(absl::Milliseconds(1));
  }
  EXPECT_EQ(b.elector->LeaderIdentity(), "a");
  // A graceful stop releases the lease: b takes over without waiting out 15 s.
  absl::Time stop_at = clock.Now();
  a.Stop();
  EXPECT_TRUE(a.stopped);
  EXPECT_TRUE(a.leading_stop_seen);
  ASSERT_TRUE(Eventually([&] { return b.started.load(); }));
  EXPECT_LT(b.started_at - stop_at, absl::Seconds(5));
  Lease lease = *client.GetLease("kube-system", "trimaran");
  EXPECT_EQ(lease.spec.holder_identity, "b");
  EXPECT_EQ(lease.spec.lease_transitions, 1);
  EXPECT_EQ(lease.spec.lease_duration_seconds, 15);
  b.Stop();
}

TEST(LeaderElectorTest, CrashedLeaderIsReplacedWithinLeaseDurationPlusRetryPeriod) {
  FakeClient client;
  FakeClock clock;
  TimeDriver driver(clock);
  Candidate a(client, clock, "a", /*release=*/false), b(client, clock, "b");
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); }));
  b.Start();
  ASSERT_TRUE(Eventually([&] { return b.elector->LeaderIdentity() == "a"; }));
  absl::SleepFor(absl::Milliseconds(50));
  absl::Time crash = clock.Now();
  a.Stop();  // no release: like a killed process
  ASSERT_TRUE(Eventually([&] { return b.started.load(); }));
  absl::Duration takeover = b.started_at - crash;
  EXPECT_GE(takeover, absl::Seconds(12));
  EXPECT_LE(takeover, absl::Seconds(15) + absl::Seconds(2) + absl::Milliseconds(500))
      << absl::FormatDuration(takeover);
  b.Stop();
}

TEST(LeaderElectorTest, LeaderThatCannotRenewStopsLeading) {
  FakeClient client;
  FakeClock clock;
  TimeDriver driver(clock);
  Candidate a(client, clock, "a");
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.elector->IsLeader(); }));
  absl::Time cut = clock.Now();
  client.FailNext("GetLease", absl::UnavailableError("apiserver unreachable"), 1000000);
  ASSERT_TRUE(Eventually([&] { return a.stopped.load(); }));
  EXPECT_TRUE(a.leading_stop_seen);
  EXPECT_FALSE(a.elector->IsLeader());
  absl::Duration after = clock.Now() - cut;
  EXPECT_GE(after, absl::Seconds(10)) << "not before renewDeadline";
  EXPECT_LE(after, absl::Seconds(14));
  a.thread.join();
}

TEST(LeaderElectorTest, ConfigValidationNamesEachProblem) {
  LeaderElectionConfig c;
  c.lease_duration = absl::Seconds(5);
  c.renew_deadline = absl::Seconds(10);
  absl::Status s = ValidateLeaderElectionConfig(c);
  EXPECT_THAT(s, trimaran::testing::StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(s.message(),
              ::testing::HasSubstr("leaseDuration must be greater than renewDeadline"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr("identity must not be empty"));
  c.lease_duration = absl::Seconds(15);
  c.identity = DefaultLeaderIdentity();
  TRIMARAN_EXPECT_OK(ValidateLeaderElectionConfig(c));
}

}  // namespace
}  // namespace trimaran::kube
