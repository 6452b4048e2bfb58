#include "scheduler/plugins/helper/normalize_score.h"

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::sched::plugins::helper {
namespace {

TEST(DefaultNormalizeScoreTest, Table) {
  struct Case {
    std::string name;
    bool reverse;
    std::vector<int64_t> raw;
    std::vector<int64_t> want;
    std::vector<double> want_exact;
  };
  const std::vector<Case> cases = {
      // m = 3: 100*1/3 = 33 (exact 33.33...), 100*2/3 = 66 (66.66...), 100*3/3 = 100.
      {"scale", false, {1, 2, 3}, {33, 66, 100}, {100.0 / 3, 200.0 / 3, 100.0}},
      // reverse: 100 - 33 = 67, 100 - 66 = 34, 100 - 100 = 0.
      {"reverse", true, {1, 2, 3}, {67, 34, 0}, {200.0 / 3, 100.0 / 3, 0.0}},
      // m = 0: every node 0, or 100 when reverse.
      {"all zero", false, {0, 0}, {0, 0}, {0.0, 0.0}},
      {"all zero reverse", true, {0, 0}, {100, 100}, {100.0, 100.0}},
      // m = 10: 0 -> 0, 5 -> 50, 10 -> 100.
      {"with zero", false, {0, 5, 10}, {0, 50, 100}, {0.0, 50.0, 100.0}},
      {"empty", false, {}, {}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeScoreList scores;
    for (int64_t s : c.raw) scores.push_back(NodeScore{"n", s, std::nullopt});
    DefaultNormalizeScore(100, c.reverse, scores);
    ASSERT_EQ(scores.size(), c.want.size());
    for (size_t i = 0; i < scores.size(); ++i) {
      EXPECT_EQ(scores[i].score, c.want[i]) << i;
      ASSERT_TRUE(scores[i].exact.has_value());
      EXPECT_DOUBLE_EQ(*scores[i].exact, c.want_exact[i]) << i;
    }
  }
}

TEST(DefaultNormalizeScoreTest, UsesRawExactAndClamps) {
  // m = 4 (integer max). Exact 3.5 -> 100*3.5/4 = 87.5; exact 4.5 -> 112.5, clamped to 100.
  NodeScoreList scores = {{"a", 3, 3.5}, {"b", 4, 4.5}};
  DefaultNormalizeScore(100, false, scores);
  EXPECT_EQ(scores[0].score, 75);  // 100*3/4
  EXPECT_DOUBLE_EQ(*scores[0].exact, 87.5);
  EXPECT_EQ(scores[1].score, 100);
  EXPECT_DOUBLE_EQ(*scores[1].exact, 100.0);
}

}  // namespace
}  // namespace trimaran::sched::plugins::helper
