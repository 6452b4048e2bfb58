#include "scheduler/decisions/decisions_endpoint.h"

#include "gtest/gtest.h"
#include "scheduler/decisions/decision_json.h"

namespace trimaran::sched::decisions {
namespace {

http::ServerRequest Request(std::multimap<std::string, std::string> query) {
  http::ServerRequest r;
  r.method = "GET";
  r.path = "/debug/decisions";
  r.query = std::move(query);
  return r;
}

DecisionList Decode(const http::ServerResponse& res) {
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.content_type, "application/json");
  absl::StatusOr<DecisionList> list = DecodeDecisions(res.body);
  EXPECT_TRUE(list.ok()) << list.status();
  return list.ok() ? *list : DecisionList{};
}

class DecisionsEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 4; ++i) {
      Decision d;
      d.pod = i % 2 == 0 ? "ns/even" : "ns/odd";
      d.evaluated_nodes = i;
      d.result = DecisionResult::kBound;
      ring_.Record(d);
    }
  }
  DecisionRing ring_{100};
};

TEST_F(DecisionsEndpointTest, AllNewestFirst) {
  http::ServerResponse res;
  ServeDecisions(&ring_, Request({}), res);
  DecisionList list = Decode(res);
  EXPECT_EQ(list.capacity, 100u);
  ASSERT_EQ(list.decisions.size(), 4u);
  EXPECT_EQ(list.decisions[0].evaluated_nodes, 3);
  EXPECT_EQ(list.decisions[3].evaluated_nodes, 0);
}

TEST_F(DecisionsEndpointTest, FilterAndLimit) {
  http::ServerResponse res;
  ServeDecisions(&ring_, Request({{"pod", "ns/even"}, {"limit", "1"}}), res);
  DecisionList list = Decode(res);
  ASSERT_EQ(list.decisions.size(), 1u);
  EXPECT_EQ(list.decisions[0].pod, "ns/even");
  EXPECT_EQ(list.decisions[0].evaluated_nodes, 2);
}

TEST_F(DecisionsEndpointTest, UnknownPodIsAnEmptyList) {
  http::ServerResponse res;
  ServeDecisions(&ring_, Request({{"pod", "ns/nobody"}}), res);
  EXPECT_TRUE(Decode(res).decisions.empty());
}

TEST_F(DecisionsEndpointTest, BadLimitIs400) {
  for (const char* bad : {"", "x", "0", "-1", "1.5", "1000001"}) {
    http::ServerResponse res;
    ServeDecisions(&ring_, Request({{"limit", bad}}), res);
    EXPECT_EQ(res.status, 400) << bad;
    EXPECT_NE(res.body.find("invalid limit"), std::string::npos) << res.body;
  }
}

TEST(DecisionsEndpointNoRingTest, RecordingOffIsAnEmptyListWithCapacityZero) {
  http::ServerResponse res;
  ServeDecisions(nullptr, Request({}), res);
  DecisionList list = Decode(res);
  EXPECT_EQ(list.capacity, 0u);
  EXPECT_TRUE(list.decisions.empty());
}

}  // namespace
}  // namespace trimaran::sched::decisions
