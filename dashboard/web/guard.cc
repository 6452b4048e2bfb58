#include "dashboard/web/guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/http/bearer_auth.h"
#include "common/http/token_file.h"

namespace trimaran::dashboard::web {
namespace {

bool IsIpv4(const std::string& host) {
  in_addr a{};
  return inet_pton(AF_INET, host.c_str(), &a) == 1;
}

bool IsIpv6(const std::string& host) {
  in6_addr a{};
  return inet_pton(AF_INET6, host.c_str(), &a) == 1;
}

bool IsLoopback(const std::string& host) {
  in_addr a4{};
  if (inet_pton(AF_INET, host.c_str(), &a4) == 1) {
    return (ntohl(a4.s_addr) >> 24) == 127;
  }
  in6_addr a6{};
  if (inet_pton(AF_INET6, host.c_str(), &a6) == 1) {
    return IN6_IS_ADDR_LOOPBACK(&a6);
  }
  return false;
}

bool IsWildcard(absl::string_view bind) {
  return bind.empty() || bind == "0.0.0.0" || bind == "::" || bind == "*" || bind == "[::]";
}

// Lower case, without brackets and a trailing dot: the form hosts are compared in.
std::string NormalizeHost(absl::string_view host) {
  if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
    host = host.substr(1, host.size() - 2);
  }
  absl::ConsumeSuffix(&host, ".");
  return absl::AsciiStrToLower(host);
}

// "host:port" without the scheme's default port, lower case: how Host and Origin are
// compared.
std::string Authority(absl::string_view authority, bool tls) {
  std::string a = absl::AsciiStrToLower(authority);
  const absl::string_view default_port = tls ? ":443" : ":80";
  if (absl::EndsWith(a, default_port)) a.resize(a.size() - default_port.size());
  return a;
}

std::string Base64(const unsigned char* data, size_t n) {
  std::string out(4 * ((n + 2) / 3) + 1, '\0');
  const int len =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(n));
  out.resize(static_cast<size_t>(len));
  return out;
}

std::string Sha256Source(absl::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  return absl::StrCat("'sha256-", Base64(digest, sizeof(digest)), "'");
}

// The hashes of every inline element `tag` ("script" or "style") of `page` that runs:
// a <script> with a src= or a non-script type (a JSON data block) is skipped, and so is
// a tag inside an HTML comment. (A scan, not an HTML parser: enough for the one page
// this serves, whose policy the e2e test checks in a browser.)
std::vector<std::string> InlineHashes(absl::string_view page, absl::string_view tag) {
  std::vector<std::string> hashes;
  const std::string open = absl::StrCat("<", tag);
  const std::string close = absl::StrCat("</", tag, ">");
  size_t at = 0;
  while ((at = page.find(open, at)) != absl::string_view::npos) {
    // A tag inside an HTML comment is text: skip the comment.
    if (const size_t comment = page.rfind("<!--", at);
        comment != absl::string_view::npos && page.find("-->", comment) > at) {
      const size_t comment_end = page.find("-->", at);
      if (comment_end == absl::string_view::npos) break;
      at = comment_end + 3;
      continue;
    }
    const size_t tag_end = page.find('>', at);
    if (tag_end == absl::string_view::npos) break;
    const absl::string_view attributes = page.substr(at + open.size(), tag_end - at - open.size());
    // "<scripts" or "<styles" are other tags.
    if (!attributes.empty() && !absl::ascii_isspace(attributes[0])) {
      at = tag_end;
      continue;
    }
    const size_t body_end = page.find(close, tag_end);
    if (body_end == absl::string_view::npos) break;
    const std::string attrs = absl::AsciiStrToLower(attributes);
    const bool data_block = absl::StrContains(attrs, "type=") &&
                            !absl::StrContains(attrs, "javascript") &&
                            !absl::StrContains(attrs, "module");
    if (!absl::StrContains(attrs, "src=") && !data_block) {
      hashes.push_back(Sha256Source(page.substr(tag_end + 1, body_end - tag_end - 1)));
    }
    at = body_end + close.size();
  }
  return hashes;
}

// The cookie holds a digest of the token, never the token itself: a load watcher's
// token is also its API's bearer token, and a file's token may hold bytes a cookie
// cannot carry.
std::string CookieDigest(absl::string_view token) {
  const std::string input = absl::StrCat("trimaran-dashboard-cookie:", token);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof(digest)));
}

absl::StatusOr<std::string> RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    return absl::InternalError("dashboard: cannot draw random bytes for the token");
  }
  return absl::BytesToHexString(raw);
}

}  // namespace

absl::StatusOr<std::string> RandomToken() { return RandomHex(32); }

TokenFunction MakeFixedToken(std::string token) {
  return [token = std::move(token)]() -> absl::StatusOr<std::string> { return token; };
}

TokenFunction MakeTokenFileSource(std::string path) {
  auto file = std::make_shared<http::TokenFile>(std::move(path));
  return [file]() { return file->Get(); };
}

absl::StatusOr<std::string> HostOfHostHeader(absl::string_view host_header) {
  host_header = absl::StripAsciiWhitespace(host_header);
  if (host_header.empty()) return absl::InvalidArgumentError("no Host header");
  absl::string_view host = host_header;
  if (absl::StartsWith(host, "[")) {
    const size_t close = host.find(']');
    if (close == absl::string_view::npos) return absl::InvalidArgumentError("malformed Host");
    const absl::string_view rest = host.substr(close + 1);
    if (!rest.empty() && !absl::StartsWith(rest, ":")) {
      return absl::InvalidArgumentError("malformed Host");
    }
    host = host.substr(1, close - 1);
    if (!IsIpv6(std::string(host))) return absl::InvalidArgumentError("malformed Host");
  } else {
    const size_t colon = host.find(':');
    if (colon != absl::string_view::npos) {
      if (host.find(':', colon + 1) != absl::string_view::npos) {
        return absl::InvalidArgumentError("malformed Host (an IPv6 address needs brackets)");
      }
      host = host.substr(0, colon);
    }
  }
  if (host.empty()) return absl::InvalidArgumentError("empty Host");
  for (char c : host) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '-' && c != ':' && c != '_') {
      return absl::InvalidArgumentError("malformed Host");
    }
  }
  return NormalizeHost(host);
}

bool HostAllowed(absl::string_view host_header, const DashboardAccess& access) {
  absl::StatusOr<std::string> host = HostOfHostHeader(host_header);
  if (!host.ok()) return false;
  if (*host == "localhost" || IsLoopback(*host)) return true;
  const std::string bind = NormalizeHost(access.bind_address);
  if (!IsWildcard(bind) && *host == bind) return true;
  if (IsWildcard(bind) && (IsIpv4(*host) || IsIpv6(*host))) return true;
  for (const std::string& allowed : access.allowed_hosts) {
    if (*host == NormalizeHost(allowed)) return true;
  }
  return false;
}

absl::Status CheckOrigin(const http::Headers& headers, bool tls, bool page) {
  const absl::string_view host = headers.GetOr("Host");
  if (std::optional<absl::string_view> origin = headers.Get("Origin"); origin.has_value()) {
    const std::string scheme = tls ? "https://" : "http://";
    const absl::string_view o = absl::StripAsciiWhitespace(*origin);
    if (!absl::StartsWithIgnoreCase(o, scheme) ||
        Authority(o.substr(scheme.size()), tls) != Authority(host, tls)) {
      return absl::PermissionDeniedError(
          absl::StrCat("cross-origin request refused (Origin ", o, ")"));
    }
  }
  const absl::string_view site = headers.GetOr("Sec-Fetch-Site");
  if (site.empty() || site == "same-origin" || site == "none") return absl::OkStatus();
  if (page && headers.GetOr("Sec-Fetch-Mode") == "navigate" &&
      headers.GetOr("Sec-Fetch-Dest") == "document") {
    return absl::OkStatus();  // a link to the page; the linking site reads nothing
  }
  return absl::PermissionDeniedError(
      absl::StrCat("cross-origin request refused (Sec-Fetch-Site ", site, ")"));
}

std::string CookieValue(const http::Headers& headers, absl::string_view name) {
  for (absl::string_view header : headers.GetAll("Cookie")) {
    for (absl::string_view pair : absl::StrSplit(header, ';')) {
      pair = absl::StripAsciiWhitespace(pair);
      const size_t eq = pair.find('=');
      if (eq == absl::string_view::npos) continue;
      if (pair.substr(0, eq) == name) return std::string(pair.substr(eq + 1));
    }
  }
  return "";
}

std::string PageContentSecurityPolicy(absl::string_view page) {
  std::vector<std::string> scripts = InlineHashes(page, "script");
  std::vector<std::string> styles = InlineHashes(page, "style");
  return absl::StrCat("default-src 'none'; script-src ",
                      scripts.empty() ? "'none'" : absl::StrJoin(scripts, " "), "; style-src ",
                      styles.empty() ? "'none'" : absl::StrJoin(styles, " "),
                      "; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
                      "frame-ancestors 'none'");
}

void SetSecurityHeaders(http::ServerResponse& response, absl::string_view csp) {
  response.headers.Set("Content-Security-Policy", std::string(csp));
  response.headers.Set("X-Frame-Options", "DENY");
  response.headers.Set("X-Content-Type-Options", "nosniff");
  response.headers.Set("Referrer-Policy", "no-referrer");
  response.headers.Set("Cross-Origin-Resource-Policy", "same-origin");
  response.headers.Set("Cross-Origin-Opener-Policy", "same-origin");
}

DashboardGuard::DashboardGuard(DashboardAccess access)
    : access_(std::move(access)),
      cookie_name_(absl::StrCat("trimaran-dashboard-", RandomHex(4).value_or("0"))) {}

absl::Status DashboardGuard::CheckHostAndOrigin(const http::ServerRequest& request,
                                                bool page) const {
  const absl::string_view host = request.headers.GetOr("Host");
  if (!HostAllowed(host, access_)) {
    return absl::PermissionDeniedError(
        absl::StrCat("Host \"", host,
                     "\" is not this dashboard's address (DNS rebinding defence; allow a name with "
                     "--allowed-hosts)"));
  }
  return CheckOrigin(request.headers, access_.tls, page);
}

absl::StatusOr<TokenSource> DashboardGuard::Authenticate(const http::ServerRequest& request) const {
  if (!access_.token) return absl::UnauthenticatedError("the dashboard has no token configured");
  absl::StatusOr<std::string> expected = access_.token();
  if (!expected.ok() || expected->empty()) {
    return absl::UnauthenticatedError("the dashboard's token is unavailable");
  }
  auto matches = [&](absl::string_view presented) {
    return http::ConstantTimeEquals(presented, *expected);
  };
  if (request.HasQuery("token")) {
    if (matches(request.Query("token"))) return TokenSource::kQuery;
    return absl::UnauthenticatedError("invalid token");
  }
  if (std::optional<absl::string_view> auth = request.headers.Get("Authorization")) {
    absl::string_view v = absl::StripAsciiWhitespace(*auth);
    if (absl::ConsumePrefix(&v, "Bearer ") || absl::ConsumePrefix(&v, "bearer ")) {
      if (matches(absl::StripLeadingAsciiWhitespace(v))) return TokenSource::kAuthorization;
    }
    return absl::UnauthenticatedError("invalid bearer token");
  }
  const std::string cookie = CookieValue(request.headers, cookie_name_);
  if (!cookie.empty()) {
    if (http::ConstantTimeEquals(cookie, CookieDigest(*expected))) return TokenSource::kCookie;
    return absl::UnauthenticatedError("invalid or expired token cookie");
  }
  return absl::UnauthenticatedError("no token");
}

absl::StatusOr<std::string> DashboardGuard::SetCookie(absl::string_view path) const {
  if (!access_.token) return absl::UnauthenticatedError("the dashboard has no token configured");
  absl::StatusOr<std::string> token = access_.token();
  if (!token.ok()) return token.status();
  return absl::StrCat(cookie_name_, "=", CookieDigest(*token), "; Path=", path,
                      "; HttpOnly; SameSite=Strict", access_.tls ? "; Secure" : "");
}

}  // namespace trimaran::dashboard::web
