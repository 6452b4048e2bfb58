#include "cmd/trimaranctl/dashboard_service.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "cmd/trimaranctl/nodes_test_fixture.h"
#include "common/http/curl_transport.h"
#include "common/manual_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace trimaran::cmd::trimaranctl::nodes {
namespace {

using testing::FixtureMetrics;
using testing::FixtureNodes;
using testing::FixtureNow;
using testing::FixturePods;
using ::testing::HasSubstr;

// The fixture cluster, or an error when `fail` is set.
class FakeSource final : public ClusterSource {
 public:
  absl::StatusOr<ClusterInputs> Fetch() override {
    absl::MutexLock lock(&mu_);
    ++fetches_;
    if (!fail_.ok()) return fail_;
    ClusterInputs in;
    in.nodes = FixtureNodes();
    in.pods = AggregatePods(SummarizePods(FixturePods()));
    in.metrics = std::make_shared<const lw::WatcherMetrics>(FixtureMetrics(metrics_age_));
    return in;
  }
  void Fail(absl::Status s) {
    absl::MutexLock lock(&mu_);
    fail_ = std::move(s);
  }
  void SetMetricsAge(absl::Duration d) {
    absl::MutexLock lock(&mu_);
    metrics_age_ = d;
  }
  int fetches() {
    absl::MutexLock lock(&mu_);
    return fetches_;
  }

 private:
  absl::Mutex mu_;
  absl::Status fail_ ABSL_GUARDED_BY(mu_);
  absl::Duration metrics_age_ ABSL_GUARDED_BY(mu_) = absl::Seconds(30);
  int fetches_ ABSL_GUARDED_BY(mu_) = 0;
};

class FakeDecisions final : public DecisionsSource {
 public:
  absl::StatusOr<std::string> Fetch(int limit) override {
    last_limit = limit;
    ++calls;
    return answer;
  }
  std::string Describe() const override { return "https://sched:10259"; }
  absl::StatusOr<std::string> answer = std::string(R"({"capacity":10,"decisions":[]})");
  int last_limit = 0;
  int calls = 0;
};

class DashboardServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<NodesFlags> f = ParseNodesFlags(
        {"--resources", "cpu,memory", "--target-utilization", "40", "--stale-after", "1h"}, "");
    ASSERT_TRUE(f.ok()) << f.status();
    flags_ = *f;
    clock_.SetTime(FixtureNow());
  }

  std::unique_ptr<DashboardService> Make(DecisionsSource* decisions, const std::string& prefix) {
    DashboardOptions o;
    o.flags = flags_;
    absl::StatusOr<LayoutOptions> layout = MakeLayoutOptions(flags_);
    EXPECT_TRUE(layout.ok());
    auto service = std::make_unique<DashboardService>(source_, PriceTable::Builtin(), *layout, o,
                                                      clock_, decisions);
    http::HttpServerOptions so;
    so.index = false;
    absl::StatusOr<std::unique_ptr<http::HttpServer>> server = http::HttpServer::Create(so);
    EXPECT_TRUE(server.ok());
    server_ = *std::move(server);
    EXPECT_TRUE(service->AddRoutes(*server_, prefix).ok());
    EXPECT_TRUE(server_->Start().ok());
    absl::StatusOr<std::unique_ptr<http::CurlTransport>> t = http::CurlTransport::Create();
    EXPECT_TRUE(t.ok());
    client_ = *std::move(t);
    return service;
  }

  http::HttpResponse Get(const std::string& path) {
    http::HttpRequest req;
    req.url = server_->url() + path;
    absl::StatusOr<http::HttpResponse> r = client_->Send(req);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : http::HttpResponse{};
  }

  NodesFlags flags_;
  ManualClock clock_;
  FakeSource source_;
  std::unique_ptr<http::HttpServer> server_;
  std::unique_ptr<http::CurlTransport> client_;
};

TEST_F(DashboardServiceTest, ServesThePageAndTheNodesJsonOfOneRefresh) {
  std::unique_ptr<DashboardService> service = Make(nullptr, "");
  // Before the first refresh: 503 with the reason, and a null script.
  http::HttpResponse r = Get("/api/nodes");
  EXPECT_EQ(r.status_code, 503);
  EXPECT_THAT(r.body, HasSubstr("waiting for the first refresh"));
  EXPECT_EQ(Get("/api/nodes.js").body, "window.trimaranNodes = null;\n");

  ASSERT_TRUE(service->Refresh().ok());
  r = Get("/");
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(r.headers.GetOr("Content-Type"), "text/html; charset=utf-8");
  EXPECT_THAT(r.body, HasSubstr("<script src=\"api/nodes.js\"></script>"));
  EXPECT_THAT(r.body, ::testing::Not(HasSubstr("http://")));  // no external assets
  EXPECT_THAT(r.body, ::testing::Not(HasSubstr("https://")));

  // /api/nodes is exactly `trimaranctl nodes -o json` over the same source and time.
  NodesFlags once = flags_;
  once.output = "json";
  std::string want;
  std::string err;
  ASSERT_EQ(RunNodesOnce(source_, once, FixtureNow(), want, err), 0) << err;
  r = Get("/api/nodes");
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(r.headers.GetOr("Content-Type"), "application/json");
  EXPECT_EQ(r.headers.GetOr("Cache-Control"), "no-store");
  EXPECT_EQ(r.body, want);
  rapidjson::Document d;
  d.Parse(r.body.c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_EQ(d["targetUtilizationPercent"]["cpu"].GetDouble(), 40);
  EXPECT_EQ(Get("/api/nodes.js").body, absl::StrCat("window.trimaranNodes = ", want, ";\n"));

  r = Get("/api/history?node=node-a&node=node-10");
  EXPECT_EQ(r.status_code, 200);
  const std::string t = absl::StrCat(absl::ToUnixSeconds(FixtureNow() - absl::Seconds(30)));
  EXPECT_EQ(r.body,
            absl::StrCat("{\"node-a\":[[", t, ",51.02,26.67]],\"node-10\":[[", t, ",null,null]]}"));
  EXPECT_EQ(Get("/nope").status_code, 404);
}

TEST_F(DashboardServiceTest, AFailedRefreshKeepsTheLastDocumentAndSaysWhy) {
  std::unique_ptr<DashboardService> service = Make(nullptr, "");
  ASSERT_TRUE(service->Refresh().ok());
  const std::string before = Get("/api/nodes").body;
  source_.Fail(absl::UnavailableError("apiserver down"));
  clock_.Advance(absl::Seconds(5));
  EXPECT_FALSE(service->Refresh().ok());
  EXPECT_EQ(Get("/api/nodes").body, before);
  rapidjson::Document c;
  const std::string config = Get("/api/config").body;
  c.Parse(config.c_str());
  ASSERT_FALSE(c.HasParseError()) << config;
  EXPECT_STREQ(c["lastError"].GetString(), "apiserver down");
  EXPECT_EQ(c["hotThresholdPercent"].GetDouble(), 80);
  EXPECT_FALSE(c["decisions"].GetBool());
  source_.Fail(absl::OkStatus());
  ASSERT_TRUE(service->Refresh().ok());
  c.Parse(Get("/api/config").body.c_str());
  EXPECT_STREQ(c["lastError"].GetString(), "");
}

TEST_F(DashboardServiceTest, HistoryGrowsWithNewSnapshotsOnly) {
  std::unique_ptr<DashboardService> service = Make(nullptr, "");
  ASSERT_TRUE(service->Refresh().ok());
  clock_.Advance(absl::Seconds(5));
  ASSERT_TRUE(service->Refresh().ok());  // same snapshot
  EXPECT_EQ(service->history().Samples("node-a").size(), 1u);
  source_.SetMetricsAge(absl::Seconds(-60));  // a newer snapshot
  clock_.Advance(absl::Seconds(90));
  ASSERT_TRUE(service->Refresh().ok());
  EXPECT_EQ(service->history().Samples("node-a").size(), 2u);
}

TEST_F(DashboardServiceTest, DecisionsPanel) {
  {
    std::unique_ptr<DashboardService> service = Make(nullptr, "");
    rapidjson::Document d;
    const std::string body = Get("/api/decisions").body;
    d.Parse(body.c_str());
    ASSERT_FALSE(d.HasParseError()) << body;
    EXPECT_FALSE(d["enabled"].GetBool());
    EXPECT_THAT(d["hint"].GetString(), HasSubstr("--scheduler https://"));
    server_->Stop();
  }
  FakeDecisions decisions;
  std::unique_ptr<DashboardService> service = Make(&decisions, "");
  EXPECT_EQ(
      Get("/api/decisions").body,
      R"({"enabled":true,"scheduler":"https://sched:10259","result":{"capacity":10,"decisions":[]}})");
  EXPECT_EQ(decisions.last_limit, 50);
  // Cached for 2 s: many browsers, one call.
  Get("/api/decisions");
  EXPECT_EQ(decisions.calls, 1);
  clock_.Advance(absl::Seconds(3));
  decisions.answer = absl::PermissionDeniedError("scheduler /debug/decisions: HTTP 403");
  EXPECT_EQ(
      Get("/api/decisions").body,
      R"({"enabled":true,"scheduler":"https://sched:10259","error":"scheduler /debug/decisions: HTTP 403"})");
  EXPECT_EQ(decisions.calls, 2);
}

TEST_F(DashboardServiceTest, UnderAPrefixForTheLoadWatcher) {
  std::unique_ptr<DashboardService> service = Make(nullptr, "/dashboard");
  ASSERT_TRUE(service->Refresh().ok());
  http::HttpResponse r = Get("/dashboard");
  EXPECT_EQ(r.status_code, 302);
  EXPECT_EQ(r.headers.GetOr("Location"), "/dashboard/");
  EXPECT_THAT(Get("/dashboard/").body, HasSubstr("<title>Trimaran nodes</title>"));
  EXPECT_EQ(Get("/dashboard/api/nodes").status_code, 200);
  EXPECT_EQ(Get("/api/nodes").status_code, 404);
}

TEST_F(DashboardServiceTest, StartRefreshesInTheBackgroundAfterStart) {
  std::unique_ptr<DashboardService> service = Make(nullptr, "");
  int starts = 0;
  service->Start([&starts] {
    ++starts;
    return starts == 1 ? absl::UnavailableError("not listed yet") : absl::OkStatus();
  });
  // The manual clock never advances by itself: sleeping threads wait; advance it.
  for (int i = 0; i < 200 && service->NodesJson() == nullptr; ++i) {
    clock_.Advance(absl::Seconds(2));
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_NE(service->NodesJson(), nullptr);
  service->Stop();
  EXPECT_EQ(starts, 2);
  EXPECT_GE(source_.fetches(), 1);
}

}  // namespace
}  // namespace trimaran::cmd::trimaranctl::nodes
