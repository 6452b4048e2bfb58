// REST handlers and the HTTP client, over real HTTP on 127.0.0.1:0.
#include <memory>
#include <string>

#include "common/http/curl_transport.h"
#include "common/http/http_server.h"
#include "common/stats/stats.h"
#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loadwatcher/http_client.h"
#include "loadwatcher/http_handlers.h"
#include "loadwatcher/json.h"
#include "loadwatcher/testing/builders.h"
#include "loadwatcher/testing/fake_metrics_provider.h"

namespace trimaran::lw {
namespace {

using ::testing::HasSubstr;
using ::trimaran::lw::testing::FakeMetricsProvider;
using ::trimaran::lw::testing::MakeWatcherMetrics;
using ::trimaran::testing::FakeClock;
using ::trimaran::testing::StatusIs;

class HttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(server_, http::HttpServer::Create({.name = "watcher"}));
    TRIMARAN_ASSERT_OK(AddWatcherRoutes(watcher_, *server_));
    TRIMARAN_ASSERT_OK(server_->Start());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(transport_, http::CurlTransport::Create());
  }

  http::HttpResponse Get(const std::string& path_and_query) {
    http::HttpRequest req;
    req.url = server_->url() + path_and_query;
    auto resp = transport_->Send(req);
    EXPECT_TRUE(resp.ok()) << resp.status();
    return resp.ok() ? *resp : http::HttpResponse{};
  }

  void FetchTwoNodes() {
    provider_.SetNodes(
        "15m", MakeWatcherMetrics().Node("n1").Cpu(kOpAvg, 40).Node("n2").Cpu(kOpAvg, 60).Nodes());
    (void)watcher_.FetchOnce();
  }

  FakeClock clock_;
  FakeMetricsProvider provider_{"Prometheus", &clock_};
  stats::Registry registry_;
  Watcher watcher_{provider_, clock_, stats::Scope(registry_)};
  std::unique_ptr<http::HttpServer> server_;
  std::unique_ptr<http::CurlTransport> transport_;
};

TEST_F(HttpTest, Answers503WithJsonBeforeFirstFetch) {
  http::HttpResponse r = Get("/watcher");
  EXPECT_EQ(r.status_code, 503);
  EXPECT_THAT(r.body, HasSubstr(R"({"error":"no metrics yet: unable to get any latest metrics)"));
  EXPECT_THAT(r.headers.Get("Content-Type").value_or(""), HasSubstr("application/json"));
}

TEST_F(HttpTest, ServesFullDocumentAndHostFilter) {
  FetchTwoNodes();
  struct Case {
    std::string name;
    std::string path;
    int want_status;
    std::vector<std::string> want_hosts;
  };
  const std::vector<Case> cases = {
      {"all", "/watcher", 200, {"n1", "n2"}},
      {"known host", "/watcher?host=n2", 200, {"n2"}},
      {"unknown host", "/watcher?host=nope", 404, {}},
      {"bad window", "/watcher?window=1h", 400, {}},
      {"10m falls back to nothing: 503", "/watcher?window=10m", 503, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    http::HttpResponse r = Get(c.path);
    EXPECT_EQ(r.status_code, c.want_status) << r.body;
    if (c.want_status != 200) {
      EXPECT_THAT(r.body, HasSubstr(R"({"error":)"));
      continue;
    }
    TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetrics m, DecodeWatcherMetricsJson(r.body));
    std::vector<std::string> hosts;
    for (const auto& [h, _] : m.data.node_metrics_map) hosts.push_back(h);
    EXPECT_EQ(hosts, c.want_hosts);
  }
  // The body is exactly the encoder's output of the latest snapshot.
  EXPECT_EQ(Get("/watcher").body, EncodeWatcherMetricsJson(*watcher_.Latest()->metrics));
}

TEST_F(HttpTest, HealthFollowsProvider) {
  EXPECT_EQ(Get("/watcher/health").status_code, 200);
  provider_.SetHealth(absl::UnavailableError("prometheus down"));
  http::HttpResponse r = Get("/watcher/health");
  EXPECT_EQ(r.status_code, 503);
  EXPECT_THAT(r.body, HasSubstr("prometheus down"));
}

TEST(ReadyzBodyTest, AProviderThatDoesNotAnswerIsDegradedNeverUnready) {
  EXPECT_EQ(ReadyzBody(absl::OkStatus(), false), "ok");
  EXPECT_EQ(ReadyzBody(absl::UnavailableError("metrics.k8s.io: 404"), false),
            "ok (degraded: metrics provider not answering: metrics.k8s.io: 404)");
  EXPECT_EQ(ReadyzBody(absl::OkStatus(), true),
            "[+]serving ok\n[+]metrics-provider ok\nreadyz check passed\n");
  EXPECT_EQ(ReadyzBody(absl::UnavailableError("connection refused"), true),
            "[+]serving ok\n[-]metrics-provider degraded: connection refused (does not fail "
            "readiness)\nreadyz check passed\n");
}

TEST_F(HttpTest, HttpClientRoundTrip) {
  HttpClient client(*transport_, {.address = server_->url()});
  EXPECT_THAT(client.GetLatestMetrics(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("received status code 503")));
  FetchTwoNodes();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr all, client.GetLatestMetrics());
  EXPECT_EQ(*all, *watcher_.Latest()->metrics);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(WatcherMetricsPtr one,
                                client.GetLatestMetrics(MetricsRequest{"15m", {"n1"}}));
  EXPECT_EQ(one->data.node_metrics_map.size(), 1u);
  // Our server honours ?window=; 5m has no data here.
  EXPECT_THAT(client.GetLatestMetrics(MetricsRequest{"5m", {}}),
              StatusIs(absl::StatusCode::kUnavailable));
}

TEST_F(HttpTest, HttpClientReportsGarbageAndUnreachable) {
  auto garbage = http::HttpServer::Create({.name = "garbage"});
  ASSERT_TRUE(garbage.ok());
  http::Route route;
  route.path = "/watcher";
  route.handler = [](const http::ServerRequest&, http::ServerResponse& res) {
    res.body = "{\"timestamp\":";
  };
  TRIMARAN_ASSERT_OK((*garbage)->AddRoute(std::move(route)));
  TRIMARAN_ASSERT_OK((*garbage)->Start());
  HttpClient bad(*transport_, {.address = (*garbage)->url()});
  EXPECT_THAT(bad.GetLatestMetrics(),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("decode watcher metrics")));
  const std::string url = (*garbage)->url();
  (*garbage)->Stop();
  HttpClient gone(*transport_, {.address = url, .timeout = absl::Seconds(5)});
  EXPECT_FALSE(gone.GetLatestMetrics().ok());
}

TEST_F(HttpTest, HttpClientCutsOffABodyOverItsCap) {
  auto big = http::HttpServer::Create({.name = "big"});
  ASSERT_TRUE(big.ok());
  http::Route route;
  route.path = "/watcher";
  route.handler = [](const http::ServerRequest&, http::ServerResponse& res) {
    res.body = "{\"timestamp\":1,\"window\":{},\"source\":\"" + std::string(4096, 'x') + "\"}";
  };
  TRIMARAN_ASSERT_OK((*big)->AddRoute(std::move(route)));
  TRIMARAN_ASSERT_OK((*big)->Start());
  HttpClient capped(*transport_, {.address = (*big)->url(), .max_body_bytes = 1024});
  EXPECT_THAT(capped.GetLatestMetrics(),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("exceeds 1024 bytes")));
  EXPECT_EQ(HttpClientOptions{}.max_body_bytes, kDefaultMaxResponseBytes);
  EXPECT_TRUE(capped.remote());
}

}  // namespace
}  // namespace trimaran::lw
