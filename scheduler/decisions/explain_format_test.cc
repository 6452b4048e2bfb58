#include "scheduler/decisions/explain_format.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/decisions/decision_json.h"
#include "scheduler/decisions/testing/decisions_fixture.h"
#include "scheduler/decisions/testing/golden.h"

namespace trimaran::sched::decisions {
namespace {

using testing::ExpectGolden;
using ::testing::HasSubstr;
using testing::TwoAttempts;
using testing::WebPod;

TEST(ExplainFormatTest, GoldenTable) {
  ExpectGolden(FormatExplainTable(WebPod("node-7"), TwoAttempts()), "explain.table.golden");
}

TEST(ExplainFormatTest, GoldenJson) {
  ExpectGolden(FormatExplainJson(WebPod("node-7"), TwoAttempts()), "explain.json.golden");
}

TEST(ExplainFormatTest, SaysWhenTheNodeNameDiffers) {
  const std::string table = FormatExplainTable(WebPod("node-9"), TwoAttempts());
  EXPECT_THAT(table, HasSubstr("Node now:  node-9 (DIFFERS from the decision's node-7)"));
  EXPECT_THAT(FormatExplainJson(WebPod("node-9"), TwoAttempts()),
              HasSubstr("\"nodeNameAgrees\":false"));
}

TEST(ExplainFormatTest, OnlyFeasibleNodeIsNotScored) {
  Decision d;
  d.pod = "default/web-1";
  d.result = DecisionResult::kBound;
  d.node = "node-1";
  d.evaluated_nodes = 3;
  d.feasible_nodes = 1;
  d.top = {TopNode{"node-1", 0, {}}};
  EXPECT_THAT(FormatExplainTable(WebPod("node-1"), DecisionList{10, {d}}),
              HasSubstr("Not scored: node-1 was the only node that fits."));
}

}  // namespace
}  // namespace trimaran::sched::decisions
