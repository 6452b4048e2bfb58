#include "scheduler/decisions/explain_format.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "scheduler/decisions/decision_json.h"

namespace trimaran::sched::decisions {
namespace {

using ::testing::HasSubstr;
using ::trimaran::kube::testing::MakePod;

std::string TestData(const std::string& name) {
  return absl::StrCat(TRIMARANCTL_TESTDATA, "/", name);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Compares with a golden file; TRIMARANCTL_UPDATE_GOLDEN=1 rewrites it instead.
void ExpectGolden(const std::string& actual, const std::string& golden_name) {
  const std::string path = TestData(golden_name);
  if (std::getenv("TRIMARANCTL_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  EXPECT_EQ(actual, ReadFile(path)) << "golden " << path;
}

kube::Pod WebPod(const std::string& node) {
  return MakePod().Name("web-1").Namespace("default").UID("uid-web-1").NodeName(node).Obj();
}

// The newest attempt bound the pod; an earlier one found no room.
DecisionList TwoAttempts() {
  Decision bound;
  bound.time = absl::FromUnixMillis(1795726800123);
  bound.pod = "default/web-1";
  bound.uid = "uid-web-1";
  bound.profile = "trimaran";
  bound.result = DecisionResult::kBound;
  bound.node = "node-7";
  bound.evaluated_nodes = 20;
  bound.feasible_nodes = 12;
  bound.fallbacks = {"TargetLoadPacking: metrics stale on 2 node(s), used requests"};
  bound.top = {
      TopNode{"node-7",
              285,
              {{"TargetLoadPacking", 97}, {"NodeResourcesFit", 88}, {"TaintToleration", 100}}},
      TopNode{"node-3",
              270,
              {{"TargetLoadPacking", 90}, {"NodeResourcesFit", 80}, {"TaintToleration", 100}}},
      TopNode{"node-12",
              201,
              {{"TargetLoadPacking", 61}, {"NodeResourcesFit", 40}, {"TaintToleration", 100}}}};
  Decision failed;
  failed.time = absl::FromUnixMillis(1795726790000);
  failed.pod = "default/web-1";
  failed.uid = "uid-web-1";
  failed.profile = "trimaran";
  failed.result = DecisionResult::kUnschedulable;
  failed.evaluated_nodes = 20;
  failed.message = "0/20 nodes are available: 20 Insufficient cpu.";
  return DecisionList{1000, {bound, failed}};
}

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
