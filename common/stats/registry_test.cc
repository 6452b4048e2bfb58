// Tests of families, the Registry, its exposition text, Scope and the X-macros.

#include "common/stats/registry.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/stats/scope.h"
#include "common/stats/stats.h"
#include "common/stats/stats_macros.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// A component's stats, declared once (stats_macros.h).
#define TRIMARAN_TEST_QUEUE_STATS(COUNTER, GAUGE, HISTOGRAM)                    \
  COUNTER(incoming_pods_total, "Pods added to the queues.", ("event", "queue")) \
  COUNTER(flushes_total, "Unschedulable pod flushes.", ())                      \
  GAUGE(pending_pods, "Pods waiting, by queue.", ("queue"))                     \
  HISTOGRAM(wait_seconds, "Time from enqueue to pop.", (),                      \
            ::trimaran::stats::ExponentialBuckets(1, 2, 3))                     \
  HISTOGRAM(batch_size, "Pods per flush.", ("queue"), (std::vector<double>{1, 10}))

namespace trimaran::stats {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

struct TestQueueStats {
  TRIMARAN_TEST_QUEUE_STATS(TRIMARAN_STATS_COUNTER_MEMBER, TRIMARAN_STATS_GAUGE_MEMBER,
                            TRIMARAN_STATS_HISTOGRAM_MEMBER)
};

// Fills `registry` with one family of each kind, exercising escaping and sorting.
void PopulateSample(Registry& registry) {
  Family<Counter>& requests = registry.CounterFamily(
      "test_requests_total", "Requests served, by code and method.", {"code", "method"});
  requests.WithLabels({"500", "post"}).Add(1.5);
  requests.WithLabels({"200", "get"}).Add(3);
  requests.WithLabels({"200", "escape \\ \" \n"}).Inc();

  registry.GaugeFamily("test_temperature_celsius", "Help with \\ backslash\nand newline.")
      .Get()
      .Set(-2.5);

  Histogram& latency =
      registry.HistogramFamily("test_latency_seconds", "Request latency.", {}, {0.1, 1}).Get();
  for (double v : {0.25, 0.5, 3.0}) latency.Observe(v);

  Family<CallbackGauge>& queue =
      registry.CallbackGaugeFamily("test_queue_length", "Pods in each queue.", {"queue"});
  queue.WithLabels({"active"}).Set([] { return 3.0; });
  queue.WithLabels({"backoff"}).Set([] { return 1e6; });
  queue.WithLabels({"no_callback"});  // Not exported: there is no value to write.

  registry.CounterFamily("test_unused_total", "A family without children: omitted.", {"x"});
}

constexpr char kSampleText[] =
    R"(# HELP test_latency_seconds Request latency.
# TYPE test_latency_seconds histogram
test_latency_seconds_bucket{le="0.1"} 0
test_latency_seconds_bucket{le="1"} 2
test_latency_seconds_bucket{le="+Inf"} 3
test_latency_seconds_sum 3.75
test_latency_seconds_count 3
# HELP test_queue_length Pods in each queue.
# TYPE test_queue_length gauge
test_queue_length{queue="active"} 3
test_queue_length{queue="backoff"} 1e+06
# HELP test_requests_total Requests served, by code and method.
# TYPE test_requests_total counter
test_requests_total{code="200",method="escape \\ \" \n"} 1
test_requests_total{code="200",method="get"} 3
test_requests_total{code="500",method="post"} 1.5
# HELP test_temperature_celsius Help with \\ backslash\nand newline.
# TYPE test_temperature_celsius gauge
test_temperature_celsius -2.5
)";

TEST(RegistryTest, PrometheusText) {
  Registry registry;
  PopulateSample(registry);
  EXPECT_EQ(registry.PrometheusText(), kSampleText);
}

TEST(RegistryTest, EmptyRegistryWritesNothing) {
  Registry registry;
  EXPECT_EQ(registry.PrometheusText(), "");
}

TEST(RegistryTest, FamilyWithoutLabelsIsExportedFromTheStart) {
  Registry registry;
  registry.CounterFamily("test_events_total", "");  // No help: no HELP line.
  registry.HistogramFamily("test_size_bytes", "Sizes.", {}, {1024});
  EXPECT_EQ(registry.PrometheusText(),
            "# TYPE test_events_total counter\n"
            "test_events_total 0\n"
            "# HELP test_size_bytes Sizes.\n"
            "# TYPE test_size_bytes histogram\n"
            "test_size_bytes_bucket{le=\"1024\"} 0\n"
            "test_size_bytes_bucket{le=\"+Inf\"} 0\n"
            "test_size_bytes_sum 0\n"
            "test_size_bytes_count 0\n");
}

TEST(RegistryTest, HistogramLabelsComeBeforeLe) {
  Registry registry;
  registry.HistogramFamily("test_wait_seconds", "Wait.", {"queue"}, {1})
      .WithLabels({"active"})
      .Observe(0.5);
  EXPECT_THAT(registry.PrometheusText(),
              HasSubstr("test_wait_seconds_bucket{queue=\"active\",le=\"1\"} 1\n"
                        "test_wait_seconds_bucket{queue=\"active\",le=\"+Inf\"} 1\n"
                        "test_wait_seconds_sum{queue=\"active\"} 0.5\n"
                        "test_wait_seconds_count{queue=\"active\"} 1\n"));
}

TEST(RegistryTest, SameRegistrationReturnsTheSameFamily) {
  Registry registry;
  Family<Counter>& a = registry.CounterFamily("test_total", "Help.", {"x"});
  Family<Counter>& b = registry.CounterFamily("test_total", "Other help is ignored.", {"x"});
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(&a.WithLabels({"1"}), &b.WithLabels({"1"}));
  EXPECT_NE(&a.WithLabels({"1"}), &a.WithLabels({"2"}));

  Family<Histogram>& h1 = registry.HistogramFamily("test_seconds", "", {}, {1, 2});
  // A trailing +Inf normalizes to the same buckets.
  Family<Histogram>& h2 = registry.HistogramFamily("test_seconds", "", {},
                                                   {1, 2, std::numeric_limits<double>::infinity()});
  EXPECT_EQ(&h1, &h2);
}

TEST(RegistryTest, WithLabelsOverloads) {
  Registry registry;
  Family<Gauge>& family = registry.GaugeFamily("test_gauge", "", {"a", "b"});
  Gauge& from_list = family.WithLabels({"x", "y"});
  const std::vector<std::string> strings = {"x", "y"};
  const std::vector<absl::string_view> views = {"x", "y"};
  EXPECT_EQ(&family.WithLabels(strings), &from_list);
  EXPECT_EQ(&family.WithLabels(views), &from_list);
  const std::string x = "x";
  EXPECT_EQ(&family.WithLabels({x, std::string("y")}), &from_list);
}

TEST(RegistryTest, RegistrationErrors) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct TestCase {
    std::string name;
    std::function<void(Registry&)> setup;
    std::function<absl::Status(Registry&)> attempt;
    absl::StatusCode want_code;
    std::string want_message;
  };
  auto status = [](const auto& statusor) { return statusor.status(); };
  const std::vector<TestCase> cases = {
      {"bad metric name", nullptr,
       [&](Registry& r) { return status(r.RegisterCounterFamily("bad-name", "")); },
       absl::StatusCode::kInvalidArgument, "metric name \"bad-name\" does not match"},
      {"empty metric name", nullptr,
       [&](Registry& r) { return status(r.RegisterGaugeFamily("", "")); },
       absl::StatusCode::kInvalidArgument, "does not match"},
      {"bad label name", nullptr,
       [&](Registry& r) { return status(r.RegisterCounterFamily("test_total", "", {"a:b"})); },
       absl::StatusCode::kInvalidArgument, "label name \"a:b\" does not match"},
      {"reserved label name", nullptr,
       [&](Registry& r) { return status(r.RegisterCounterFamily("test_total", "", {"__x"})); },
       absl::StatusCode::kInvalidArgument, "reserved"},
      {"repeated label name", nullptr,
       [&](Registry& r) {
         return status(r.RegisterCounterFamily("test_total", "", {"a", "b", "a"}));
       },
       absl::StatusCode::kInvalidArgument, "label name \"a\" repeats"},
      {"le on a histogram", nullptr,
       [&](Registry& r) {
         return status(r.RegisterHistogramFamily("test_seconds", "", {"le"}, {1}));
       },
       absl::StatusCode::kInvalidArgument, "reserved for buckets"},
      {"bad buckets", nullptr,
       [&](Registry& r) {
         return status(r.RegisterHistogramFamily("test_seconds", "", {}, {1, nan}));
       },
       absl::StatusCode::kInvalidArgument, "histogram test_seconds: bucket bound 1 is NaN"},
      {"other type", [](Registry& r) { r.CounterFamily("test_x", ""); },
       [&](Registry& r) { return status(r.RegisterGaugeFamily("test_x", "")); },
       absl::StatusCode::kAlreadyExists,
       "metric test_x is registered as a counter with labels {}; cannot register it as a "
       "gauge with labels {}"},
      {"gauge vs callback gauge", [](Registry& r) { r.GaugeFamily("test_x", ""); },
       [&](Registry& r) { return status(r.RegisterCallbackGaugeFamily("test_x", "")); },
       absl::StatusCode::kAlreadyExists, "as a callback gauge"},
      {"other labels", [](Registry& r) { r.CounterFamily("test_total", "", {"a"}); },
       [&](Registry& r) { return status(r.RegisterCounterFamily("test_total", "", {"b"})); },
       absl::StatusCode::kAlreadyExists,
       "labels {a}; cannot register it as a counter with labels {b}"},
      {"other buckets",
       [](Registry& r) {
         r.HistogramFamily("test_seconds", "", {}, {1, 2});
       },
       [&](Registry& r) {
         return status(r.RegisterHistogramFamily("test_seconds", "", {}, {1, 3}));
       },
       absl::StatusCode::kAlreadyExists, "buckets {1,2}; cannot register"},
      {"counter named like a histogram series",
       [](Registry& r) { r.HistogramFamily("test_seconds", "", {}, {1}); },
       [&](Registry& r) { return status(r.RegisterCounterFamily("test_seconds_count", "")); },
       absl::StatusCode::kAlreadyExists, "collides with a series of histogram test_seconds"},
      {"histogram whose series exists", [](Registry& r) { r.GaugeFamily("test_seconds_sum", ""); },
       [&](Registry& r) { return status(r.RegisterHistogramFamily("test_seconds", "", {}, {1})); },
       absl::StatusCode::kAlreadyExists, "would write series test_seconds_sum"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    Registry registry;
    if (tc.setup) tc.setup(registry);
    EXPECT_THAT(tc.attempt(registry), StatusIs(tc.want_code, HasSubstr(tc.want_message)));
  }
}

TEST(RegistryTest, SuffixesAreFineWithoutAHistogram) {
  Registry registry;
  EXPECT_THAT(registry.RegisterGaugeFamily("test_queue_count", ""), IsOk());
  EXPECT_THAT(registry.RegisterGaugeFamily("test_queue", ""), IsOk());
}

TEST(RegistryDeathTest, ProgrammingErrorsAreFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  Registry registry;
  Family<Counter>& family = registry.CounterFamily("test_total", "", {"a", "b"});
  EXPECT_DEATH(family.WithLabels({"only one"}), "metric test_total has 2 label names but got 1");
  EXPECT_DEATH(family.Get(), "has 2 label names but got 0");
  EXPECT_DEATH(family.Remove({"1", "2", "3"}), "got 3 label values");
  EXPECT_DEATH(registry.GaugeFamily("test_total", ""), "registered as a counter");
  EXPECT_DEATH(registry.CounterFamily("0bad", ""), "does not match");
}

TEST(RegistryTest, RemoveStopsExportingAndWithLabelsRestores) {
  Registry registry;
  Family<Gauge>& family = registry.GaugeFamily("test_node_pods", "Pods per node.", {"node"});
  Gauge& n1 = family.WithLabels({"n1"});
  n1.Set(4);
  family.WithLabels({"n2"}).Set(2);
  EXPECT_EQ(family.size(), 2u);

  EXPECT_TRUE(family.Remove({"n1"}));
  EXPECT_FALSE(family.Remove({"n1"}));      // Already removed.
  EXPECT_FALSE(family.Remove({"absent"}));  // Never existed.
  EXPECT_EQ(family.size(), 1u);
  std::string text = registry.PrometheusText();
  EXPECT_THAT(text, Not(HasSubstr("n1")));
  EXPECT_THAT(text, HasSubstr("test_node_pods{node=\"n2\"} 2\n"));

  n1.Set(5);  // A cached reference stays valid while removed.
  EXPECT_EQ(&family.WithLabels({"n1"}), &n1);
  EXPECT_EQ(family.size(), 2u);
  EXPECT_THAT(registry.PrometheusText(), HasSubstr("test_node_pods{node=\"n1\"} 5\n"));

  // Removing every child removes the family from the output.
  EXPECT_TRUE(family.Remove({"n1"}));
  EXPECT_TRUE(family.Remove({"n2"}));
  EXPECT_EQ(registry.PrometheusText(), "");
}

TEST(RegistryTest, CallbackGauges) {
  Registry registry;
  double age = 0;
  Family<CallbackGauge>& metrics_age = registry.CallbackGaugeFamily(
      "test_metrics_age_seconds", "Age of the last metrics, by provider.", {"provider"});
  metrics_age.WithLabels({"Prometheus"}).Set([&age] { return age; });

  age = 12.5;
  EXPECT_EQ(registry.PrometheusText(),
            "# HELP test_metrics_age_seconds Age of the last metrics, by provider.\n"
            "# TYPE test_metrics_age_seconds gauge\n"
            "test_metrics_age_seconds{provider=\"Prometheus\"} 12.5\n");
  age = 30;
  EXPECT_THAT(registry.PrometheusText(), HasSubstr("{provider=\"Prometheus\"} 30\n"));

  metrics_age.WithLabels({"Prometheus"}).Clear();  // The owner goes away.
  EXPECT_EQ(registry.PrometheusText(), "");
}

TEST(RegistryTest, CallbackCounter) {
  Registry registry;
  registry.CallbackCounterFamily("test_polls_total", "Polls.").Get().Set([] { return 7.0; });
  EXPECT_EQ(registry.PrometheusText(),
            "# HELP test_polls_total Polls.\n"
            "# TYPE test_polls_total counter\n"
            "test_polls_total 7\n");
}

TEST(RegistryTest, CallbackMayRegisterWhileScraped) {
  Registry registry;
  registry.CallbackGaugeFamily("test_a", "").Get().Set([&registry] {
    registry.CounterFamily("test_b_total", "").Get().Inc();
    return 1.0;
  });
  // The first scrape lists the families before the callback registers test_b_total.
  EXPECT_EQ(registry.PrometheusText(), "# TYPE test_a gauge\ntest_a 1\n");
  // The second calls the callback (test_b_total becomes 2), then reads test_b_total.
  EXPECT_THAT(registry.PrometheusText(), HasSubstr("test_b_total 2\n"));
}

TEST(RegistryTest, DefaultRegistryIsSharedAndExportsBugs) {
  Registry& registry = DefaultRegistry();
  EXPECT_EQ(&registry, &DefaultRegistry());
  EXPECT_THAT(registry.PrometheusText(),
              HasSubstr(absl::StrCat("# TYPE trimaran_bugs_total counter\ntrimaran_bugs_total ",
                                     FormatValue(static_cast<double>(BugCount())), "\n")));
}

TEST(ScopeTest, PrefixesNames) {
  Registry registry;
  Scope scheduler(registry, "trimaran_scheduler_");
  Scope queue = scheduler.Child("queue_");
  EXPECT_EQ(queue.prefix(), "trimaran_scheduler_queue_");
  EXPECT_EQ(&queue.registry(), &registry);
  queue.CounterFamily("incoming_pods_total", "Pods.").Get().Inc();
  EXPECT_EQ(&queue.CounterFamily("incoming_pods_total", "Pods."),
            &registry.CounterFamily("trimaran_scheduler_queue_incoming_pods_total", "Pods."));
  EXPECT_THAT(registry.PrometheusText(),
              HasSubstr("trimaran_scheduler_queue_incoming_pods_total 1\n"));
}

TEST(StatsMacrosTest, DeclaresAndRegistersAllStats) {
  Registry registry;
  Scope scope(registry, "trimaran_scheduler_queue_");
  TestQueueStats stats{TRIMARAN_TEST_QUEUE_STATS(TRIMARAN_STATS_COUNTER_INIT(scope),
                                                 TRIMARAN_STATS_GAUGE_INIT(scope),
                                                 TRIMARAN_STATS_HISTOGRAM_INIT(scope))};
  stats.incoming_pods_total.WithLabels({"PodAdd", "active"}).Inc();
  stats.flushes_total.Get().Add(2);
  stats.pending_pods.WithLabels({"active"}).Set(3);
  stats.wait_seconds.Get().Observe(3);
  stats.batch_size.WithLabels({"backoff"}).Observe(5);

  EXPECT_EQ(registry.PrometheusText(),
            R"(# HELP trimaran_scheduler_queue_batch_size Pods per flush.
# TYPE trimaran_scheduler_queue_batch_size histogram
trimaran_scheduler_queue_batch_size_bucket{queue="backoff",le="1"} 0
trimaran_scheduler_queue_batch_size_bucket{queue="backoff",le="10"} 1
trimaran_scheduler_queue_batch_size_bucket{queue="backoff",le="+Inf"} 1
trimaran_scheduler_queue_batch_size_sum{queue="backoff"} 5
trimaran_scheduler_queue_batch_size_count{queue="backoff"} 1
# HELP trimaran_scheduler_queue_flushes_total Unschedulable pod flushes.
# TYPE trimaran_scheduler_queue_flushes_total counter
trimaran_scheduler_queue_flushes_total 2
# HELP trimaran_scheduler_queue_incoming_pods_total Pods added to the queues.
# TYPE trimaran_scheduler_queue_incoming_pods_total counter
trimaran_scheduler_queue_incoming_pods_total{event="PodAdd",queue="active"} 1
# HELP trimaran_scheduler_queue_pending_pods Pods waiting, by queue.
# TYPE trimaran_scheduler_queue_pending_pods gauge
trimaran_scheduler_queue_pending_pods{queue="active"} 3
# HELP trimaran_scheduler_queue_wait_seconds Time from enqueue to pop.
# TYPE trimaran_scheduler_queue_wait_seconds histogram
trimaran_scheduler_queue_wait_seconds_bucket{le="1"} 0
trimaran_scheduler_queue_wait_seconds_bucket{le="2"} 0
trimaran_scheduler_queue_wait_seconds_bucket{le="4"} 1
trimaran_scheduler_queue_wait_seconds_bucket{le="+Inf"} 1
trimaran_scheduler_queue_wait_seconds_sum 3
trimaran_scheduler_queue_wait_seconds_count 1
)");

  // A second instance of the component shares the same families.
  TestQueueStats again{TRIMARAN_TEST_QUEUE_STATS(TRIMARAN_STATS_COUNTER_INIT(scope),
                                                 TRIMARAN_STATS_GAUGE_INIT(scope),
                                                 TRIMARAN_STATS_HISTOGRAM_INIT(scope))};
  EXPECT_EQ(&again.incoming_pods_total, &stats.incoming_pods_total);
  EXPECT_EQ(&again.batch_size, &stats.batch_size);

  // A Registry works as the scope too (no prefix).
  TestQueueStats unprefixed{TRIMARAN_TEST_QUEUE_STATS(TRIMARAN_STATS_COUNTER_INIT(registry),
                                                      TRIMARAN_STATS_GAUGE_INIT(registry),
                                                      TRIMARAN_STATS_HISTOGRAM_INIT(registry))};
  EXPECT_EQ(&unprefixed.flushes_total,
            &registry.CounterFamily("flushes_total", "Unschedulable pod flushes."));
}

TEST(RegistryTest, ConcurrentUse) {
  // Several threads increment the same cached child, create children, register
  // families and scrape, all at once. Run under -DTRIMARAN_SANITIZE=thread too.
  Registry registry;
  Family<Counter>& family = registry.CounterFamily("test_ops_total", "Ops.", {"worker"});
  Counter& shared = family.WithLabels({"shared"});
  Histogram& latency = registry.HistogramFamily("test_op_seconds", "Op latency.", {}, {1}).Get();
  constexpr int kThreads = 4;
  constexpr int kIterations = 5000;
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        const std::string own = absl::StrCat("w", t);
        for (int i = 0; i < kIterations; ++i) {
          shared.Inc();
          family.WithLabels({own}).Inc();
          family.WithLabels({"shared"}).Add(0.5);
          latency.Observe(0.5);
          if (i % 500 == 0) {
            registry.GaugeFamily(absl::StrCat("test_gauge_", t, "_", i), "").Get().Set(i);
            EXPECT_THAT(registry.PrometheusText(), HasSubstr("test_ops_total"));
          }
        }
      });
    }
  }
  EXPECT_EQ(shared.Value(), kThreads * kIterations * 1.5);
  EXPECT_EQ(family.size(), 1u + kThreads);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(family.WithLabels({absl::StrCat("w", t)}).Value(), kIterations);
  }
  EXPECT_EQ(latency.Snapshot().count, uint64_t{kThreads * kIterations});
}

// Runs Debian's promtool (package `prometheus`) on an exposition, when it is installed.
TEST(RegistryTest, PromtoolAcceptsTheOutput) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool not installed (apt-get install prometheus)";
  }
  Registry registry;
  PopulateSample(registry);
  Scope scope(registry, "trimaran_scheduler_queue_");
  TestQueueStats stats{TRIMARAN_TEST_QUEUE_STATS(TRIMARAN_STATS_COUNTER_INIT(scope),
                                                 TRIMARAN_STATS_GAUGE_INIT(scope),
                                                 TRIMARAN_STATS_HISTOGRAM_INIT(scope))};
  stats.incoming_pods_total.WithLabels({"PodAdd", "active"}).Inc();
  stats.pending_pods.WithLabels({"active"}).Set(3);
  stats.batch_size.WithLabels({"backoff"}).Observe(5);

  const std::string dir = ::testing::TempDir();
  const std::string input = dir + "/stats_promtool_input.txt";
  const std::string output = dir + "/stats_promtool_output.txt";
  {
    std::ofstream file(input);
    file << registry.PrometheusText();
  }
  const int rc =
      std::system(absl::StrCat("promtool check metrics < ", input, " > ", output, " 2>&1").c_str());
  std::ifstream result(output);
  const std::string message((std::istreambuf_iterator<char>(result)),
                            std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << message;
  std::remove(input.c_str());
  std::remove(output.c_str());
}

}  // namespace
}  // namespace trimaran::stats
