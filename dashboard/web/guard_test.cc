#include "dashboard/web/guard.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::dashboard::web {
namespace {

using ::testing::HasSubstr;

TEST(DashboardGuardTest, HostOfHostHeader) {
  EXPECT_EQ(*HostOfHostHeader("127.0.0.1:8088"), "127.0.0.1");
  EXPECT_EQ(*HostOfHostHeader("[::1]:8088"), "::1");
  EXPECT_EQ(*HostOfHostHeader("[::1]"), "::1");
  EXPECT_EQ(*HostOfHostHeader("LocalHost."), "localhost");
  EXPECT_EQ(*HostOfHostHeader(" dash.example.com:443 "), "dash.example.com");
  for (const char* bad :
       {"", ":8088", "::1:8088", "[::1", "[::1]x", "[nothex]:1", "a b", "evil.com/x", "a@b"}) {
    EXPECT_FALSE(HostOfHostHeader(bad).ok()) << bad;
  }
}

TEST(DashboardGuardTest, HostsOfALoopbackServer) {
  DashboardAccess access;  // bound to 127.0.0.1
  for (const char* ok : {"127.0.0.1:8088", "localhost:8088", "LOCALHOST", "[::1]:8088",
                         "127.1.2.3:8088", "localhost.:8088"}) {
    EXPECT_TRUE(HostAllowed(ok, access)) << ok;
  }
  // DNS rebinding: a name the attacker controls, resolving to 127.0.0.1.
  for (const char* refused : {"attacker.example:8088", "127.0.0.1.nip.io:8088", "10.0.0.5:8088",
                              "localhost.attacker.example", "", "[::1"}) {
    EXPECT_FALSE(HostAllowed(refused, access)) << refused;
  }
  access.allowed_hosts = {"Dash.Internal"};
  EXPECT_TRUE(HostAllowed("dash.internal:8088", access));
  EXPECT_FALSE(HostAllowed("other.internal:8088", access));
}

TEST(DashboardGuardTest, HostsOfAServerBoundToAnAddressOrAWildcard) {
  DashboardAccess access;
  access.bind_address = "10.0.0.5";
  EXPECT_TRUE(HostAllowed("10.0.0.5:8088", access));
  EXPECT_FALSE(HostAllowed("10.0.0.6:8088", access));
  EXPECT_FALSE(HostAllowed("node1.example:8088", access));
  access.bind_address = "0.0.0.0";  // any IP literal (rebinding needs a name), no names
  EXPECT_TRUE(HostAllowed("10.0.0.6:8088", access));
  EXPECT_TRUE(HostAllowed("[fd00::1]:8088", access));
  EXPECT_FALSE(HostAllowed("node1.example:8088", access));
  access.bind_address = "::";
  EXPECT_TRUE(HostAllowed("192.168.1.1", access));
  access.bind_address = "[::1]";
  EXPECT_TRUE(HostAllowed("[::1]:1", access));
  access.bind_address = "dash.example";
  EXPECT_TRUE(HostAllowed("DASH.example:8088", access));
}

http::Headers With(std::initializer_list<http::Headers::Field> fields) { return fields; }

TEST(DashboardGuardTest, Origin) {
  // Same origin (or no Origin, as a same-origin GET sends none).
  EXPECT_TRUE(CheckOrigin(With({{"Host", "127.0.0.1:8088"}}), false, false).ok());
  EXPECT_TRUE(CheckOrigin(With({{"Host", "127.0.0.1:8088"}, {"Origin", "http://127.0.0.1:8088"}}),
                          false, false)
                  .ok());
  EXPECT_TRUE(CheckOrigin(With({{"Host", "LOCALHOST:8088"}, {"Origin", "http://localhost:8088"}}),
                          false, false)
                  .ok());
  EXPECT_TRUE(CheckOrigin(With({{"Host", "dash:443"}, {"Origin", "https://dash"}}), true, false)
                  .ok());  // the default port is implied
  // Another port, scheme or host, and the opaque "null" origin.
  for (const char* origin : {"http://127.0.0.1:9999", "https://127.0.0.1:8088",
                             "http://evil.example", "null", "http://127.0.0.1:8088.evil"}) {
    absl::Status s =
        CheckOrigin(With({{"Host", "127.0.0.1:8088"}, {"Origin", origin}}), false, false);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << origin;
    EXPECT_THAT(s.message(), HasSubstr("cross-origin")) << origin;
  }
  // Fetch metadata: same-origin and none (typed URL, bookmark) pass; same-site (another
  // port) and cross-site do not, except a top-level navigation to the page.
  auto site = [](const char* s, const char* mode, const char* dest, bool page) {
    return CheckOrigin(With({{"Host", "127.0.0.1:8088"},
                             {"Sec-Fetch-Site", s},
                             {"Sec-Fetch-Mode", mode},
                             {"Sec-Fetch-Dest", dest}}),
                       false, page)
        .ok();
  };
  EXPECT_TRUE(site("same-origin", "cors", "empty", false));
  EXPECT_TRUE(site("none", "navigate", "document", true));
  EXPECT_FALSE(site("same-site", "cors", "empty", false));
  EXPECT_FALSE(site("cross-site", "no-cors", "script", false));
  EXPECT_FALSE(site("cross-site", "no-cors", "script", true));
  EXPECT_FALSE(site("same-site", "navigate", "iframe", true));
  EXPECT_TRUE(site("cross-site", "navigate", "document", true));
  EXPECT_FALSE(site("cross-site", "navigate", "document", false));
}

TEST(DashboardGuardTest, CookieValue) {
  const http::Headers h = {{"Cookie", "a=1; trimaran-dashboard-x=abc;b=2"}, {"Cookie", "c=3"}};
  EXPECT_EQ(CookieValue(h, "trimaran-dashboard-x"), "abc");
  EXPECT_EQ(CookieValue(h, "c"), "3");
  EXPECT_EQ(CookieValue(h, "trimaran-dashboard"), "");
  EXPECT_EQ(CookieValue({}, "a"), "");
}

http::ServerRequest Request(std::initializer_list<http::Headers::Field> headers,
                            std::string token_query = "") {
  http::ServerRequest r;
  r.method = "GET";
  r.path = "/api/nodes";
  r.headers = headers;
  if (!token_query.empty()) r.query.emplace("token", token_query);
  return r;
}

TEST(DashboardGuardTest, TokenFromQueryHeaderOrCookie) {
  DashboardAccess access;
  access.token = MakeFixedToken("s3cret");
  DashboardGuard guard(access);
  EXPECT_EQ(*guard.Authenticate(Request({}, "s3cret")), TokenSource::kQuery);
  EXPECT_EQ(*guard.Authenticate(Request({{"Authorization", "Bearer s3cret"}})),
            TokenSource::kAuthorization);
  absl::StatusOr<std::string> set_cookie = guard.SetCookie("/");
  ASSERT_TRUE(set_cookie.ok());
  EXPECT_TRUE(absl::StartsWith(*set_cookie, guard.cookie_name() + "="));
  EXPECT_THAT(*set_cookie, ::testing::EndsWith("; Path=/; HttpOnly; SameSite=Strict"));
  EXPECT_THAT(*set_cookie, ::testing::Not(HasSubstr("s3cret")));
  const std::string cookie = set_cookie->substr(0, set_cookie->find(';'));
  EXPECT_EQ(*guard.Authenticate(Request({{"Cookie", cookie}})), TokenSource::kCookie);

  for (const http::ServerRequest& bad :
       {Request({}), Request({}, "wrong"), Request({{"Authorization", "Bearer wrong"}}),
        Request({{"Authorization", "Basic czNjcmV0"}}),
        Request({{"Cookie", guard.cookie_name() + "=s3cret"}}),  // the raw token is no cookie
        Request({{"Cookie", "other=" + cookie.substr(cookie.find('=') + 1)}})}) {
    absl::StatusOr<TokenSource> s = guard.Authenticate(bad);
    EXPECT_EQ(s.status().code(), absl::StatusCode::kUnauthenticated);
  }
  // A wrong query token is refused even with a good cookie (the explicit one counts).
  EXPECT_FALSE(guard.Authenticate(Request({{"Cookie", cookie}}, "wrong")).ok());
  // Two dashboards on one host: different cookie names.
  EXPECT_NE(DashboardGuard(access).cookie_name(), guard.cookie_name());
}

TEST(DashboardGuardTest, FailsClosedWithoutAToken) {
  DashboardGuard none(DashboardAccess{});
  EXPECT_FALSE(none.Authenticate(Request({}, "")).ok());
  EXPECT_FALSE(none.Authenticate(Request({{"Authorization", "Bearer "}})).ok());
  EXPECT_FALSE(none.SetCookie("/").ok());
  DashboardAccess empty;
  empty.token = MakeFixedToken("");
  EXPECT_FALSE(DashboardGuard(empty).Authenticate(Request({}, "")).ok());
}

TEST(DashboardGuardTest, TokenFileRotatesAndFailsClosed) {
  trimaran::testing::TempDirForTest dir;
  const std::string path = dir.Path("token");
  std::ofstream(path) << "first\n";
  DashboardAccess access;
  access.token = MakeTokenFileSource(path);
  access.tls = true;
  DashboardGuard guard(access);
  EXPECT_TRUE(guard.Authenticate(Request({{"Authorization", "Bearer first"}})).ok());
  EXPECT_THAT(*guard.SetCookie("/dashboard/"), HasSubstr("; Secure"));
  absl::SleepFor(absl::Milliseconds(20));  // a new mtime
  std::ofstream(path) << "second-longer\n";
  EXPECT_FALSE(guard.Authenticate(Request({{"Authorization", "Bearer first"}})).ok());
  EXPECT_TRUE(guard.Authenticate(Request({{"Authorization", "Bearer second-longer"}})).ok());
  std::remove(path.c_str());
  EXPECT_FALSE(guard.Authenticate(Request({{"Authorization", "Bearer second-longer"}})).ok());
}

TEST(DashboardGuardTest, HostAndOriginTogether) {
  DashboardAccess access;
  access.token = MakeFixedToken("t");
  DashboardGuard guard(access);
  http::ServerRequest r = Request({{"Host", "attacker.example:8088"}});
  absl::Status s = guard.CheckHostAndOrigin(r, true);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(s.message(), HasSubstr("DNS rebinding"));
  EXPECT_TRUE(guard.CheckHostAndOrigin(Request({{"Host", "127.0.0.1:1"}}), false).ok());
  EXPECT_FALSE(guard.CheckHostAndOrigin(Request({}), false).ok());  // no Host at all
}

TEST(DashboardGuardTest, RandomTokensAreLongAndDistinct) {
  absl::StatusOr<std::string> a = RandomToken();
  absl::StatusOr<std::string> b = RandomToken();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 64u);
  EXPECT_NE(*a, *b);
  for (char c : *a) EXPECT_TRUE(absl::ascii_isxdigit(c));
}

TEST(DashboardGuardTest, PageContentSecurityPolicyHashesTheInlineScriptAndStyle) {
  // SHA-256 of "alert(1)" and of "b{}" (computed with openssl dgst -sha256 -binary |
  // base64).
  const std::string page =
      "<!-- a comment naming <script> and <style> tags --><html><head><style>b{}</style>"
      "</head><body>"
      "<script type=\"application/json\" id=\"d\">{\"a\":1}</script>"
      "<script src=\"x.js\"></script>"
      "<script>alert(1)</script></body></html>";
  const std::string csp = PageContentSecurityPolicy(page);
  EXPECT_THAT(csp, HasSubstr("script-src 'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"));
  EXPECT_THAT(csp, HasSubstr("style-src 'sha256-7yqHVAesot11p6HczDsgKRipvI5UPgs97z80zNXlans='"));
  EXPECT_THAT(csp, HasSubstr("default-src 'none'"));
  EXPECT_THAT(csp, HasSubstr("connect-src 'self'"));
  EXPECT_THAT(csp, HasSubstr("frame-ancestors 'none'"));
  // One script hash: the data block and the src= script are not inline script.
  EXPECT_EQ(csp.find("'sha256-", csp.find("script-src") + 20),
            csp.find("'sha256-", csp.find("style-src")));
  EXPECT_THAT(PageContentSecurityPolicy("<p>no script</p>"), HasSubstr("script-src 'none'"));
}

TEST(DashboardGuardTest, SecurityHeaders) {
  http::ServerResponse r;
  SetSecurityHeaders(r, kApiContentSecurityPolicy);
  EXPECT_EQ(r.headers.GetOr("Content-Security-Policy"), kApiContentSecurityPolicy);
  EXPECT_EQ(r.headers.GetOr("X-Frame-Options"), "DENY");
  EXPECT_EQ(r.headers.GetOr("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(r.headers.GetOr("Referrer-Policy"), "no-referrer");
  EXPECT_EQ(r.headers.GetOr("Cross-Origin-Resource-Policy"), "same-origin");
}

}  // namespace
}  // namespace trimaran::dashboard::web
