#pragma once
// DashboardGuard: what keeps the web dashboard (service.h) a local tool that
// other web sites cannot read (issue 30 point 7; docs/trimaranctl.md "Who can read the
// dashboard"). Every dashboard request passes three checks, in this order:
//
//   1. Host (DNS rebinding): the Host header must name the server as its user reached
//      it: `localhost`, a loopback address (127.0.0.0/8, ::1), the bound address, any
//      IP literal when the server is bound to a wildcard (0.0.0.0, ::), or one of
//      `allowed_hosts` (names, for an Ingress or a Service). A rebound name
//      (attacker.example resolving to 127.0.0.1) is none of these: 403. The port is not
//      compared (kubectl port-forward and proxies change it); the Origin check is.
//   2. Origin (cross-origin reads): an Origin header must be exactly
//      <scheme>://<Host> ("null" never is), and Sec-Fetch-Site, when the browser sends
//      it, must be same-origin or none; a top-level navigation to the page
//      (Sec-Fetch-Mode navigate, Sec-Fetch-Dest document) may come from elsewhere (a
//      link opens the page as typing its URL would; the linking site reads nothing).
//      Otherwise 403, so a page on another port of 127.0.0.1 (same-site, so the
//      browser would send the cookie) cannot fetch or script-include the data.
//   3. Token: the per-start secret, presented as ?token=T (the URL the command prints;
//      the page then gets it as a cookie), "Authorization: Bearer T" (curl, scripts) or
//      the cookie (the page's own requests). Compared in constant time. Missing or
//      wrong: 401. A token source that fails (an unreadable token file) fails closed.
//
// The cookie holds a SHA-256 digest of the token (not the token: a load watcher's token
// is also its API's bearer token). It is HttpOnly, SameSite=Strict, Path=<prefix>/, Secure over
// TLS, with no expiry (it ends with the browser session); its name carries a random per-guard id so
// that two dashboards on one host (cookies ignore ports) do not overwrite each other's.
//
// Every dashboard response carries SecurityHeaders(): a Content-Security-Policy
// (PageContentSecurityPolicy for the page: its inline script and style by SHA-256 hash,
// connections to 'self' only; kApiContentSecurityPolicy for everything else), and
// X-Frame-Options: DENY, X-Content-Type-Options: nosniff, Referrer-Policy: no-referrer,
// Cross-Origin-Resource-Policy: same-origin, Cross-Origin-Opener-Policy: same-origin.
//
// Thread-safety: DashboardGuard is immutable after construction and safe for
// concurrent use if its token function is (the ones of MakeFixedToken and
// MakeTokenFileSource are). The free functions are reentrant.

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/http/http_server.h"

namespace trimaran::dashboard::web {

// The current token; an error refuses every request (fails closed).
using TokenFunction = std::function<absl::StatusOr<std::string>()>;

struct DashboardAccess {
  TokenFunction token;  // required: a null function refuses every request
  // The listen host as given to the server ("127.0.0.1", "::1", "0.0.0.0", a name).
  std::string bind_address = "127.0.0.1";
  // Extra Host names (any case, no port) the dashboard answers to.
  std::vector<std::string> allowed_hosts;
  bool tls = false;  // the server speaks HTTPS: Origin scheme and the cookie's Secure
};

// Where a request's valid token came from.
enum class TokenSource { kQuery, kAuthorization, kCookie };

class DashboardGuard {
 public:
  explicit DashboardGuard(DashboardAccess access);

  // Checks 1 and 2: OK or PermissionDenied with the reason. `page` is true for the
  // page's own path (the only one a cross-site top-level navigation may reach).
  absl::Status CheckHostAndOrigin(const http::ServerRequest& request, bool page) const;

  // Check 3: where the valid token came from, or Unauthenticated.
  absl::StatusOr<TokenSource> Authenticate(const http::ServerRequest& request) const;

  // The Set-Cookie value that hands the token to the page (cookie path `path`).
  absl::StatusOr<std::string> SetCookie(absl::string_view path) const;

  const std::string& cookie_name() const { return cookie_name_; }

 private:
  const DashboardAccess access_;
  const std::string cookie_name_;
};

// --- The checks' parts (reentrant; unit-tested one by one) ---

// A 256-bit random token as 64 hex digits, from the OS's CSPRNG (OpenSSL RAND_bytes).
absl::StatusOr<std::string> RandomToken();

// A token function that always returns `token`.
TokenFunction MakeFixedToken(std::string token);

// A token function over a rotating token file (http::TokenFile: re-read on change).
TokenFunction MakeTokenFileSource(std::string path);

// The host of a Host header ("[::1]:8088" -> "::1", "Example.COM." -> "example.com");
// InvalidArgument for an empty or malformed value.
absl::StatusOr<std::string> HostOfHostHeader(absl::string_view host_header);

// Check 1 on a Host header value.
bool HostAllowed(absl::string_view host_header, const DashboardAccess& access);

// Check 2 on the request's headers (Host already checked).
absl::Status CheckOrigin(const http::Headers& headers, bool tls, bool page);

// The value of cookie `name` in the request's Cookie headers, or "" when absent.
std::string CookieValue(const http::Headers& headers, absl::string_view name);

// "default-src 'none'; ..." for `page`: every inline <script> (not a src=, not a
// type="application/json" data block) and <style> allowed by its SHA-256 hash, fetches
// to 'self', images from 'self', no framing, no base or form targets.
std::string PageContentSecurityPolicy(absl::string_view page);

// The policy of every response that is not the page: nothing may load or run.
inline constexpr char kApiContentSecurityPolicy[] =
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Sets the headers listed at the top of this file on `response`.
void SetSecurityHeaders(http::ServerResponse& response, absl::string_view csp);

}  // namespace trimaran::dashboard::web
