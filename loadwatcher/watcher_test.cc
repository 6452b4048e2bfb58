#include "loadwatcher/watcher.h"

#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "common/stats/stats.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loadwatcher/in_process_client.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"
#include "loadwatcher/testing/fake_metrics_provider.h"

namespace trimaran::lw {
namespace {

using ::testing::HasSubstr;
using ::trimaran::lw::testing::FakeMetricsProvider;
using ::trimaran::lw::testing::MakeWatcherMetrics;
using ::trimaran::testing::FakeClock;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

constexpr int64_t kStart = 1'700'000'000;  // FakeClock's default start

NodeMetricsMap Nodes(double cpu) {
  return MakeWatcherMetrics().Node("n1").Cpu(kOpAvg, cpu).Nodes();
}

class WatcherTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  FakeMetricsProvider provider_{"Prometheus", &clock_};
  stats::Registry registry_;
  Watcher watcher_{provider_, clock_, stats::Scope(registry_, "trimaran_loadwatcher_")};

  double CpuOf(absl::string_view window) {
    auto s = watcher_.Latest(window);
    if (!s.ok()) return -1;
    return s->metrics->data.node_metrics_map.at("n1").metrics.at(0).value;
  }
  bool MetricsTextHas(absl::string_view line) {
    return absl::StrContains(registry_.PrometheusText(), line);
  }
};

TEST_F(WatcherTest, NoDataBeforeFirstFetch) {
  EXPECT_FALSE(watcher_.HasData());
  EXPECT_THAT(watcher_.Latest(), StatusIs(absl::StatusCode::kUnavailable,
                                          HasSubstr("unable to get any latest metrics")));
  EXPECT_THAT(watcher_.Latest("1h"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(MetricsTextHas("trimaran_loadwatcher_metrics_age_seconds{window=\"15m\"} -1"));
}

TEST_F(WatcherTest, FetchesEveryWindowInOrderWithUnixSecondWindows) {
  for (const char* w : {"15m", "10m", "5m"}) provider_.SetNodes(w, Nodes(40));
  provider_.SetLatency("15m", absl::Seconds(2));
  ASSERT_THAT(watcher_.FetchOnce(), IsOk());
  const std::vector<Window> calls = provider_.windows();
  ASSERT_EQ(calls.size(), 3u);
  // 15m at t0: [t0-900, t0]; its fetch takes 2 s, so 10m starts at t0+2: [t0+2-600, t0+2].
  EXPECT_EQ(calls[0], (Window{"15m", kStart - 900, kStart}));
  EXPECT_EQ(calls[1], (Window{"10m", kStart + 2 - 600, kStart + 2}));
  EXPECT_EQ(calls[2], (Window{"5m", kStart + 2 - 300, kStart + 2}));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Snapshot s, watcher_.Latest("15m"));
  EXPECT_EQ(s.metrics->timestamp, kStart + 2);  // after the fetch
  EXPECT_EQ(s.metrics->source, "Prometheus");
  EXPECT_EQ(s.fetch_time, absl::FromUnixSeconds(kStart + 2));
  EXPECT_TRUE(
      MetricsTextHas("trimaran_loadwatcher_fetches_total{provider=\"Prometheus\",window=\"15m\","
                     "result=\"ok\"} 1"));
  EXPECT_TRUE(MetricsTextHas("trimaran_loadwatcher_nodes{window=\"15m\",state=\"with_data\"} 1"));
  clock_.Advance(absl::Seconds(30));
  // age = (t0 + 32) - (t0 + 2) = 30 s
  EXPECT_TRUE(MetricsTextHas("trimaran_loadwatcher_metrics_age_seconds{window=\"15m\"} 30"));
}

TEST_F(WatcherTest, FallbackOrderIsUpstreams) {
  struct Case {
    std::string name;
    std::vector<std::string> windows_with_data;  // value: 15m=15, 10m=10, 5m=5
    double want15, want10, want5;                // -1: Unavailable
  };
  const std::vector<Case> cases = {
      {"all", {"15m", "10m", "5m"}, 15, 10, 5},
      {"15m missing falls back to 10m", {"10m", "5m"}, 10, 10, 5},
      {"15m never falls back to 5m", {"5m"}, -1, 5, 5},
      {"10m missing falls back to 5m", {"15m", "5m"}, 15, 5, 5},
      {"5m alone has no fallback", {"15m", "10m"}, 15, 10, -1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeClock clock;
    FakeMetricsProvider provider("Prometheus", &clock);
    stats::Registry registry;
    Watcher watcher(provider, clock, stats::Scope(registry));
    for (const std::string& w : c.windows_with_data) {
      provider.SetNodes(w, Nodes(static_cast<double>(WindowSeconds(w) / 60)));
    }
    (void)watcher.FetchOnce();
    auto cpu = [&](absl::string_view w) -> double {
      auto s = watcher.Latest(w);
      return s.ok() ? s->metrics->data.node_metrics_map.at("n1").metrics.at(0).value : -1;
    };
    EXPECT_EQ(cpu("15m"), c.want15);
    EXPECT_EQ(cpu("10m"), c.want10);
    EXPECT_EQ(cpu("5m"), c.want5);
  }
}

TEST_F(WatcherTest, FailedFetchKeepsLastGoodDataReportsAgeAndCountsError) {
  for (const char* w : {"15m", "10m", "5m"}) provider_.SetNodes(w, Nodes(40));
  ASSERT_THAT(watcher_.FetchOnce(), IsOk());
  // The 15m backend now answers garbage (what a provider returns for undecodable JSON).
  provider_.SetResult("15m", absl::InternalError("decode prometheus response: garbage"));
  provider_.SetNodes("10m", Nodes(55));
  clock_.Advance(absl::Seconds(60));
  EXPECT_THAT(watcher_.FetchOnce(),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("fetch window 15m from Prometheus")));
  EXPECT_EQ(CpuOf("15m"), 40);  // last good, not the 10m fallback
  EXPECT_EQ(CpuOf("10m"), 55);  // the other windows still update
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Snapshot s, watcher_.Latest("15m"));
  EXPECT_EQ(s.Age(clock_.Now()), absl::Seconds(60));
  const WindowStatus st = watcher_.Status()[0];
  EXPECT_EQ(st.window, "15m");
  EXPECT_EQ(st.fetches, 2);
  EXPECT_EQ(st.failed_fetches, 1);
  EXPECT_EQ(st.consecutive_failures, 1);
  EXPECT_THAT(st.last_error, StatusIs(absl::StatusCode::kInternal));
  EXPECT_TRUE(MetricsTextHas("trimaran_loadwatcher_fetch_errors_total{provider=\"Prometheus\"} 1"));
  EXPECT_TRUE(MetricsTextHas("trimaran_loadwatcher_metrics_age_seconds{window=\"15m\"} 60"));
  EXPECT_TRUE(MetricsTextHas("trimaran_loadwatcher_metrics_age_seconds{window=\"10m\"} 0"));

  // Recovery resets the consecutive count.
  provider_.SetNodes("15m", Nodes(41));
  ASSERT_THAT(watcher_.FetchOnce(), IsOk());
  EXPECT_EQ(CpuOf("15m"), 41);
  EXPECT_EQ(watcher_.Status()[0].consecutive_failures, 0);
}

TEST_F(WatcherTest, PartialErrorsKeepTheDataThatArrived) {
  HostsMetrics partial{Nodes(40),
                       {absl::DeadlineExceededError("query kepler_node_gpu: timeout"),
                        absl::UnavailableError("query disk: 503")}};
  provider_.SetResult("15m", partial);
  EXPECT_THAT(watcher_.FetchOnce(), StatusIs(absl::StatusCode::kUnavailable));  // 10m/5m: none
  EXPECT_EQ(CpuOf("15m"), 40);
  EXPECT_EQ(watcher_.Status()[0].partial_errors, 2);
  EXPECT_THAT(watcher_.Status()[0].last_error, StatusIs(absl::StatusCode::kDeadlineExceeded));
  // 2 partial errors (15m) + 2 failed fetches (10m, 5m) = 4
  EXPECT_TRUE(MetricsTextHas("trimaran_loadwatcher_fetch_errors_total{provider=\"Prometheus\"} 4"));
  EXPECT_TRUE(
      MetricsTextHas("trimaran_loadwatcher_fetches_total{provider=\"Prometheus\",window=\"15m\","
                     "result=\"partial\"} 1"));
}

TEST_F(WatcherTest, DropsNonFiniteValuesAndCountsNodesWithoutData) {
  provider_.SetNodes("15m", MakeWatcherMetrics()
                                .Node("n1")
                                .Cpu(kOpAvg, 40)
                                .Cpu(kOpStd, std::nan(""))
                                .Node("n2")
                                .Cpu(kOpAvg, INFINITY)
                                .Nodes());
  (void)watcher_.FetchOnce();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Snapshot s, watcher_.Latest("15m"));
  EXPECT_EQ(s.metrics->data.node_metrics_map.at("n1").metrics.size(), 1u);
  EXPECT_TRUE(s.metrics->data.node_metrics_map.at("n2").metrics.empty());
  EXPECT_TRUE(
      MetricsTextHas("trimaran_loadwatcher_dropped_metrics_total{provider=\"Prometheus\"} 2"));
  EXPECT_TRUE(
      MetricsTextHas("trimaran_loadwatcher_nodes{window=\"15m\",state=\"without_data\"} 1"));
}

TEST_F(WatcherTest, ExportsEachNodesUtilisationAndForgetsNodesThatLeave) {
  provider_.SetNodes("15m", MakeWatcherMetrics()
                                .Node("n1")
                                .Cpu(kOpAvg, 40)
                                .Memory(kOpAvg, 55)
                                .Node("n2")
                                .Cpu(kOpAvg, 12.5)
                                .Nodes());
  (void)watcher_.FetchOnce();
  EXPECT_TRUE(MetricsTextHas(
      "trimaran_loadwatcher_node_utilisation_ratio{node=\"n1\",resource=\"cpu\",window=\"15m\","
      "operator=\"AVG\"} 0.4\n"));
  EXPECT_TRUE(MetricsTextHas(
      "trimaran_loadwatcher_node_utilisation_ratio{node=\"n1\",resource=\"memory\",window=\"15m\","
      "operator=\"AVG\"} 0.55\n"));
  EXPECT_TRUE(MetricsTextHas(
      "trimaran_loadwatcher_node_utilisation_ratio{node=\"n2\",resource=\"cpu\",window=\"15m\","
      "operator=\"AVG\"} 0.125\n"));

  // n2 leaves, n1's CPU changes: n2's series goes, n1's follows.
  provider_.SetNodes("15m", MakeWatcherMetrics().Node("n1").Cpu(kOpAvg, 80).Nodes());
  (void)watcher_.FetchOnce();
  EXPECT_TRUE(MetricsTextHas(
      "trimaran_loadwatcher_node_utilisation_ratio{node=\"n1\",resource=\"cpu\",window=\"15m\","
      "operator=\"AVG\"} 0.8\n"));
  EXPECT_FALSE(MetricsTextHas("node=\"n2\""));
  EXPECT_FALSE(MetricsTextHas("resource=\"memory\",window=\"15m\""));

  // A failed fetch keeps the last good snapshot's series.
  provider_.SetResult("15m", absl::UnavailableError("down"));
  (void)watcher_.FetchOnce();
  EXPECT_TRUE(MetricsTextHas(
      "trimaran_loadwatcher_node_utilisation_ratio{node=\"n1\",resource=\"cpu\",window=\"15m\","
      "operator=\"AVG\"} 0.8\n"));
}

TEST_F(WatcherTest, HistoryKeepsTheLastFive) {
  for (int i = 1; i <= 7; ++i) {
    provider_.SetNodes("5m", Nodes(i));
    (void)watcher_.FetchOnce();
    clock_.Advance(absl::Seconds(60));
  }
  const std::vector<Snapshot> h = watcher_.History("5m");
  ASSERT_EQ(h.size(), 5u);
  // Fetches 3..7 remain, oldest first.
  EXPECT_EQ(h.front().metrics->data.node_metrics_map.at("n1").metrics[0].value, 3);
  EXPECT_EQ(h.back().metrics->data.node_metrics_map.at("n1").metrics[0].value, 7);
  EXPECT_TRUE(watcher_.History("15m").empty());
}

TEST_F(WatcherTest, RunFetchesEveryIntervalOnTheClockAndStops) {
  for (const char* w : {"15m", "10m", "5m"}) provider_.SetNodes(w, Nodes(40));
  std::jthread runner([this](std::stop_token stop) { watcher_.Run(stop); });
  // First tick at once: 3 snapshots. Waits on the watcher's condition, not a sleep.
  EXPECT_GE(watcher_.AwaitGeneration(2, absl::Seconds(10)), 3u);
  EXPECT_EQ(provider_.windows().size(), 3u);
  clock_.Advance(absl::Seconds(60));
  EXPECT_GE(watcher_.AwaitGeneration(5, absl::Seconds(10)), 6u);
  runner.request_stop();
  runner.join();
  EXPECT_EQ(provider_.windows().size(), 6u);
  EXPECT_EQ(provider_.windows()[3].end, kStart + 60);
}

TEST_F(WatcherTest, InProcessClientFiltersHosts) {
  provider_.SetNodes(
      "15m", MakeWatcherMetrics().Node("a").Cpu(kOpAvg, 1).Node("b").Cpu(kOpAvg, 2).Nodes());
  InProcessClient client(watcher_);
  EXPECT_THAT(client.GetLatestMetrics(), StatusIs(absl::StatusCode::kUnavailable));
  (void)watcher_.FetchOnce();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr all, client.GetLatestMetrics());
  EXPECT_EQ(all->data.node_metrics_map.size(), 2u);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr one,
                                client.GetLatestMetrics(MetricsRequest{"15m", {"b", "zzz"}}));
  ASSERT_EQ(one->data.node_metrics_map.size(), 1u);
  EXPECT_TRUE(one->data.node_metrics_map.contains("b"));
}

TEST_F(WatcherTest, InProcessClientSharesTheWatchersSnapshotWithoutCopying) {
  provider_.SetNodes(
      "15m", MakeWatcherMetrics().Node("a").Cpu(kOpAvg, 1).Node("b").Cpu(kOpAvg, 2).Nodes());
  InProcessClient client(watcher_);
  (void)watcher_.FetchOnce();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr first, client.GetLatestMetrics());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr second, client.GetLatestMetrics());
  EXPECT_EQ(first.get(), watcher_.Latest()->metrics.get()) << "the watcher's own snapshot";
  EXPECT_EQ(first.get(), second.get());
  // A request naming hosts gets a snapshot of its own; the shared one is untouched.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr one,
                                client.GetLatestMetrics(MetricsRequest{"15m", {"a"}}));
  EXPECT_NE(one.get(), first.get());
  EXPECT_EQ(one->data.node_metrics_map.size(), 1u);
  EXPECT_EQ(first->data.node_metrics_map.size(), 2u);
  // A newer fetch replaces the snapshot; holders of the old one keep it unchanged.
  (void)watcher_.FetchOnce();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr newer, client.GetLatestMetrics());
  EXPECT_NE(newer.get(), first.get());
  EXPECT_EQ(first->data.node_metrics_map.size(), 2u);
}

TEST(FakeLoadWatcherClientTest, WindowAnswerWinsOverDefault) {
  testing::FakeLoadWatcherClient client;
  EXPECT_THAT(client.GetLatestMetrics(), StatusIs(absl::StatusCode::kUnavailable));
  client.Set(MakeWatcherMetrics().Node("n1").Cpu(kOpAvg, 40).Obj());
  client.Set("10m", absl::UnavailableError("not yet"));
  EXPECT_THAT(client.GetLatestMetrics(), IsOk());
  EXPECT_THAT(client.GetLatestMetrics(MetricsRequest{"10m", {}}),
              StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(client.requests().size(), 3u);
}

}  // namespace
}  // namespace trimaran::lw
