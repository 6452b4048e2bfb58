#include "scheduler/decisions/decision_json.h"

#include "gtest/gtest.h"

namespace trimaran::sched::decisions {
namespace {

Decision Sample() {
  Decision d;
  d.time = absl::FromUnixMillis(1795726800123);  // 2026-11-26T21:00:00.123Z
  d.pod = "default/spark-exec-1";
  d.uid = "u-1";
  d.profile = "trimaran";
  d.result = DecisionResult::kBound;
  d.node = "node-7";
  d.evaluated_nodes = 5000;
  d.feasible_nodes = 812;
  d.fallbacks = {"TargetLoadPacking: metrics stale on 3 node(s), used requests"};
  d.top = {TopNode{"node-7", 412, {{"TargetLoadPacking", 97}, {"NodeResourcesFit", 88}}},
           TopNode{"node-2", 300, {{"TargetLoadPacking", 50}, {"NodeResourcesFit", 70}}}};
  return d;
}

TEST(DecisionJsonTest, EncodesTheContract) {
  const std::string json = EncodeDecisions(1000, {std::make_shared<const Decision>(Sample())});
  EXPECT_EQ(json,
            R"({"capacity":1000,"decisions":[{"time":"2026-11-26T21:00:00.123Z",)"
            R"("pod":"default/spark-exec-1","uid":"u-1","profile":"trimaran","result":"Bound",)"
            R"("node":"node-7","evaluatedNodes":5000,"feasibleNodes":812,)"
            R"("fallbacks":["TargetLoadPacking: metrics stale on 3 node(s), used requests"],)"
            R"("message":"","top":[{"node":"node-7","total":412,)"
            R"("scores":{"TargetLoadPacking":97,"NodeResourcesFit":88}},)"
            R"({"node":"node-2","total":300,"scores":{"TargetLoadPacking":50,)"
            R"("NodeResourcesFit":70}}]}]})");
}

TEST(DecisionJsonTest, RoundTrips) {
  Decision unschedulable;
  unschedulable.time = absl::FromUnixSeconds(1795726800);
  unschedulable.pod = "ns/p";
  unschedulable.result = DecisionResult::kUnschedulable;
  unschedulable.message = "0/3 nodes are available: 3 Insufficient cpu.";
  absl::StatusOr<DecisionList> back =
      DecodeDecisions(EncodeDecisions(7, {std::make_shared<const Decision>(Sample()),
                                          std::make_shared<const Decision>(unschedulable)}));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->capacity, 7u);
  ASSERT_EQ(back->decisions.size(), 2u);
  EXPECT_EQ(back->decisions[0], Sample());
  EXPECT_EQ(back->decisions[1], unschedulable);
}

TEST(DecisionJsonTest, EmptyList) {
  EXPECT_EQ(EncodeDecisions(0, {}), R"({"capacity":0,"decisions":[]})");
  absl::StatusOr<DecisionList> back = DecodeDecisions(R"({"capacity":0,"decisions":[]})");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->decisions.empty());
}

TEST(DecisionJsonTest, DecodeErrorsNameThePath) {
  struct Case {
    const char* json;
    const char* want;
  } cases[] = {
      {"[", "not JSON"},
      {"[]", "$: must be an object"},
      {R"({"capacity":1})", "decisions: missing"},
      {R"({"decisions":[{"result":"Maybe"}]})", "decisions[0].result: unknown result \"Maybe\""},
      {R"({"decisions":[{"result":"Bound","time":"yesterday"}]})", "decisions[0].time"},
      {R"({"decisions":[{"result":"Bound","top":[{"scores":{"A":"x"}}]}]})",
       "decisions[0].top[0].scores.A: must be an integer"},
      {R"({"decisions":[{"result":"Bound","evaluatedNodes":"5"}]})",
       "decisions[0].evaluatedNodes: must be an integer"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<DecisionList> got = DecodeDecisions(c.json);
    ASSERT_FALSE(got.ok()) << c.json;
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(got.status().message().find(c.want), absl::string_view::npos)
        << got.status() << " want " << c.want;
  }
}

TEST(DecisionJsonTest, UnknownFieldsAreIgnored) {
  absl::StatusOr<DecisionList> got =
      DecodeDecisions(R"({"capacity":2,"extra":1,"decisions":[{"result":"Nominated","new":[]}]})");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->decisions[0].result, DecisionResult::kNominated);
}

}  // namespace
}  // namespace trimaran::sched::decisions
