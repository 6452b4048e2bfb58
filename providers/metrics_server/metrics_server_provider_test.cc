#include "providers/metrics_server/metrics_server_provider.h"

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"
#include "kube/testing/wrappers.h"

namespace trimaran::providers::metrics_server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(TRIMARAN_METRICS_SERVER_TESTDATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

lw::Metric Latest(absl::string_view type, double value) {
  return lw::Metric{
      .name = "", .type = std::string(type), .op = "Latest", .rollup = "", .value = value};
}

lw::Window Window15m() { return lw::Window{"15m", 1700000000 - 900, 1700000000}; }

class MetricsServerProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    body_ = ReadTestdata("node_metrics.json");
    ASSERT_FALSE(body_.empty());
    client_.SetRawHandler([this](absl::string_view method, absl::string_view path,
                                 absl::string_view) -> absl::StatusOr<std::string> {
      requests_.push_back(absl::StrCat(method, " ", path));
      if (path != kNodeMetricsPath) return absl::NotFoundError("no such path");
      return body_;
    });
    using kube::testing::MakeNode;
    // node-a: 4 cores, 8Gi; node-b: 2 cores, 4Gi, allocatable 1 core, 2Gi.
    ASSERT_THAT(
        client_
            .CreateNode(MakeNode().Name("node-a").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Obj())
            .status(),
        IsOk());
    ASSERT_THAT(client_
                    .CreateNode(MakeNode()
                                    .Name("node-b")
                                    .Capacity({{"cpu", "2"}, {"memory", "4Gi"}})
                                    .Allocatable({{"cpu", "1"}, {"memory", "2Gi"}})
                                    .Obj())
                    .status(),
                IsOk());
    ASSERT_THAT(
        client_
            .CreateNode(
                MakeNode().Name("node-bad").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Obj())
            .status(),
        IsOk());
    // In the cluster but unknown to metrics-server (e.g. just joined).
    ASSERT_THAT(
        client_
            .CreateNode(
                MakeNode().Name("node-new").Capacity({{"cpu", "4"}, {"memory", "8Gi"}}).Obj())
            .status(),
        IsOk());
  }

  kube::testing::FakeClient client_;
  std::string body_;
  std::vector<std::string> requests_;
};

TEST_F(MetricsServerProviderTest, ParsesRealNodeMetricsList) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(NodeUsageList list, ParseNodeMetricsList(body_));
  ASSERT_THAT(list.items, SizeIs(3));
  EXPECT_EQ(list.items[0].name, "node-a");
  EXPECT_EQ(list.items[0].cpu.MilliValue(), 500);             // 500000000n = 500m
  EXPECT_EQ(list.items[0].memory.Value(), int64_t{2} << 30);  // 2097152Ki = 2Gi
  EXPECT_EQ(list.items[1].cpu.MilliValue(), 2);               // 1234567n -> 1.23m, up
  EXPECT_EQ(list.items[1].memory.Value(), 2048 * 1024);       // 2048Ki
  EXPECT_EQ(list.items[2].name, "node-gone");
  ASSERT_THAT(list.errors, SizeIs(1));
  EXPECT_THAT(list.errors[0], StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("node-bad")));
}

TEST(ParseNodeMetricsListTest, BadDocuments) {
  struct Case {
    const char* name;
    const char* json;
    bool ok;
    size_t items;
    size_t errors;
  };
  const Case cases[] = {
      {"garbage", "{not json", false, 0, 0},
      {"array", "[]", false, 0, 0},
      {"no items", R"({"kind":"NodeMetricsList"})", false, 0, 0},
      {"null items", R"({"items":null})", true, 0, 0},
      {"empty", R"({"items":[]})", true, 0, 0},
      {"no name", R"({"items":[{"usage":{"cpu":"1","memory":"1"}}]})", true, 0, 1},
      {"no usage", R"({"items":[{"metadata":{"name":"n"}}]})", true, 0, 1},
      {"no memory", R"({"items":[{"metadata":{"name":"n"},"usage":{"cpu":"1"}}]})", true, 0, 1},
      {"number", R"({"items":[{"metadata":{"name":"n"},"usage":{"cpu":1,"memory":"1"}}]})", true, 0,
       1},
      {"good", R"({"items":[{"metadata":{"name":"n"},"usage":{"cpu":"1","memory":"1"}}]})", true, 1,
       0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto list = ParseNodeMetricsList(c.json);
    if (!c.ok) {
      EXPECT_THAT(list.status(), StatusIs(absl::StatusCode::kInternal));
      continue;
    }
    ASSERT_THAT(list.status(), IsOk());
    EXPECT_THAT(list->items, SizeIs(c.items));
    EXPECT_THAT(list->errors, SizeIs(c.errors));
  }
}

TEST_F(MetricsServerProviderTest, FetchAllUsesCapacityAndReportsProblems) {
  MetricsServerProvider provider(client_);
  EXPECT_EQ(provider.Name(), "KubernetesMetricsServer");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics got, provider.FetchAllHostsMetrics(Window15m()));
  ASSERT_THAT(got.nodes, SizeIs(2));
  // node-a: 100 * 500m / 4000m = 12.5; 100 * 2Gi / 8Gi = 25.
  EXPECT_THAT(got.nodes["node-a"].metrics, ElementsAre(Latest("CPU", 12.5), Latest("Memory", 25)));
  // node-b (capacity 2 cores, 4Gi): 100 * 2m / 2000m = 0.1; 100 * 2048Ki / 4194304Ki =
  // 0.048828125.
  EXPECT_THAT(got.nodes["node-b"].metrics,
              ElementsAre(Latest("CPU", 0.1), Latest("Memory", 0.048828125)));
  EXPECT_EQ(got.nodes["node-b"].data_center, "");
  // node-bad: bad quantity; node-gone: not a node; node-bad, node-new: no metrics.
  ASSERT_THAT(got.partial_errors, SizeIs(3));
  EXPECT_THAT(got.partial_errors[0],
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("node-bad")));
  EXPECT_THAT(got.partial_errors[1],
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("not in the node list: node-gone")));
  EXPECT_THAT(got.partial_errors[2],
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("no metrics for 2 node(s): node-bad, node-new")));
  EXPECT_THAT(requests_, ElementsAre("GET /apis/metrics.k8s.io/v1beta1/nodes"));
}

TEST_F(MetricsServerProviderTest, AllocatableOption) {
  MetricsServerProvider provider(client_, Options{.use_allocatable = true});
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics got, provider.FetchAllHostsMetrics(Window15m()));
  // node-b (allocatable 1 core, 2Gi): 100 * 2m / 1000m = 0.2; 100 * 2Mi / 2Gi = 0.09765625.
  EXPECT_THAT(got.nodes["node-b"].metrics,
              ElementsAre(Latest("CPU", 0.2), Latest("Memory", 0.09765625)));
}

TEST_F(MetricsServerProviderTest, EveryWindowGetsTheLatestValues) {
  MetricsServerProvider provider(client_);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics w15, provider.FetchAllHostsMetrics(Window15m()));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics w5, provider.FetchAllHostsMetrics(lw::Window{
                                                         "5m", 1700000000 - 300, 1700000000}));
  EXPECT_EQ(w15.nodes, w5.nodes);
}

TEST_F(MetricsServerProviderTest, FetchHostMetrics) {
  MetricsServerProvider provider(client_);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::vector<lw::Metric> got,
                                provider.FetchHostMetrics("node-a", Window15m()));
  EXPECT_THAT(got, ElementsAre(Latest("CPU", 12.5), Latest("Memory", 25)));
  EXPECT_THAT(provider.FetchHostMetrics("node-new", Window15m()).status(),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(MetricsServerProviderTest, NodeWithoutCapacityIsReported) {
  kube::Node node = kube::testing::MakeNode().Name("node-a").Obj();  // no capacity
  ASSERT_THAT(client_.UpdateNode(node).status(), IsOk());
  MetricsServerProvider provider(client_);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(lw::HostsMetrics got, provider.FetchAllHostsMetrics(Window15m()));
  EXPECT_FALSE(got.nodes.contains("node-a"));
  EXPECT_TRUE(got.nodes.contains("node-b"));
  bool reported = false;
  for (const absl::Status& s : got.partial_errors) {
    if (s.code() == absl::StatusCode::kFailedPrecondition &&
        absl::StrContains(s.message(), "node-a")) {
      reported = true;
    }
  }
  EXPECT_TRUE(reported);
}

TEST_F(MetricsServerProviderTest, FailuresFailTheFetch) {
  MetricsServerProvider provider(client_);
  struct Case {
    const char* name;
    std::function<void()> setup;
    absl::StatusCode code;
  };
  const Case cases[] = {
      {"metrics api down",
       [&] { client_.FailNext("Raw", absl::UnavailableError("503 service unavailable")); },
       absl::StatusCode::kUnavailable},
      {"node list fails",
       [&] { client_.FailNext("ListNodes", absl::PermissionDeniedError("forbidden")); },
       absl::StatusCode::kPermissionDenied},
      {"garbage body", [&] { body_ = "<html>oops</html>"; }, absl::StatusCode::kInternal},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    c.setup();
    EXPECT_THAT(provider.FetchAllHostsMetrics(Window15m()).status(), StatusIs(c.code));
  }
}

TEST_F(MetricsServerProviderTest, Health) {
  MetricsServerProvider provider(client_);
  EXPECT_THAT(provider.Health(), IsOk());
  client_.FailNext("Raw", absl::UnavailableError("no endpoints for metrics-server"));
  EXPECT_THAT(provider.Health(), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(requests_, ElementsAre("GET /apis/metrics.k8s.io/v1beta1/nodes"));
}

}  // namespace
}  // namespace trimaran::providers::metrics_server
