#include "kube/leader_elector.h"

#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"

namespace trimaran::kube {
namespace {

using kube::testing::FakeClient;
using trimaran::testing::FakeClock;

struct Candidate {
  Candidate(FakeClient& client, FakeClock& clock, std::string id, bool release = true) {
    LeaderElectionConfig c;
    c.lease_name = "trimaran";
    c.identity = std::move(id);
    c.release_on_cancel = release;
    c.on_started_leading = [this, &clock](std::stop_token stop) {
      started_at = clock.Now();
      started = true;
      clock.SleepUntil(absl::InfiniteFuture(), stop);  // "leads" until the stop
      leading_stop_seen = true;
    };
    c.on_stopped_leading = [this] { stopped = true; };
    elector = std::make_unique<LeaderElector>(client, clock, c);
  }
  void Start() {
    running = true;
    thread = std::jthread([this](std::stop_token stop) {
      elector->Run(stop);
      running = false;
    });
  }
  void Stop() {
    thread.request_stop();
    thread.join();
  }
  // Threads of this candidate that sleep on the clock when it is idle: the elector's,
  // and the leading callback's while it leads.
  size_t IdleSleepers() const {
    if (!running) return 0;
    return elector->IsLeader() ? 2 : 1;
  }
  std::unique_ptr<LeaderElector> elector;
  std::jthread thread;
  std::atomic<bool> running{false};
  std::atomic<bool> started{false};
  std::atomic<bool> stopped{false};
  std::atomic<bool> leading_stop_seen{false};
  absl::Time started_at;
};

// Runs the candidates on fake time, deterministically: the clock moves only when every
// thread of theirs sleeps on it, and then straight to the earliest wake-up.
class TimeDriver {
 public:
  TimeDriver(FakeClock& clock, std::vector<const Candidate*> candidates)
      : clock_(clock), candidates_(std::move(candidates)) {}

  // Waits (real time, at most 20 s) until every candidate thread sleeps, or `done`.
  bool Settle(const std::function<bool()>& done = [] { return false; }) {
    const absl::Time give_up = absl::Now() + absl::Seconds(20);
    while (!clock_.AwaitSleepers(IdleSleepers(), absl::Milliseconds(2))) {
      if (done() || absl::Now() > give_up) return done();
    }
    return true;
  }

  // Steps until `done` holds once the candidates settled; false after 10 minutes of fake
  // time or 20 s of real time.
  bool Until(const std::function<bool()>& done) {
    const absl::Time give_up = clock_.Now() + absl::Minutes(10);
    const absl::Time real_give_up = absl::Now() + absl::Seconds(20);
    while (true) {
      if (!Settle(done)) return false;
      if (done()) return true;
      if (clock_.Now() >= give_up || absl::Now() > real_give_up) return false;
      // To the earliest wake-up, once a thread sleeps with a deadline (a thread that is
      // winding down may not: then look again).
      clock_.AdvanceWhenSleeping(IdleSleepers(), absl::Milliseconds(2));
    }
  }

 private:
  size_t IdleSleepers() const {
    size_t n = 0;
    for (const Candidate* c : candidates_) n += c->IdleSleepers();
    return n;
  }

  FakeClock& clock_;
  const std::vector<const Candidate*> candidates_;
};

TEST(LeaderElectorTest, ExactlyOneLeadsAndReleaseHandsOver) {
  FakeClient client;
  FakeClock clock;
  Candidate a(client, clock, "a"), b(client, clock, "b");
  TimeDriver driver(clock, {&a, &b});
  a.Start();
  ASSERT_TRUE(driver.Until([&] { return a.elector->IsLeader(); }));
  b.Start();
  // 40 s of fake time: a renews, b never leads.
  absl::Time until = clock.Now() + absl::Seconds(40);
  while (clock.Now() < until) {
    ASSERT_TRUE(driver.Settle());
    ASSERT_FALSE(b.elector->IsLeader());
    ASSERT_TRUE(a.elector->IsLeader());
    ASSERT_TRUE(clock.AdvanceToNextDeadline());
  }
  ASSERT_TRUE(driver.Settle());
  EXPECT_EQ(b.elector->LeaderIdentity(), "a");
  // A graceful stop releases the lease: b takes over without waiting out 15 s.
  absl::Time stop_at = clock.Now();
  a.Stop();
  EXPECT_TRUE(a.stopped);
  EXPECT_TRUE(a.leading_stop_seen);
  ASSERT_TRUE(driver.Until([&] { return b.started.load(); }));
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
  Candidate a(client, clock, "a", /*release=*/false), b(client, clock, "b");
  TimeDriver driver(clock, {&a, &b});
  a.Start();
  ASSERT_TRUE(driver.Until([&] { return a.elector->IsLeader(); }));
  b.Start();
  ASSERT_TRUE(driver.Until([&] { return b.elector->LeaderIdentity() == "a"; }));
  // A few renewals pass before the crash.
  const absl::Time steady = clock.Now() + absl::Seconds(7);
  ASSERT_TRUE(driver.Until([&] { return clock.Now() >= steady; }));
  absl::Time crash = clock.Now();
  a.Stop();  // no release: like a killed process
  ASSERT_TRUE(driver.Until([&] { return b.started.load(); }));
  absl::Duration takeover = b.started_at - crash;
  EXPECT_GE(takeover, absl::Seconds(12));
  EXPECT_LE(takeover, absl::Seconds(15) + absl::Seconds(2) + absl::Milliseconds(500))
      << absl::FormatDuration(takeover);
  b.Stop();
}

TEST(LeaderElectorTest, LeaderThatCannotRenewStopsLeading) {
  FakeClient client;
  FakeClock clock;
  Candidate a(client, clock, "a");
  TimeDriver driver(clock, {&a});
  a.Start();
  ASSERT_TRUE(driver.Until([&] { return a.elector->IsLeader(); }));
  absl::Time cut = clock.Now();
  client.FailNext("GetLease", absl::UnavailableError("apiserver unreachable"), 1000000);
  ASSERT_TRUE(driver.Until([&] { return a.stopped.load(); }));
  EXPECT_TRUE(a.leading_stop_seen);
  EXPECT_FALSE(a.elector->IsLeader());
  absl::Duration after = clock.Now() - cut;
  EXPECT_GE(after, absl::Seconds(10)) << "not before renewDeadline";
  EXPECT_LE(after, absl::Seconds(14));
  a.thread.join();
}

TEST(LeaderElectorTest, HungRenewIsCancelledAtRenewDeadlineAndFencesAtOnce) {
  FakeClock clock;
  FakeClient client(clock);  // hung calls wait on the elector's clock
  Candidate a(client, clock, "a");
  TimeDriver driver(clock, {&a});
  EXPECT_EQ(a.elector->LeadingUntil(), absl::InfinitePast()) << "not leading yet";
  a.Start();
  ASSERT_TRUE(driver.Until([&] { return a.elector->IsLeader(); }));
  // A few renewals; LeadingUntil follows the last one.
  const absl::Time steady = clock.Now() + absl::Seconds(5);
  ASSERT_TRUE(driver.Until([&] { return clock.Now() >= steady; }));
  const absl::Time last_renew = a.elector->LastRenew();
  EXPECT_EQ(a.elector->LeadingUntil(), last_renew + absl::Seconds(10));
  // Every lease call now hangs (no answer, ever): each renew attempt is cut at the
  // deadline instead of blocking the elector.
  client.Hang("GetLease", true);
  client.Hang("UpdateLease", true);
  const int gets_before = client.Calls("GetLease");
  ASSERT_TRUE(driver.Until([&] { return a.stopped.load(); }));
  EXPECT_TRUE(a.leading_stop_seen);
  EXPECT_FALSE(a.elector->IsLeader());
  EXPECT_EQ(a.elector->LeadingUntil(), absl::InfinitePast());
  EXPECT_GT(client.Calls("GetLease"), gets_before) << "the hung GET was made";
  // Lost exactly at last renew + renewDeadline: not a retry period later, and not
  // after a request timeout.
  EXPECT_GE(clock.Now(), last_renew + absl::Seconds(10));
  EXPECT_LE(clock.Now(), last_renew + absl::Seconds(10) + absl::Milliseconds(100));
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
