// Tests of the metric types on their own: Counter, Gauge, Histogram, callback metrics
// and the bucket helpers.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "common/check.h"
#include "common/stats/callback_metric.h"
#include "common/stats/counter.h"
#include "common/stats/gauge.h"
#include "common/stats/histogram.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::stats {
namespace {

using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

constexpr int kThreads = 4;
constexpr int kPerThread = 20000;

// Runs `fn` on kThreads threads at once and joins them.
template <typename Fn>
void RunConcurrently(Fn fn) {
  std::vector<std::jthread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(fn);
}

TEST(CounterTest, Adds) {
  struct TestCase {
    std::string name;
    std::vector<double> double_adds;
    std::vector<uint64_t> integer_adds;
    double want;
  };
  const std::vector<TestCase> cases = {
      {"nothing", {}, {}, 0},
      {"integers", {}, {1, 2, 3}, 6},
      {"doubles", {0.5, 0.25}, {}, 0.75},
      {"both", {0.5}, {10}, 10.5},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    Counter counter;
    for (double d : tc.double_adds) counter.Add(d);
    for (uint64_t i : tc.integer_adds) counter.Add(i);
    EXPECT_THAT(counter.Value(), DoubleEq(tc.want));
  }
}

TEST(CounterTest, IncAndIntegerLiterals) {
  Counter counter;
  counter.Inc();
  counter.Add(2);   // int: the integer path, not ambiguous with Add(double).
  counter.Add(3u);  // unsigned.
  counter.Add(0.5);
  EXPECT_EQ(counter.Value(), 6.5);
}

TEST(CounterTest, NegativeAddIsABugAndIgnored) {
  Counter counter;
  counter.Add(5);
  const uint64_t bugs_before = BugCount();
  counter.Add(-1);
  counter.Add(-0.5);
  counter.Add(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(counter.Value(), 5);
  EXPECT_EQ(BugCount(), bugs_before + 3);
}

TEST(CounterTest, ConcurrentIncrementsAreNotLost) {
  Counter counter;
  RunConcurrently([&] {
    for (int i = 0; i < kPerThread; ++i) {
      counter.Inc();
      counter.Add(0.5);
    }
  });
  EXPECT_EQ(counter.Value(), kThreads * kPerThread * 1.5);
}

TEST(GaugeTest, Operations) {
  Gauge gauge;
  EXPECT_EQ(gauge.Value(), 0);
  gauge.Set(10);
  gauge.Add(2.5);
  gauge.Sub(0.5);
  gauge.Inc();
  gauge.Dec();
  gauge.Dec();
  EXPECT_EQ(gauge.Value(), 11);
  gauge.Set(-3);
  EXPECT_EQ(gauge.Value(), -3);
}

TEST(GaugeTest, ConcurrentAddsAreNotLost) {
  Gauge gauge;
  RunConcurrently([&] {
    for (int i = 0; i < kPerThread; ++i) {
      gauge.Add(2);
      gauge.Dec();
    }
  });
  EXPECT_EQ(gauge.Value(), kThreads * kPerThread);
}

TEST(BucketsTest, Helpers) {
  EXPECT_THAT(ExponentialBuckets(1, 2, 4), ElementsAre(1, 2, 4, 8));
  EXPECT_THAT(ExponentialBuckets(0.001, 10, 3),
              ElementsAre(DoubleEq(0.001), DoubleEq(0.01), DoubleEq(0.1)));
  EXPECT_THAT(LinearBuckets(0, 10, 3), ElementsAre(0, 10, 20));
  EXPECT_THAT(LinearBuckets(-1, 0.5, 3), ElementsAre(-1, -0.5, 0));
  EXPECT_THAT(DefaultBuckets(), ElementsAre(.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10));
}

TEST(BucketsDeathTest, BadHelperArgumentsAreFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(ExponentialBuckets(0, 2, 3), "start > 0");
  EXPECT_DEATH(ExponentialBuckets(1, 1, 3), "factor > 1");
  EXPECT_DEATH(ExponentialBuckets(1, 2, 0), "count >= 1");
  EXPECT_DEATH(LinearBuckets(0, 0, 3), "width > 0");
  EXPECT_DEATH(LinearBuckets(0, 1, 0), "count >= 1");
  EXPECT_DEATH(Histogram({2, 1}), "strictly increasing");
}

TEST(BucketsTest, Normalize) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct TestCase {
    std::string name;
    std::vector<double> in;
    std::vector<double> want;  // When OK.
    std::string want_error;    // Substring; empty when OK.
  };
  const std::vector<TestCase> cases = {
      {"empty means default", {}, DefaultBuckets(), ""},
      {"kept", {1, 2, 3}, {1, 2, 3}, ""},
      {"trailing inf dropped", {1, inf}, {1}, ""},
      {"only inf", {inf}, {}, ""},
      {"negative bounds", {-inf, -1, 0}, {-inf, -1, 0}, ""},
      {"duplicate", {1, 1}, {}, "strictly increasing"},
      {"decreasing", {2, 1}, {}, "bound 1 (1) follows 2"},
      {"nan", {1, nan}, {}, "NaN"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    absl::StatusOr<std::vector<double>> got = NormalizeBuckets(tc.in);
    if (tc.want_error.empty()) {
      ASSERT_THAT(got, IsOk());
      EXPECT_THAT(*got, ElementsAreArray(tc.want));
    } else {
      EXPECT_THAT(got, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(tc.want_error)));
    }
  }
}

TEST(HistogramTest, BucketPlacement) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct TestCase {
    std::string name;
    std::vector<double> observations;
    std::vector<uint64_t> want_cumulative;  // Buckets le=1, le=2, le=5, le=+Inf.
    double want_sum;
  };
  const std::vector<TestCase> cases = {
      {"none", {}, {0, 0, 0, 0}, 0},
      {"bound is inclusive", {1, 2, 5}, {1, 2, 3, 3}, 8},
      {"between bounds", {0.5, 1.5, 4}, {1, 2, 3, 3}, 6},
      {"above every bound", {6, 100}, {0, 0, 0, 2}, 106},
      {"negative goes first", {-10}, {1, 1, 1, 1}, -10},
      {"+inf goes last", {inf}, {0, 0, 0, 1}, inf},
      {"-inf goes first", {-inf}, {1, 1, 1, 1}, -inf},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    Histogram histogram({1, 2, 5});
    for (double v : tc.observations) histogram.Observe(v);
    HistogramSnapshot snapshot = histogram.Snapshot();
    EXPECT_THAT(snapshot.cumulative_counts, ElementsAreArray(tc.want_cumulative));
    EXPECT_EQ(snapshot.count, tc.observations.size());
    EXPECT_EQ(snapshot.sum, tc.want_sum);
  }
  // NaN, as in the Go client: counted in +Inf only, and the sum becomes NaN.
  Histogram histogram({1, 2, 5});
  histogram.Observe(nan);
  HistogramSnapshot snapshot = histogram.Snapshot();
  EXPECT_THAT(snapshot.cumulative_counts, ElementsAre(0, 0, 0, 1));
  EXPECT_TRUE(std::isnan(snapshot.sum));
}

TEST(HistogramTest, NormalizesBounds) {
  EXPECT_THAT(Histogram({1, std::numeric_limits<double>::infinity()}).bounds(), ElementsAre(1));
  EXPECT_EQ(Histogram({}).bounds(), DefaultBuckets());
}

TEST(HistogramTest, ConcurrentObservationsAreNotLost) {
  Histogram histogram({1, 10});
  RunConcurrently([&] {
    for (int i = 0; i < kPerThread; ++i) {
      histogram.Observe(0.5);
      histogram.Observe(5);
    }
  });
  HistogramSnapshot snapshot = histogram.Snapshot();
  const uint64_t n = kThreads * kPerThread;
  EXPECT_THAT(snapshot.cumulative_counts, ElementsAre(n, 2 * n, 2 * n));
  EXPECT_EQ(snapshot.sum, n * 5.5);
}

TEST(CallbackMetricTest, SetReplaceClear) {
  CallbackGauge gauge;
  EXPECT_EQ(gauge.Value(), std::nullopt);
  int calls = 0;
  gauge.Set([&] { return ++calls * 1.5; });
  EXPECT_EQ(gauge.Value(), 1.5);
  EXPECT_EQ(gauge.Value(), 3);
  gauge.Set([] { return 7.0; });
  EXPECT_EQ(gauge.Value(), 7);
  gauge.Clear();
  EXPECT_EQ(gauge.Value(), std::nullopt);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace trimaran::stats
