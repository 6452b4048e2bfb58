#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/stats/registry.h"
#include "common/stats/scope.h"
#include "common/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_load_watcher_client.h"
#include "scheduler/framework/metrics_availability.h"
#include "scheduler/plugins/load_aware/fallback.h"
#include "scheduler/plugins/load_aware/metrics_source.h"
#include "scheduler/plugins/load_aware/metrics_view.h"
#include "scheduler/plugins/load_aware/plugin_metrics.h"
#include "scheduler/plugins/load_aware/recent_pods.h"
#include "scheduler/plugins/load_aware/resource_stats.h"

namespace trimaran::sched::plugins::load_aware {
namespace {

using ::trimaran::kube::testing::MakePod;
using ::trimaran::lw::testing::FakeLoadWatcherClient;
using ::trimaran::lw::testing::MakeWatcherMetrics;

lw::Metric M(absl::string_view type, absl::string_view op, double v) {
  return lw::Metric{"", std::string(type), std::string(op), "", v};
}

TEST(MetricsViewTest, GetResourceData) {
  struct Case {
    std::string name;
    std::vector<lw::Metric> metrics;
    ResourceData want;
  };
  const std::vector<Case> cases = {
      {"none", {}, {0, 0, false}},
      {"other type only", {M("Memory", "AVG", 5)}, {0, 0, false}},
      {"avg and std", {M("CPU", "AVG", 20), M("CPU", "STD", 3)}, {20, 3, true}},
      {"avg beats later latest", {M("CPU", "AVG", 20), M("CPU", "Latest", 90)}, {20, 0, true}},
      {"avg beats earlier latest", {M("CPU", "Latest", 90), M("CPU", "AVG", 20)}, {20, 0, true}},
      {"last avg wins", {M("CPU", "AVG", 20), M("CPU", "AVG", 30)}, {30, 0, true}},
      {"last empty/latest before avg", {M("CPU", "", 10), M("CPU", "Latest", 15)}, {15, 0, true}},
      {"unknown operator still valid", {M("CPU", "P99", 10)}, {0, 0, true}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(GetResourceData(c.metrics, "CPU"), c.want);
  }
}

TEST(MetricsViewTest, NodesWithAnEmptyListAreAbsent) {
  lw::WatcherMetrics m = MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 1).Node("b").Obj();
  MetricsView view(m);
  EXPECT_NE(view.Find("a"), nullptr);
  EXPECT_EQ(view.Find("b"), nullptr);
  EXPECT_EQ(view.window_end(), 1'700'000'000);
}

TEST(MetricsViewTest, BadValuesAndDuplicateHostsMarkTheNode) {
  lw::WatcherMetrics m = MakeWatcherMetrics()
                             .Node("ok")
                             .Cpu(lw::kOpAvg, 100)
                             .Memory(lw::kOpStd, 0)
                             .Node("neg")
                             .Memory(lw::kOpAvg, -0.5)
                             .Node("over")
                             .Cpu(lw::kOpAvg, 100.5)
                             .Node("nan")
                             .Cpu(lw::kOpStd, std::nan(""))
                             .Obj();
  // A type the formulas do not read is not checked (it need not be a percentage).
  m.data.node_metrics_map["other"].metrics.push_back(lw::Metric{"", "Bandwidth", "AVG", "", 5e9});
  m.data.duplicate_hosts = {"dup"};
  const MetricsView view(m);
  EXPECT_FALSE(view.Find("ok")->bad);
  EXPECT_FALSE(view.Find("other")->bad);
  for (const char* node : {"neg", "over", "nan", "dup"}) {
    ASSERT_NE(view.Find(node), nullptr) << node;
    EXPECT_TRUE(view.Find(node)->bad) << node;
  }
}

TEST(ResourceStatsTest, PodRequestsAndLimits) {
  // containers 1 + 2 cores, init 4 cores (max), overhead 100m: 4100m.
  const kube::Pod pod = MakePod()
                            .Name("p")
                            .Req({{"cpu", "1"}})
                            .Req({{"cpu", "2"}, {"memory", "1Gi"}})
                            .InitReq({{"cpu", "4"}})
                            .Overhead({{"cpu", "100m"}})
                            .Obj();
  EXPECT_EQ(PodRequests(pod), (CpuMem{4100, 1LL << 30}));
  EXPECT_EQ(PodLimits(pod), (CpuMem{100, 0}));  // absent limits count 0, overhead added
  CpuMem lim = PodLimits(pod);
  SetMaxLimits(PodRequests(pod), lim);
  EXPECT_EQ(lim, (CpuMem{4100, 1LL << 30}));
}

// The requests are kube-scheduler 1.37's effective ones (kube::ComputePodRequests):
// upstream Trimaran's sum gives 2000m here (containers 1, max with the sidecar's 500m and
// with the init container's 2), but the sidecar runs beside the init container and the
// app: 1 + 0.5 for the app phase, 2 + 0.5 while the init container runs.
TEST(ResourceStatsTest, PodRequestsCountSidecarsAndTheResizeStatus) {
  const kube::Pod sidecar = MakePod()
                                .Name("p")
                                .Req({{"cpu", "1"}})
                                .SidecarReq({{"cpu", "500m"}})
                                .InitReq({{"cpu", "2"}})
                                .Obj();
  EXPECT_EQ(PodRequests(sidecar), (CpuMem{2500, 0}));
  // A shrink to 1 cpu that the kubelet has not applied yet still holds 3.
  const kube::Pod resizing = MakePod()
                                 .Name("r")
                                 .Req({{"cpu", "1"}})
                                 .AllocatedResources("c0", {{"cpu", "3"}})
                                 .ActualResources("c0", {{"cpu", "3"}})
                                 .Obj();
  EXPECT_EQ(PodRequests(resizing), (CpuMem{3000, 0}));
}

TEST(RecentPodTrackerTest, CountsUntilTheWindowCoversThePod) {
  ::trimaran::testing::FakeClock clock;  // 1,700,000,000
  RecentPodTracker tracker(clock);
  const kube::Pod p1 = MakePod().Name("p1").UID("u1").Obj();
  const kube::Pod p2 = MakePod().Name("p2").UID("u2").Obj();
  tracker.Assume(p1, "n", {1000, 10});
  clock.Advance(absl::Seconds(30));
  tracker.Assume(p2, "n", {500, 5});
  const int64_t t0 = 1'700'000'000;
  EXPECT_EQ(tracker.Pending("n", t0), (PodLoad{1500, 15}));       // both newer than E
  EXPECT_EQ(tracker.Pending("n", t0 + 59), (PodLoad{1500, 15}));  // 59 < 60
  EXPECT_EQ(tracker.Pending("n", t0 + 60), (PodLoad{500, 5}));    // p1 covered
  EXPECT_EQ(tracker.Pending("other", t0), (PodLoad{}));
  tracker.Assume(p2, "m", {500, 5});  // re-assumed elsewhere: moves
  EXPECT_EQ(tracker.Pending("n", t0), (PodLoad{1000, 10}));
  tracker.Prune(t0 + 60, absl::InfinitePast());
  EXPECT_EQ(tracker.size(), 1u);
  tracker.Forget(p2);
  tracker.Forget(p2);
  EXPECT_EQ(tracker.size(), 0u);
  // Horizon: entries older than it go whatever E says.
  tracker.Assume(p1, "n", {1, 1});
  tracker.Prune(0, clock.Now() + absl::Seconds(1));
  EXPECT_EQ(tracker.size(), 0u);
}

TEST(MetricsCacheTest, RefreshAndRetryIntervals) {
  ::trimaran::testing::FakeClock clock;
  FakeLoadWatcherClient client;
  MetricsCache cache(&client, clock);
  client.Set(absl::UnavailableError("no data yet"));
  EXPECT_EQ(cache.Get(), nullptr);
  client.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 1).Obj());
  clock.Advance(absl::Seconds(29));
  EXPECT_EQ(cache.Get(), nullptr);  // retry after 30 s
  clock.Advance(absl::Seconds(1));
  auto view = cache.Get();
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(client.requests().size(), 2u);
  // A failing read keeps the previous view.
  client.Set(absl::UnavailableError("down"));
  clock.Advance(absl::Seconds(5));
  EXPECT_EQ(cache.Get(), view);
  EXPECT_EQ(cache.TryGet(), view);
  EXPECT_EQ(client.requests().size(), 3u);
}

// A remote client (remote() true) over a FakeLoadWatcherClient whose reads block while
// it is held (Hold / Release); it records how many reads run at once.
class HangingRemoteClient final : public lw::Client {
 public:
  FakeLoadWatcherClient answers;

  void Hold() {
    absl::MutexLock lock(&mu_);
    held_ = true;
  }
  void Release() {
    absl::MutexLock lock(&mu_);
    held_ = false;
  }
  // Waits (real time, bounded) until `n` reads have started.
  bool AwaitReads(int n) {
    absl::MutexLock lock(&mu_);
    auto started = [this, n]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return reads_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&started), absl::Seconds(10));
  }
  int reads() const {
    absl::MutexLock lock(&mu_);
    return reads_;
  }
  int max_in_flight() const {
    absl::MutexLock lock(&mu_);
    return max_in_flight_;
  }

  using Client::GetLatestMetrics;
  absl::StatusOr<lw::WatcherMetricsPtr> GetLatestMetrics(
      const lw::MetricsRequest& request) override {
    {
      absl::MutexLock lock(&mu_);
      ++reads_;
      max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
      auto released = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return !held_; };
      mu_.Await(absl::Condition(&released));
      --in_flight_;
    }
    return answers.GetLatestMetrics(request);
  }
  bool remote() const override { return true; }

 private:
  mutable absl::Mutex mu_;
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  int reads_ ABSL_GUARDED_BY(mu_) = 0;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  int max_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
};

TEST(MetricsCacheRemoteTest, AHungClientNeverBlocksACycle) {
  ::trimaran::testing::FakeClock clock;
  HangingRemoteClient client;
  client.answers.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 1).Obj());
  client.Hold();
  MetricsCache cache(&client, clock);  // starts the refresher; does not wait for it
  EXPECT_EQ(cache.Get(), nullptr);
  ASSERT_TRUE(client.AwaitReads(1));
  const absl::Time start = absl::Now();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(cache.Get(), nullptr);
    EXPECT_EQ(cache.TryGet(), nullptr);
  }
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  client.Release();
  ASSERT_TRUE(clock.AwaitSleepers(1));  // read done, sleeping until the next one
  auto view = cache.Get();
  ASSERT_NE(view, nullptr);
  EXPECT_NE(view->Find("a"), nullptr);
  // Each read carries the refresher's deadline.
  ASSERT_FALSE(client.answers.requests().empty());
  EXPECT_EQ(client.answers.requests()[0].timeout, absl::Seconds(10));
}

TEST(MetricsCacheRemoteTest, OneRequestInFlightPerSource) {
  ::trimaran::testing::FakeClock clock;
  HangingRemoteClient client;
  client.answers.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 1).Obj());
  client.Hold();
  // Two plugins reading one source share one refresher.
  MetricsCache first(&client, clock);
  MetricsCache second(&client, clock);
  EXPECT_EQ(first.Get(), nullptr);
  EXPECT_EQ(second.Get(), nullptr);
  ASSERT_TRUE(client.AwaitReads(1));
  clock.Advance(absl::Minutes(10));  // the read is still hung: nothing new starts
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(first.Get(), nullptr);
    EXPECT_EQ(second.TryGet(), nullptr);
  }
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(client.reads(), 1);
  client.Release();
  ASSERT_TRUE(clock.AwaitSleepers(1));
  EXPECT_EQ(clock.sleepers(), 1u);  // one refresher thread
  EXPECT_EQ(first.Get(), second.Get());
  // The next read starts refresh_interval after the last one ended.
  EXPECT_EQ(clock.NextDeadline(), clock.Now() + MetricsCache::kDefaultRefreshInterval);
  clock.AdvanceToNextDeadline();
  ASSERT_TRUE(client.AwaitReads(2));
  ASSERT_TRUE(clock.AwaitSleepers(1));
  EXPECT_EQ(client.reads(), 2);
  EXPECT_EQ(client.max_in_flight(), 1);
}

TEST(MetricsCacheRemoteTest, AFailedReadKeepsTheLastGoodSnapshotAndIsCounted) {
  ::trimaran::testing::FakeClock clock;
  stats::Registry registry;
  const stats::Scope scope(registry, "t_");
  HangingRemoteClient client;
  client.answers.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 1).Obj());
  MetricsCache cache(&client, clock, MetricsCacheOptions{.scope = &scope});
  ASSERT_TRUE(clock.AwaitSleepers(1));
  auto view = cache.Get();
  ASSERT_NE(view, nullptr);

  client.answers.Set(absl::ResourceExhaustedError("response body exceeds 67108864 bytes"));
  clock.AdvanceToNextDeadline();  // 5 s: the next read fails
  ASSERT_TRUE(client.AwaitReads(2));
  ASSERT_TRUE(clock.AwaitSleepers(1));
  EXPECT_EQ(cache.Get(), view);
  EXPECT_EQ(cache.TryGet(), view);
  // A failed read is retried after retry_interval.
  EXPECT_EQ(clock.NextDeadline(), clock.Now() + MetricsCache::kDefaultRetryInterval);
  EXPECT_THAT(registry.PrometheusText(),
              ::testing::HasSubstr(
                  "t_plugin_metrics_fetch_failures_total{reason=\"resource_exhausted\"} 1"));

  client.answers.Set(MakeWatcherMetrics().Node("b").Cpu(lw::kOpAvg, 2).Obj());
  clock.AdvanceToNextDeadline();
  ASSERT_TRUE(client.AwaitReads(3));
  ASSERT_TRUE(clock.AwaitSleepers(1));
  auto fresh = cache.Get();
  ASSERT_NE(fresh, nullptr);
  EXPECT_NE(fresh->Find("b"), nullptr);
}

TEST(MetricsCacheRemoteTest, StalenessStillAppliesWhileTheWatcherHangs) {
  ::trimaran::testing::FakeClock clock;  // now = the builders' window end
  stats::Registry registry;
  HangingRemoteClient client;
  client.answers.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 1).Obj());
  TrimaranSpec spec;
  spec.watcher_address = "http://127.0.0.1:1";
  spec.metrics_max_age = absl::Minutes(5);
  client.Hold();
  PluginMetrics metrics(spec, &client, clock, stats::Scope(registry, "t_"), "P");
  ASSERT_TRUE(client.AwaitReads(1));
  EXPECT_EQ(metrics.ForCycle().state, MetricsState::kNoMetrics);  // no good read yet
  client.Release();
  ASSERT_TRUE(clock.AwaitSleepers(1));
  EXPECT_EQ(metrics.ForCycle().state, MetricsState::kOk);

  client.Hold();  // the watcher freezes
  clock.AdvanceToNextDeadline();
  ASSERT_TRUE(client.AwaitReads(2));
  clock.Advance(absl::Minutes(4));
  EXPECT_EQ(metrics.ForCycle().state, MetricsState::kOk);  // the last good view, 4 min old
  clock.Advance(absl::Minutes(2));
  const CycleMetrics stale = metrics.ForCycle();  // never waits for the hung read
  EXPECT_EQ(stale.state, MetricsState::kStale);
  EXPECT_NE(stale.view, nullptr);
  client.Release();
}

TEST(MetricsCacheRemoteTest, DestructionStopsASleepingRefresherAtOnce) {
  ::trimaran::testing::FakeClock clock;
  HangingRemoteClient client;
  client.answers.Set(absl::UnavailableError("down"));
  {
    MetricsCache cache(&client, clock);
    EXPECT_EQ(cache.Get(), nullptr);
    ASSERT_TRUE(clock.AwaitSleepers(1));  // sleeping 30 s (fake) before the retry
  }
  EXPECT_EQ(clock.sleepers(), 0u);
  EXPECT_EQ(client.reads(), 1);
}

TEST(FallbackReporterTest, CountsEveryFallback) {
  stats::Registry registry;
  FallbackReporter reporter("X", stats::Scope(registry, "t_"));
  reporter.Report("a", MetricsState::kStale);
  reporter.Report("a", MetricsState::kStale);
  reporter.Report("b", MetricsState::kNodeMissing);
  reporter.Report("a", MetricsState::kOk);
  reporter.Report("a", MetricsState::kStale);
  EXPECT_EQ(reporter.count(MetricsState::kStale), 3);
  EXPECT_EQ(reporter.count(MetricsState::kNodeMissing), 1);
  EXPECT_THAT(
      registry.PrometheusText(),
      ::testing::HasSubstr("t_plugin_metrics_fallback_total{plugin=\"X\",reason=\"stale\"} 3"));
}

TEST(FallbackReporterTest, ReportCachedCountsLikeReportAndNoticesOtherChanges) {
  stats::Registry registry;
  FallbackReporter reporter("X", stats::Scope(registry, "t_"));
  std::atomic<uint64_t> a{FallbackReporter::kNotReported};
  std::atomic<uint64_t> b{FallbackReporter::kNotReported};
  reporter.ReportCached("a", MetricsState::kStale, a);
  reporter.ReportCached("a", MetricsState::kStale, a);  // cached: counts only
  reporter.ReportCached("b", MetricsState::kOk, b);
  EXPECT_EQ(reporter.count(MetricsState::kStale), 2);
  EXPECT_EQ(reporter.nodes_in_fallback(), 1);
  // A change made without a's word (a plain Report) must not be hidden by a's cache.
  reporter.Report("a", MetricsState::kOk);
  EXPECT_EQ(reporter.nodes_in_fallback(), 0);
  reporter.ReportCached("a", MetricsState::kStale, a);
  EXPECT_EQ(reporter.nodes_in_fallback(), 1);
  EXPECT_EQ(reporter.count(MetricsState::kStale), 3);
  reporter.ReportCached("a", MetricsState::kOk, a);
  EXPECT_EQ(reporter.nodes_in_fallback(), 0);
  reporter.ReportCached("a", MetricsState::kNodeMissing, a);
  reporter.ReportCached("b", MetricsState::kNodeMissing, b);
  reporter.ReportCached("a", MetricsState::kNodeMissing, a);
  EXPECT_EQ(reporter.nodes_in_fallback(), 2);
  EXPECT_EQ(reporter.count(MetricsState::kNodeMissing), 3);
  EXPECT_EQ(reporter.count(MetricsState::kStale), 3);
}

TEST(MetricsViewTest, PendingSumsAndBits) {
  lw::WatcherMetrics metrics =
      MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 10).Node("b").Cpu(lw::kOpAvg, 20).Obj();
  auto view = std::make_shared<const MetricsView>(metrics);
  ::trimaran::testing::FakeClock clock;  // 1,700,000,000 = window.end
  RecentPodTracker tracker(clock);
  tracker.AttachView(view, absl::InfinitePast());
  const NodeUsage& a = *view->Find("a");
  const NodeUsage& b = *view->Find("b");
  EXPECT_FALSE(view->MaybePending(a));
  tracker.Assume(MakePod().Name("p").UID("p").Obj(), "a", PodLoad{100, 5});
  EXPECT_TRUE(view->MaybePending(a));
  EXPECT_FALSE(view->MaybePending(b));
  EXPECT_EQ(PendingLoad(tracker, *view, a, "a", /*attached=*/true), (PodLoad{100, 5}));
  EXPECT_EQ(PendingLoad(tracker, *view, a, "a", /*attached=*/false), (PodLoad{100, 5}));
  EXPECT_EQ(PendingLoad(tracker, *view, b, "b", /*attached=*/true), PodLoad{});
  tracker.Forget(MakePod().Name("p").UID("p").Obj());
  EXPECT_EQ(PendingLoad(tracker, *view, a, "a", /*attached=*/true), PodLoad{});
}

TEST(PluginMetricsTest, FallbackNotesCountOnlyTheCycleSinceTheSnapshot) {
  ::trimaran::testing::FakeClock clock;
  stats::Registry registry;
  TrimaranSpec spec;
  PluginMetrics metrics(spec, nullptr, clock, stats::Scope(registry, "t_"), "P");
  metrics.Report("old", MetricsState::kStale);  // an earlier cycle's
  const FallbackCounts before = metrics.CountsNow();
  metrics.Report("a", MetricsState::kStale);
  metrics.Report("b", MetricsState::kStale);
  metrics.Report("c", MetricsState::kNodeMissing);
  metrics.Report("d", MetricsState::kOk);
  std::vector<std::string> notes;
  metrics.AppendFallbackNotes("P", before, notes);
  EXPECT_EQ(notes, (std::vector<std::string>{
                       "P: node missing from the metrics on 1 node(s), used requests",
                       "P: metrics stale on 2 node(s), used requests"}));

  TrimaranSpec min_score;
  min_score.fallback = FallbackPolicy::kMinScore;
  stats::Registry registry2;
  PluginMetrics zero(min_score, nullptr, clock, stats::Scope(registry2, "t_"), "Q");
  const FallbackCounts start = zero.CountsNow();
  zero.Report("a", MetricsState::kNoMetrics);
  notes.clear();
  zero.AppendFallbackNotes("Q", start, notes);
  EXPECT_EQ(notes, std::vector<std::string>{"Q: no metrics on 1 node(s), scored 0"});
  notes.clear();
  zero.AppendFallbackNotes("Q", zero.CountsNow(), notes);
  EXPECT_TRUE(notes.empty());
}

// Records the observer's calls, one line each.
class RecordingObserver final : public MetricsAvailabilityObserver {
 public:
  void MetricsUnavailable(absl::string_view plugin, absl::string_view source,
                          absl::string_view why) override {
    calls.push_back(absl::StrCat("unavailable ", plugin, ": ", source, ": ", why));
  }
  void MetricsAvailable(absl::string_view plugin, absl::string_view source) override {
    calls.push_back(absl::StrCat("available ", plugin, ": ", source));
  }
  std::vector<std::string> calls;
};

TEST(PluginMetricsTest, TellsTheObserverOncePerChangeAfterTheStartupGrace) {
  ::trimaran::testing::FakeClock clock;
  clock.SetTime(absl::FromUnixSeconds(1'700'000'000));
  FakeLoadWatcherClient client;
  client.Set(absl::UnavailableError("no data yet"));
  stats::Registry registry;
  TrimaranSpec spec;
  spec.metric_provider.type = "Prometheus";
  spec.metric_provider.address = "http://prom:9090";
  RecordingObserver observer;
  PluginMetrics metrics(spec, &client, clock, stats::Scope(registry, "t_"), "TargetLoadPacking",
                        &observer);
  const std::string source = "metricProvider Prometheus http://prom:9090";

  // Within the start-up grace: no metrics, nothing said.
  EXPECT_EQ(metrics.ForCycle().state, MetricsState::kNoMetrics);
  clock.Advance(absl::Seconds(30));
  EXPECT_EQ(metrics.ForCycle().state, MetricsState::kNoMetrics);
  EXPECT_THAT(observer.calls, ::testing::IsEmpty());

  // Past it: said once, however many cycles follow.
  clock.Advance(absl::Seconds(31));
  metrics.ForCycle();
  metrics.ForCycle();
  ASSERT_EQ(observer.calls.size(), 1u);
  EXPECT_EQ(observer.calls[0],
            absl::StrCat("unavailable TargetLoadPacking: ", source,
                         ": no metrics have arrived from it; every node is scored by its "
                         "requests (fallback Requests) until they return"));

  // Metrics arrive (the cache retries 30 s after a failed read): available, once.
  client.Set(MakeWatcherMetrics()
                 .Timestamp(absl::ToUnixSeconds(clock.Now()) + 30)
                 .Node("a")
                 .Cpu(lw::kOpAvg, 1)
                 .Obj());
  clock.Advance(absl::Seconds(30));
  EXPECT_EQ(metrics.ForCycle().state, MetricsState::kOk);
  clock.Advance(absl::Seconds(5));
  metrics.ForCycle();
  ASSERT_EQ(observer.calls.size(), 2u);
  EXPECT_EQ(observer.calls[1], absl::StrCat("available TargetLoadPacking: ", source));

  // The watcher goes down: past metricsMaxAge the last snapshot is stale, said once with
  // its age.
  client.Set(absl::UnavailableError("down"));
  clock.Advance(absl::Minutes(5) - absl::Seconds(5) + absl::Seconds(1));
  EXPECT_EQ(metrics.ForCycle().state, MetricsState::kStale);
  metrics.ForCycle();
  ASSERT_EQ(observer.calls.size(), 3u);
  EXPECT_EQ(observer.calls[2],
            absl::StrCat("unavailable TargetLoadPacking: ", source,
                         ": its newest snapshot is 5m1s old, over metricsMaxAge 5m; every node "
                         "is scored by its requests (fallback Requests) until they return"));
}

TEST(PluginMetricsTest, AnInstanceThatHadMetricsSaysAtOnceWhenTheyGo) {
  ::trimaran::testing::FakeClock clock;
  clock.SetTime(absl::FromUnixSeconds(1'700'000'000));
  FakeLoadWatcherClient client;
  client.Set(MakeWatcherMetrics().Node("a").Cpu(lw::kOpAvg, 1).Obj());
  stats::Registry registry;
  TrimaranSpec spec;
  spec.watcher_address = "http://127.0.0.1:2020";
  spec.metrics_max_age = absl::Seconds(10);
  spec.fallback = FallbackPolicy::kMinScore;
  RecordingObserver observer;
  PluginMetrics metrics(spec, &client, clock, stats::Scope(registry, "t_"), "P", &observer);
  EXPECT_EQ(metrics.ForCycle().state, MetricsState::kOk);
  EXPECT_THAT(observer.calls, ::testing::IsEmpty());  // usable from the start: nothing to say
  clock.Advance(absl::Seconds(11));  // within the grace, but the metrics were there before
  EXPECT_EQ(metrics.ForCycle().state, MetricsState::kStale);
  EXPECT_THAT(observer.calls,
              ::testing::ElementsAre(
                  "unavailable P: watcherAddress http://127.0.0.1:2020: its newest snapshot is "
                  "11s old, over metricsMaxAge 10s; every node scores 0 (fallback MinScore) "
                  "until they return"));
  // No observer: ForCycle works the same and calls nothing.
  PluginMetrics quiet(spec, &client, clock, stats::Scope(registry, "u_"), "P");
  EXPECT_EQ(quiet.ForCycle().state, MetricsState::kStale);
}

}  // namespace
}  // namespace trimaran::sched::plugins::load_aware
