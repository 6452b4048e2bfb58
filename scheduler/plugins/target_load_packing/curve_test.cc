#include "scheduler/plugins/target_load_packing/curve.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace trimaran::sched::plugins::tlp {
namespace {

// Upstream's evaluation, branch by branch (spec §2.5), as the reference.
double Reference(double x, double c, double t) {
  const double u = c != 0 ? 100 * x / c : 0;
  if (u > t) {
    if (u > 100) return 0;
    return t * (100 - u) / (100 - t);
  }
  return (100 - t) * u / t + t;
}

// Same bits (NaN: both NaN).
bool SameBits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

TEST(TargetCurveTest, Branches) {
  struct TestCase {
    const char* name;
    double u;
    double t;
    double want;
  };
  const std::vector<TestCase> cases = {
      // (100 − 50) × 25.5 / 50 + 50 = 75.5
      {"below target", 25.5, 50, 75.5},
      // at the target: (100 − 50) × 50 / 50 + 50 = 100
      {"at target", 50, 50, 100},
      // 50 × (100 − 75) / (100 − 50) = 25
      {"above target", 75, 50, 25},
      // 50 × (100 − 100) / 50 = +0
      {"at 100", 100, 50, 0},
      {"above 100", 101, 50, 0},
      // (100 − 40) × 0 / 40 + 40 = 40
      {"idle", 0, 40, 40},
      // target 100: U <= T always for U <= 100: (0 × U) / 100 + 100
      {"target 100", 99, 100, 100},
      // target 100, U 101 > T and > 100
      {"target 100 overloaded", 101, 100, 0},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_TRUE(SameBits(TargetCurve(tc.u, tc.t), tc.want)) << TargetCurve(tc.u, tc.t);
    EXPECT_TRUE(SameBits(TargetCurve(tc.u, tc.t), Reference(tc.u, 100, tc.t)));
  }
}

TEST(TargetCurveTest, BatchIsBitIdenticalToTheReference) {
  // Random loads on both sides of the target, plus the edges: capacity 0, load 0,
  // exactly at the target and at 100 %, NaN, and odd batch lengths (the scalar tail).
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> load(0, 1.3);
  for (double t : {1.0, 40.0, 50.0, 77.0, 100.0}) {
    for (size_t n : {0, 1, 2, 3, 64, 257}) {
      SCOPED_TRACE(::testing::Message() << "t=" << t << " n=" << n);
      std::vector<double> x(n), c(n), out(n, -1);
      for (size_t i = 0; i < n; ++i) {
        c[i] = std::round(std::uniform_real_distribution<double>(1000, 64000)(rng));
        x[i] = load(rng) * c[i];
        switch (i % 9) {
          case 0:
            c[i] = 0;
            break;  // U = 0
          case 1:
            x[i] = 0;
            break;  // idle
          case 2:
            x[i] = t / 100 * c[i];
            break;  // ≈ at target
          case 3:
            x[i] = c[i];
            break;  // 100 %
          case 4:
            x[i] = std::numeric_limits<double>::quiet_NaN();
            break;
          default:
            break;
        }
      }
      TargetCurveBatch(x, c, t, out);
      for (size_t i = 0; i < n; ++i) {
        const double want = Reference(x[i], c[i], t);
        ASSERT_TRUE(SameBits(out[i], want))
            << "i=" << i << " x=" << x[i] << " c=" << c[i] << " got " << out[i] << " want " << want;
        const double u = c[i] != 0 ? 100 * x[i] / c[i] : 0;
        ASSERT_TRUE(SameBits(TargetCurve(u, t), want)) << "i=" << i;
      }
    }
  }
}

TEST(RoundScoreTest, MatchesStdRound) {
  for (double x : {0.0, 0.49999999999999994, 0.5, 1.5, 2.5, 99.5, 100.0, -0.5, -1.5, -2.4999,
                   4503599627370495.5, 4503599627370496.0, 1e300, -1e300}) {
    // llround, not a cast of round: converting ±1e300 to int64_t is undefined behaviour.
    EXPECT_EQ(RoundScore(x), std::llround(x)) << x;
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-200, 200);
  for (int i = 0; i < 100000; ++i) {
    const double x = dist(rng);
    ASSERT_EQ(RoundScore(x), static_cast<int64_t>(std::round(x))) << x;
  }
}

}  // namespace
}  // namespace trimaran::sched::plugins::tlp
