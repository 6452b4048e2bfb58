#include "scheduler/extender/score_mapping.h"

#include "gtest/gtest.h"

namespace trimaran::sched::extender {
namespace {

TEST(ScoreMappingTest, MapsTheProfileTotalToZeroToTen) {
  struct Case {
    int64_t total, max_total, want;
  };
  for (const Case& c : {
           Case{0, 100, 0},     // nothing
           Case{100, 100, 10},  // the best possible total
           Case{54, 100, 5},    // rounds down
           Case{55, 100, 6},    // halves round up
           Case{149, 300, 5},   // 4.97 with three unit weights
           Case{700, 1000, 7},  // weights sum to 10
           Case{150, 100, 10},  // above the maximum: clamped
           Case{-5, 100, 0},    // below zero: clamped
           Case{50, 0, 0},      // no score plugin ran
       }) {
    EXPECT_EQ(ToExtenderPriority(c.total, c.max_total), c.want)
        << "total " << c.total << " of " << c.max_total;
  }
}

}  // namespace
}  // namespace trimaran::sched::extender
