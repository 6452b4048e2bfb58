#include "dashboard/web/service.h"

#include <cstdio>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/http/curl_transport.h"
#include "common/manual_clock.h"
#include "dashboard/documents.h"
#include "dashboard/test_fixture.h"
#include "dashboard/web/page.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "rapidjson/document.h"

namespace trimaran::dashboard::web {
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

constexpr char kToken[] = "0123456789abcdef-test-token";

class DashboardServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    view_.resources = {"cpu", "memory"};
    view_.target_percent = {{"cpu", 40}};
    view_.stale_after = absl::Hours(1);
    clock_.SetTime(FixtureNow());
  }

  std::unique_ptr<DashboardService> Make(DecisionsSource* decisions, const std::string& prefix) {
    DashboardOptions o;
    o.view = view_;
    o.targets = view_.target_percent;
    o.access.token = MakeFixedToken(kToken);
    auto service =
        std::make_unique<DashboardService>(source_, PriceTable::Builtin(), o, clock_, decisions);
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

  // A GET with the token as a bearer header (the checks have their own test below).
  http::HttpResponse Get(const std::string& path) {
    return Send(path, {{"Authorization", absl::StrCat("Bearer ", kToken)}});
  }

  http::HttpResponse Send(const std::string& path, http::Headers headers,
                          const std::string& method = "GET") {
    http::HttpRequest req;
    req.method = method;
    req.url = server_->url() + path;
    req.headers = std::move(headers);
    absl::StatusOr<http::HttpResponse> r = client_->Send(req);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : http::HttpResponse{};
  }

  ViewOptions view_;
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
  // The page's data block is null until then.
  EXPECT_THAT(Get("/").body,
              HasSubstr("<script type=\"application/json\" id=\"initial-nodes\">null</script>"));

  ASSERT_TRUE(service->Refresh().ok());
  r = Get("/");
  EXPECT_EQ(r.status_code, 200);
  // text/html, spelled so that the server does not brotli-compress megabytes per load.
  EXPECT_TRUE(absl::EqualsIgnoreCase(r.headers.GetOr("Content-Type"), "text/html; charset=utf-8"));
  http::HttpRequest compressed;
  compressed.url = server_->url() + "/";
  compressed.headers = {{"Authorization", absl::StrCat("Bearer ", kToken)},
                        {"Accept-Encoding", "gzip, deflate, br"}};
  absl::StatusOr<http::HttpResponse> plain = client_->Send(compressed);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->headers.Has("Content-Encoding"));
  EXPECT_THAT(r.body, ::testing::Not(HasSubstr("<script src=")));
  EXPECT_THAT(r.body, ::testing::Not(HasSubstr("http://")));  // no external assets
  EXPECT_THAT(r.body, ::testing::Not(HasSubstr("https://")));

  // /api/nodes is exactly `trimaranctl nodes -o json` over the same source and time.
  absl::StatusOr<PriceTable> prices = LoadPrices(view_);
  ASSERT_TRUE(prices.ok());
  absl::StatusOr<ClusterView> once = BuildView(source_, view_, *prices, FixtureNow());
  ASSERT_TRUE(once.ok()) << once.status();
  const std::string want = RenderJson(*once, view_.target_percent);
  r = Get("/api/nodes");
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(r.headers.GetOr("Content-Type"), "application/json");
  EXPECT_EQ(r.headers.GetOr("Cache-Control"), "no-store");
  EXPECT_EQ(r.body, want);
  rapidjson::Document d;
  d.Parse(r.body.c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_EQ(d["targetUtilizationPercent"]["cpu"].GetDouble(), 40);
  // The page carries the same document in its data block (every '<' escaped).
  EXPECT_THAT(Get("/").body,
              HasSubstr(absl::StrCat("<script type=\"application/json\" id=\"initial-nodes\">",
                                     absl::StrReplaceAll(want, {{"<", "\\u003c"}}), "</script>")));
  // No script-includable data: the old nodes.js is gone.
  EXPECT_EQ(Get("/api/nodes.js").status_code, 404);

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
  // The token URL under the prefix: the cookie's path is the prefix's.
  r = Send(absl::StrCat("/dashboard?token=", kToken), {});
  EXPECT_EQ(r.status_code, 302);
  EXPECT_EQ(r.headers.GetOr("Location"), "/dashboard/");
  EXPECT_THAT(std::string(r.headers.GetOr("Set-Cookie")), HasSubstr("; Path=/dashboard/;"));
}

// The guard over real HTTP (guard.h): every answer has the security
// headers; Host, Origin and token are checked in that order.
TEST_F(DashboardServiceTest, EveryAnswerCarriesTheSecurityHeaders) {
  std::unique_ptr<DashboardService> service = Make(nullptr, "");
  ASSERT_TRUE(service->Refresh().ok());
  const std::string host = absl::StrCat("127.0.0.1:", server_->port());
  struct Case {
    std::string path;
    http::Headers headers;
    std::string method = "GET";
    int status;
  };
  const std::string bearer = absl::StrCat("Bearer ", kToken);
  const std::vector<Case> cases = {
      {"/", {{"Authorization", bearer}}, "GET", 200},
      {"/api/nodes", {{"Authorization", bearer}}, "GET", 200},
      {"/api/nodes", {}, "GET", 401},
      {"/api/nodes", {{"Host", "evil.example:8088"}, {"Authorization", bearer}}, "GET", 403},
      {"/api/nodes", {{"Authorization", bearer}}, "POST", 405},
      {"/nope", {{"Authorization", bearer}}, "GET", 404},
      {"/", {}, "GET", 401},
  };
  for (const Case& c : cases) {
    http::HttpResponse r = Send(c.path, c.headers, c.method);
    EXPECT_EQ(r.status_code, c.status) << c.method << " " << c.path << ": " << r.body;
    EXPECT_EQ(r.headers.GetOr("X-Frame-Options"), "DENY") << c.path;
    EXPECT_EQ(r.headers.GetOr("X-Content-Type-Options"), "nosniff") << c.path;
    EXPECT_EQ(r.headers.GetOr("Referrer-Policy"), "no-referrer") << c.path;
    EXPECT_THAT(std::string(r.headers.GetOr("Content-Security-Policy")),
                HasSubstr("frame-ancestors 'none'"))
        << c.path;
    EXPECT_FALSE(r.headers.Has("Access-Control-Allow-Origin")) << c.path;
  }
  // The page's policy: its own script and style by hash, nothing external, no inline
  // anything else.
  http::HttpResponse page = Get("/");
  const std::string csp(page.headers.GetOr("Content-Security-Policy"));
  EXPECT_EQ(csp, service->page_csp());
  EXPECT_THAT(csp, HasSubstr("default-src 'none'"));
  EXPECT_THAT(csp, HasSubstr("script-src 'sha256-"));
  EXPECT_THAT(csp, HasSubstr("style-src 'sha256-"));
  EXPECT_THAT(csp, HasSubstr("connect-src 'self'"));
  EXPECT_THAT(csp, ::testing::Not(HasSubstr("unsafe-inline")));
  // Exactly the page's one inline script and one style block (the comment that names
  // the tags and the JSON data block are not hashed).
  int hashes = 0;
  for (size_t at = 0; (at = csp.find("'sha256-", at)) != std::string::npos; ++at) ++hashes;
  EXPECT_EQ(hashes, 2) << csp;
  // ... and they are the hashes of the real <style> and <script> elements (not of a
  // tag named in the page's comment).
  const absl::string_view page_text = DashboardPage();
  for (const absl::string_view tag : {"style", "script"}) {
    const std::string open = absl::StrCat("<", tag, ">\n");
    const size_t at = page_text.find(open);
    ASSERT_NE(at, absl::string_view::npos) << tag;
    const size_t end = page_text.find(absl::StrCat("</", tag, ">"), at);
    const std::string alone =
        PageContentSecurityPolicy(page_text.substr(at, end - at + tag.size() + 3));
    const std::string directive = absl::StrCat(tag, "-src ");
    const size_t d = alone.find(directive);
    const std::string hash =
        alone.substr(d + directive.size(), alone.find(';', d) - d - directive.size());
    EXPECT_THAT(csp, HasSubstr(absl::StrCat(directive, hash))) << tag << " " << csp;
    std::fprintf(stderr, "%s: %s\n", std::string(tag).c_str(), hash.c_str());
  }
  EXPECT_THAT(csp, ::testing::Not(HasSubstr("http")));
  // The api: JSON, never script.
  EXPECT_EQ(Get("/api/nodes").headers.GetOr("Content-Type"), "application/json");
  EXPECT_EQ(Get("/api/nodes").headers.GetOr("Content-Security-Policy"), kApiContentSecurityPolicy);
  EXPECT_EQ(Send("/api/nodes", {{"Authorization", bearer}}, "OPTIONS").status_code, 405);
}

TEST_F(DashboardServiceTest, TheTokenUrlSetsACookieAndLeavesTheUrl) {
  std::unique_ptr<DashboardService> service = Make(nullptr, "");
  ASSERT_TRUE(service->Refresh().ok());
  EXPECT_EQ(Send("/?token=wrong", {}).status_code, 401);
  http::HttpResponse r = Send(absl::StrCat("/?token=", kToken), {});
  ASSERT_EQ(r.status_code, 302) << r.body;
  EXPECT_EQ(r.headers.GetOr("Location"), "/");
  const std::string set_cookie(r.headers.GetOr("Set-Cookie"));
  EXPECT_THAT(set_cookie, HasSubstr("; Path=/; HttpOnly; SameSite=Strict"));
  EXPECT_THAT(set_cookie, ::testing::Not(HasSubstr(kToken)));    // a digest, not the token
  EXPECT_THAT(set_cookie, ::testing::Not(HasSubstr("Secure")));  // plain http here
  const std::string cookie = set_cookie.substr(0, set_cookie.find(';'));
  EXPECT_TRUE(absl::StartsWith(cookie, service->guard().cookie_name() + "="));
  // The page and the api with the cookie alone (what the browser sends).
  EXPECT_EQ(Send("/", {{"Cookie", "other=1; " + cookie}}).status_code, 200);
  EXPECT_EQ(Send("/api/config", {{"Cookie", cookie}}).status_code, 200);
  EXPECT_EQ(Send("/api/config", {{"Cookie", cookie + "x"}}).status_code, 401);
  // A token in the query works for the api too (curl), without a redirect.
  EXPECT_EQ(Send(absl::StrCat("/api/nodes?token=", kToken), {}).status_code, 200);
  // Cross-origin, even with the cookie: a page on another port of 127.0.0.1.
  const std::string self_origin = absl::StrCat("http://127.0.0.1:", server_->port());
  EXPECT_EQ(Send("/api/nodes", {{"Cookie", cookie}, {"Origin", self_origin}}).status_code, 200);
  EXPECT_EQ(Send("/api/nodes", {{"Cookie", cookie}, {"Origin", "http://127.0.0.1:1"}}).status_code,
            403);
  EXPECT_EQ(Send("/api/nodes", {{"Cookie", cookie},
                                {"Sec-Fetch-Site", "same-site"},
                                {"Sec-Fetch-Mode", "no-cors"},
                                {"Sec-Fetch-Dest", "script"}})
                .status_code,
            403);
  // A link from elsewhere may open the page (top-level navigation), not the api.
  const http::Headers navigate = {{"Cookie", cookie},
                                  {"Sec-Fetch-Site", "cross-site"},
                                  {"Sec-Fetch-Mode", "navigate"},
                                  {"Sec-Fetch-Dest", "document"}};
  EXPECT_EQ(Send("/", navigate).status_code, 200);
  EXPECT_EQ(Send("/api/nodes", navigate).status_code, 403);
}

// A node whose name closes the data block and opens a script.
class HostileSource final : public ClusterSource {
 public:
  absl::StatusOr<ClusterInputs> Fetch() override {
    ClusterInputs in;
    in.nodes.push_back(kube::testing::MakeNode()
                           .Name("</script><script>document.title='x'</script><!--")
                           .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
                           .Obj());
    return in;
  }
};

TEST_F(DashboardServiceTest, HostileStringsStayInsideTheDataBlock) {
  HostileSource hostile;
  DashboardOptions o;
  o.view = view_;
  o.targets = view_.target_percent;
  o.access.token = MakeFixedToken(kToken);
  DashboardService service(hostile, PriceTable::Builtin(), o, clock_);
  ASSERT_TRUE(service.Refresh().ok());
  http::HttpServerOptions so;
  so.index = false;
  absl::StatusOr<std::unique_ptr<http::HttpServer>> server = http::HttpServer::Create(so);
  ASSERT_TRUE(server.ok());
  server_ = *std::move(server);
  ASSERT_TRUE(service.AddRoutes(*server_, "").ok());
  ASSERT_TRUE(server_->Start().ok());
  absl::StatusOr<std::unique_ptr<http::CurlTransport>> t = http::CurlTransport::Create();
  ASSERT_TRUE(t.ok());
  client_ = *std::move(t);
  const std::string page = Get("/").body;
  const size_t open = page.find("id=\"initial-nodes\">");
  ASSERT_NE(open, std::string::npos);
  const size_t close = page.find("</script>", open);
  const std::string block = page.substr(open, close - open);
  EXPECT_THAT(block, HasSubstr("\\u003c/script>\\u003cscript>document.title='x'"));
  EXPECT_THAT(block, ::testing::Not(HasSubstr("<")));  // nothing can end the block
  // The page's one inline script is still the one the policy allows.
  EXPECT_EQ(PageContentSecurityPolicy(page), service.page_csp());
  server_->Stop();
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
}  // namespace trimaran::dashboard::web
