// The dashboard as other web sites see it (issue 30 point 7; dashboard/web/guard.h), in
// headless Chromium against the real DashboardService and HttpServer:
//   - hostile node names, labels, instance types and scheduler decisions (markup,
//     script tags, quotes, a right-to-left override) render as text: no injected
//     element exists, no payload changes document.title, the RTL override stays
//     inside its <bdi>; the page's own (hashed) script runs under its CSP;
//   - without the token the page is a 401, with a name that resolves to 127.0.0.1
//     (DNS rebinding, through Chromium's host resolver rules) a 403;
//   - a page on another port of 127.0.0.1 that knows the token still cannot read the
//     data: not with fetch (CORS), not with no-cors, not as a script.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/clock.h"
#include "common/http/curl_transport.h"
#include "common/http/http_server.h"
#include "dashboard/web/guard.h"
#include "dashboard/web/service.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/wrappers.h"
#include "tests/e2e/harness/chromium.h"

namespace trimaran::e2e {
namespace {

namespace web = dashboard::web;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kToken[] = "e2e0123456789abcdef0123456789abcdef";

// Payloads: each would change the title or create an element if it ever became markup
// or script.
const std::string kImg = "<img src=x onerror=\"document.title='pwned-img'\">";
const std::string kScript = "</script><script>document.title='pwned-script'</script>";
const std::string kAttr = "'\"><b id=\"injected-b\">bold</b>";
const std::string kSvg =
    "<svg onload=\"document.body.appendChild(document.createElement('i')).id='created-svg'\">";
const std::string kRtl =
    "\xE2\x80\xAE"
    "gnp.exe";  // U+202E RIGHT-TO-LEFT OVERRIDE

class HostileSource final : public dashboard::ClusterSource {
 public:
  absl::StatusOr<dashboard::ClusterInputs> Fetch() override {
    dashboard::ClusterInputs in;
    const std::vector<std::string> names = {kImg, kScript, kAttr, kSvg, kRtl};
    for (size_t i = 0; i < names.size(); ++i) {
      in.nodes.push_back(
          kube::testing::MakeNode()
              .Name(names[i])
              .Label("team", names[(i + 1) % names.size()])
              .Label("node.kubernetes.io/instance-type", names[(i + 2) % names.size()])
              .Label("topology.kubernetes.io/zone", names[(i + 3) % names.size()])
              .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}})
              .Condition("Ready", kube::ConditionStatus::kTrue)
              .Obj());
    }
    return in;
  }
};

std::string JsonString(const std::string& s) {
  return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\\", "\\\\"}, {"\"", "\\\""}}), "\"");
}

// The scheduler's decisions with hostile pod names, nodes, messages and fallbacks.
class HostileDecisions final : public web::DecisionsSource {
 public:
  absl::StatusOr<std::string> Fetch(int) override {
    return absl::StrCat(R"({"capacity":10,"decisions":[{"time":"2026-11-26T21:00:00Z","pod":)",
                        JsonString("default/" + kScript), R"(,"result":"Unschedulable","node":)",
                        JsonString(kSvg), R"(,"evaluatedNodes":5,"feasibleNodes":0,"fallbacks":[)",
                        JsonString(kImg), R"(],"message":)", JsonString(kAttr + kRtl),
                        R"(,"top":[{"node":)", JsonString(kImg), R"(,"total":1,"scores":{)",
                        JsonString(kAttr), R"(:1}}]}]})");
  }
  std::string Describe() const override { return "https://sched.test:10259"; }
};

class DashboardSecurityE2ETest : public ::testing::Test {
 protected:
  void SetUp() override {
    web::DashboardOptions options;
    options.view.resources = {"cpu", "memory"};
    options.view.extra_labels = {"team"};
    options.access.token = web::MakeFixedToken(kToken);
    service_ = std::make_unique<web::DashboardService>(source_, dashboard::PriceTable::Builtin(),
                                                       options, RealClock::Get(), &decisions_);
    ASSERT_TRUE(service_->Refresh().ok());
    http::HttpServerOptions so;
    so.name = "dashboard";
    so.index = false;
    absl::StatusOr<std::unique_ptr<http::HttpServer>> server = http::HttpServer::Create(so);
    ASSERT_TRUE(server.ok());
    server_ = *std::move(server);
    ASSERT_TRUE(service_->AddRoutes(*server_, "").ok());
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Stop();
  }

  std::string Url(const std::string& path) { return server_->url() + path; }

  HostileSource source_;
  HostileDecisions decisions_;
  std::unique_ptr<web::DashboardService> service_;
  std::unique_ptr<http::HttpServer> server_;
};

// How Chromium serializes a text node: <, > and & escaped, quotes as they are.
std::string AsText(const std::string& s) {
  return absl::StrReplaceAll(s, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}});
}

TEST_F(DashboardSecurityE2ETest, HostileNamesRenderAsTextAndNoPayloadRuns) {
  TRIMARAN_REQUIRE_CHROMIUM();
  absl::StatusOr<std::string> dom = ChromiumDumpDom(Url(absl::StrCat("/?token=", kToken)));
  ASSERT_TRUE(dom.ok()) << dom.status();
  // The page's own script ran (under the CSP that allows it by hash): five rows and the
  // decisions table.
  int rows = 0;
  for (size_t at = 0; (at = dom->find("class=\"row grid\"", at)) != std::string::npos; ++at) {
    ++rows;
  }
  EXPECT_EQ(rows, 5) << dom->substr(0, 3000);
  EXPECT_THAT(*dom, HasSubstr("<table class=\"dec\">"));
  // No payload ran: the title is the page's, no injected or created element exists.
  EXPECT_THAT(*dom, HasSubstr("<title>Trimaran nodes</title>"));
  EXPECT_THAT(*dom, Not(HasSubstr("pwned-img</title>")));
  EXPECT_THAT(*dom, Not(HasSubstr("<b id=\"injected-b\"")));
  EXPECT_THAT(*dom, Not(HasSubstr("<img")));
  EXPECT_THAT(*dom, Not(HasSubstr("<svg onload")));
  EXPECT_THAT(*dom, Not(HasSubstr("id=\"created-svg\"")));
  EXPECT_THAT(*dom, Not(HasSubstr("<script>document.title")));
  // Each payload is shown literally, as text (node names, labels, decisions).
  for (const std::string& p : {kImg, kScript, kAttr, kSvg}) {
    EXPECT_THAT(*dom, HasSubstr(absl::StrCat("<bdi>", AsText(p), "</bdi>"))) << p;
  }
  EXPECT_THAT(*dom, HasSubstr(absl::StrCat("<bdi>default/", AsText(kScript), "</bdi>")));
  // The right-to-left override is isolated in its own <bdi>, so it cannot reorder what
  // follows it in the row.
  EXPECT_THAT(*dom, HasSubstr(absl::StrCat("<bdi>", kRtl, "</bdi>")));
  EXPECT_THAT(*dom, HasSubstr(absl::StrCat("<bdi>", AsText(kAttr + kRtl), "</bdi>")));
  // The token left the URL at once (the redirect), so it is not in the page's links.
  EXPECT_THAT(*dom, Not(HasSubstr(kToken)));
}

TEST_F(DashboardSecurityE2ETest, HeadersOfThePageAndTheApi) {
  absl::StatusOr<std::unique_ptr<http::CurlTransport>> client = http::CurlTransport::Create();
  ASSERT_TRUE(client.ok());
  for (const std::string path : {"/", "/api/nodes", "/api/decisions", "/api/nodes.js"}) {
    http::HttpRequest req;
    req.url = Url(path);
    req.headers.Set("Authorization", absl::StrCat("Bearer ", kToken));
    absl::StatusOr<http::HttpResponse> r = (*client)->Send(req);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->status_code, path == "/api/nodes.js" ? 404 : 200) << path;
    const std::string csp(r->headers.GetOr("Content-Security-Policy"));
    EXPECT_THAT(csp, HasSubstr("default-src 'none'")) << path;
    EXPECT_THAT(csp, HasSubstr("frame-ancestors 'none'")) << path;
    EXPECT_EQ(r->headers.GetOr("X-Frame-Options"), "DENY") << path;
    EXPECT_EQ(r->headers.GetOr("X-Content-Type-Options"), "nosniff") << path;
    EXPECT_EQ(r->headers.GetOr("Referrer-Policy"), "no-referrer") << path;
    if (path == "/") {
      EXPECT_THAT(csp, HasSubstr("script-src 'sha256-"));
      EXPECT_TRUE(absl::StartsWithIgnoreCase(r->headers.GetOr("Content-Type"), "text/html"));
    } else {
      EXPECT_EQ(r->headers.GetOr("Content-Type"), "application/json") << path;
    }
  }
}

TEST_F(DashboardSecurityE2ETest, WithoutTheTokenOrThroughARebindingNameNothingShows) {
  TRIMARAN_REQUIRE_CHROMIUM();
  absl::StatusOr<std::string> no_token = ChromiumDumpDom(Url("/"));
  ASSERT_TRUE(no_token.ok()) << no_token.status();
  EXPECT_THAT(*no_token, HasSubstr("401: no token"));
  EXPECT_THAT(*no_token, Not(HasSubstr("class=\"row grid\"")));
  EXPECT_THAT(*no_token, Not(HasSubstr("pwned")));

  // rebind.test resolves to 127.0.0.1 as an attacker's name would after rebinding: the
  // browser sends Host: rebind.test:PORT, which the dashboard refuses even with the token.
  ChromiumOptions rebinding;
  rebinding.extra_args = {"--host-resolver-rules=MAP rebind.test 127.0.0.1"};
  const std::string url = absl::StrCat("http://rebind.test:", server_->port(), "/?token=", kToken);
  absl::StatusOr<std::string> rebound = ChromiumDumpDom(url, rebinding);
  ASSERT_TRUE(rebound.ok()) << rebound.status();
  EXPECT_THAT(*rebound, HasSubstr("403: Host"));
  EXPECT_THAT(*rebound, HasSubstr("DNS rebinding"));
  EXPECT_THAT(*rebound, Not(HasSubstr("class=\"row grid\"")));
}

TEST_F(DashboardSecurityE2ETest, APageOnAnotherPortCannotReadTheData) {
  TRIMARAN_REQUIRE_CHROMIUM();
  // The attacker knows the token (the worst case) and runs on 127.0.0.1 too.
  const std::string target = Url(absl::StrCat("/api/nodes?token=", kToken));
  const std::string page = absl::StrCat(R"(<!DOCTYPE html><html><head><title>attacker</title>
</head><body><pre id="out">pending</pre><script>
const target = ")",
                                        target, R"(";
const results = {};
function show() { document.getElementById("out").textContent = JSON.stringify(results); }
fetch(target, { credentials: "include" }).then((r) => r.text())
  .then((t) => { results.cors = "read:" + t.slice(0, 30); show(); },
        (e) => { results.cors = "blocked:" + e.name; show(); });
fetch(target, { mode: "no-cors", credentials: "include" })
  .then((r) => r.text().then((t) => { results.nocors = r.type + ":" + r.status + ":" + t.length; show(); }),
        (e) => { results.nocors = "blocked:" + e.name; show(); });
const s = document.createElement("script");
s.src = target;
s.onload = () => { results.script = "loaded:" + typeof window.trimaranNodes; show(); };
s.onerror = () => { results.script = "error"; show(); };
document.body.appendChild(s);
</script></body></html>)");
  http::HttpServerOptions ao;
  ao.name = "attacker";
  ao.index = false;
  absl::StatusOr<std::unique_ptr<http::HttpServer>> attacker = http::HttpServer::Create(ao);
  ASSERT_TRUE(attacker.ok());
  ASSERT_TRUE((*attacker)
                  ->AddRoute({.path = "/",
                              .handler =
                                  [page](const http::ServerRequest&, http::ServerResponse& r) {
                                    r.content_type = "text/html; charset=utf-8";
                                    r.body = page;
                                  }})
                  .ok());
  ASSERT_TRUE((*attacker)->Start().ok());
  ASSERT_NE((*attacker)->port(), server_->port());
  absl::StatusOr<std::string> dom = ChromiumDumpDom((*attacker)->url() + "/");
  (*attacker)->Stop();
  ASSERT_TRUE(dom.ok()) << dom.status();
  // All three attempts finished, and none read a byte of the nodes document: the CORS
  // fetch fails (403 and no Access-Control-Allow-Origin), the no-cors one too
  // (Cross-Origin-Resource-Policy: same-origin; at most it would be opaque and empty),
  // and the script include gets an error (403), defining nothing.
  const size_t open = dom->find("<pre id=\"out\">");
  ASSERT_NE(open, std::string::npos) << *dom;
  const std::string out = dom->substr(open, dom->find("</pre>", open) - open);
  EXPECT_THAT(out, HasSubstr("\"cors\":\"blocked:TypeError\"")) << out;
  EXPECT_THAT(out, ::testing::AnyOf(HasSubstr("\"nocors\":\"blocked:TypeError\""),
                                    HasSubstr("\"nocors\":\"opaque:0:0\"")))
      << out;
  EXPECT_THAT(out, HasSubstr("\"script\":\"error\"")) << out;
  EXPECT_THAT(out, Not(HasSubstr("read:")));
  EXPECT_THAT(out, Not(HasSubstr("loaded:")));
}

}  // namespace
}  // namespace trimaran::e2e
