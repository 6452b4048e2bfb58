#include "dashboard/web/service.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "dashboard/documents.h"
#include "dashboard/web/page.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace trimaran::dashboard::web {
namespace {

constexpr absl::Duration kDecisionsCacheTtl = absl::Seconds(2);

// The page's data block, as index.html has it; the page is served with the nodes
// document in place of `null`.
constexpr absl::string_view kDataBlockOpen =
    "<script type=\"application/json\" id=\"initial-nodes\">";
constexpr absl::string_view kDataBlockPlaceholder = "null</script>";

constexpr char kPageContentType[] = "Text/html; charset=utf-8";

// The routes answer every method so that a refused one still gets the guard's headers.
const std::vector<std::string>& AllMethods() {
  static const std::vector<std::string>* const kAll =
      new std::vector<std::string>{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
  return *kAll;
}

// JSON inside an HTML <script> data block: every '<' escaped, so no "</script>" or
// "<!--" in a string can end or change the block. JSON.parse reads \u003c back as '<'.
std::string JsonForScriptBlock(absl::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 64);
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

std::string JsonString(absl::string_view s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  return std::string(buf.GetString(), buf.GetSize());
}

void Json(http::ServerResponse& r, std::string body, int status = 200) {
  r.status = status;
  r.content_type = "application/json";
  r.headers.Set("Cache-Control", "no-store");
  r.body = std::move(body);
}

// The page before and after the `null` of its data block; all of it in `head` when it
// has none (the page then fetches its data).
void SplitAtDataBlock(absl::string_view page, std::string& head, std::string& tail) {
  const size_t open = page.find(kDataBlockOpen);
  if (open == absl::string_view::npos) {
    head = std::string(page);
    return;
  }
  const size_t data = open + kDataBlockOpen.size();
  if (page.substr(data, kDataBlockPlaceholder.size()) != kDataBlockPlaceholder) {
    head = std::string(page);
    return;
  }
  head = std::string(page.substr(0, data));
  tail = std::string(page.substr(data + 4));  // after "null"
}

// A refusal: JSON for the api, text for the page (a person reads it).
void Refuse(http::ServerResponse& r, int status, absl::string_view why, bool page) {
  if (page) {
    r.status = status;
    r.headers.Set("Cache-Control", "no-store");
    r.body = absl::StrCat(status, ": ", why, "\n");
    return;
  }
  Json(r, absl::StrCat("{\"error\":", JsonString(why), "}"), status);
}

}  // namespace

DashboardService::DashboardService(ClusterSource& source, PriceTable prices,
                                   DashboardOptions options, const Clock& clock,
                                   DecisionsSource* decisions)
    : source_(source),
      prices_(std::move(prices)),
      options_(std::move(options)),
      clock_(clock),
      decisions_(decisions),
      history_(options_.history_capacity),
      guard_(options_.access) {
  page_csp_ = PageContentSecurityPolicy(DashboardPage());
  SplitAtDataBlock(DashboardPage(), page_head_, page_tail_);
}

DashboardService::~DashboardService() { Stop(); }

absl::Status DashboardService::Refresh() {
  const absl::Time now = clock_.Now();
  absl::StatusOr<ClusterView> view = BuildView(source_, options_.view, prices_, now);
  if (!view.ok()) {
    absl::MutexLock lock(&mu_);
    last_error_ = std::string(view.status().message());
    return view.status();
  }
  history_.Record(*view);
  auto json = std::make_shared<const std::string>(RenderJson(*view, options_.targets));
  absl::MutexLock lock(&mu_);
  nodes_json_ = std::move(json);
  last_error_.clear();
  last_refresh_ = now;
  return absl::OkStatus();
}

void DashboardService::Start(std::function<absl::Status()> start) {
  thread_ = std::jthread([this, start = std::move(start)](std::stop_token stop) {
    const absl::Duration period = options_.view.refresh;
    bool started = start == nullptr;
    while (!stop.stop_requested()) {
      if (!started) {
        absl::Status s = start();
        if (s.ok()) {
          started = true;
        } else {
          absl::MutexLock lock(&mu_);
          last_error_ = std::string(s.message());
        }
      }
      if (started) Refresh().IgnoreError();  // reported through lastError
      if (!clock_.SleepFor(period, stop)) break;
    }
  });
}

void DashboardService::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

std::shared_ptr<const std::string> DashboardService::NodesJson() const {
  absl::MutexLock lock(&mu_);
  return nodes_json_;
}

std::string DashboardService::NoDataReason() const {
  absl::MutexLock lock(&mu_);
  if (last_error_.empty()) return "no data yet: waiting for the first refresh";
  return absl::StrCat("no data yet: ", last_error_);
}

std::string DashboardService::ConfigJson() const {
  std::string last_error;
  std::optional<absl::Time> last_refresh;
  {
    absl::MutexLock lock(&mu_);
    last_error = last_error_;
    last_refresh = last_refresh_;
  }
  return absl::StrCat(
      "{\"hotThresholdPercent\":", options_.view.hot_threshold,
      ",\"refreshSeconds\":", absl::ToDoubleSeconds(options_.view.refresh),
      ",\"historyCapacity\":", history_.capacity(),
      ",\"decisions\":", decisions_ != nullptr ? "true" : "false",
      ",\"lastError\":", JsonString(last_error), ",\"lastRefresh\":",
      last_refresh.has_value()
          ? JsonString(absl::FormatTime(absl::RFC3339_sec, *last_refresh, absl::UTCTimeZone()))
          : "null",
      "}");
}

std::string DashboardService::DecisionsJson() {
  if (decisions_ == nullptr) {
    return absl::StrCat("{\"enabled\":false,\"hint\":", JsonString(options_.decisions_hint), "}");
  }
  absl::MutexLock lock(&decisions_mu_);
  const absl::Time now = clock_.Now();
  if (now - decisions_time_ < kDecisionsCacheTtl && !decisions_cache_.empty()) {
    return decisions_cache_;
  }
  absl::StatusOr<std::string> doc = decisions_->Fetch(options_.decisions_limit);
  std::string out =
      absl::StrCat("{\"enabled\":true,\"scheduler\":", JsonString(decisions_->Describe()), ",");
  if (doc.ok()) {
    absl::StrAppend(&out, "\"result\":", *doc, "}");
  } else {
    absl::StrAppend(&out, "\"error\":", JsonString(doc.status().message()), "}");
  }
  decisions_cache_ = out;
  decisions_time_ = now;
  return out;
}

http::RouteHandler DashboardService::Guarded(RouteKind kind, GuardedHandler handler) const {
  const DashboardService* self = this;  // the handlers call thread-safe members only
  return [self, kind, handler = std::move(handler)](const http::ServerRequest& request,
                                                    http::ServerResponse& response) {
    const bool page = kind == RouteKind::kPage;
    SetSecurityHeaders(response, kApiContentSecurityPolicy);  // the page sets its own
    if (absl::Status s = self->guard_.CheckHostAndOrigin(request, page); !s.ok()) {
      Refuse(response, 403, s.message(), page);
      return;
    }
    if (request.method != "GET" && request.method != "HEAD") {
      Refuse(response, 405, absl::StrCat("method ", request.method, " not allowed"), page);
      response.headers.Set("Allow", "GET, HEAD");
      return;
    }
    absl::StatusOr<TokenSource> source = self->guard_.Authenticate(request);
    if (!source.ok()) {
      Refuse(response, 401,
             absl::StrCat(source.status().message(),
                          ": open the dashboard with the URL it printed at start "
                          "(.../?token=...), or send \"Authorization: Bearer TOKEN\""),
             page);
      response.headers.Set("WWW-Authenticate", "Bearer realm=\"trimaran-dashboard\"");
      return;
    }
    handler(request, *source, response);
  };
}

void DashboardService::ServePage(const std::string& base, const http::ServerRequest& request,
                                 TokenSource source, http::ServerResponse& response) const {
  if (source == TokenSource::kQuery || request.path != base) {
    // The token moves from the URL into the cookie; the fragment (the view's state)
    // stays with the browser across the redirect.
    if (source == TokenSource::kQuery) {
      absl::StatusOr<std::string> cookie = guard_.SetCookie(base);
      if (!cookie.ok()) {
        Refuse(response, 401, cookie.status().message(), true);
        return;
      }
      response.headers.Set("Set-Cookie", *cookie);
    }
    response.status = 302;
    response.headers.Set("Cache-Control", "no-store");
    response.headers.Set("Location", base);
    return;
  }
  SetSecurityHeaders(response, page_csp_);
  // MIME types are case-insensitive; cpp-httplib 0.11's test for compressible types is
  // not. "text/html" would be brotli-compressed at quality 11 for every browser that
  // accepts br (Chromium does on localhost): 15+ s of CPU for a 5 MB page of 5,000
  // nodes. This spelling is sent as it is.
  response.content_type = kPageContentType;
  response.headers.Set("Cache-Control", "no-store");
  if (page_tail_.empty()) {
    response.body = page_head_;
    return;
  }
  std::shared_ptr<const std::string> doc = NodesJson();
  response.body =
      absl::StrCat(page_head_, doc == nullptr ? "null" : JsonForScriptBlock(*doc), page_tail_);
}

std::vector<http::Route> DashboardService::Routes(const std::string& prefix) {
  DashboardService* self = this;  // the handlers call thread-safe members only
  std::vector<http::Route> routes;
  const std::string base = prefix + "/";
  auto add = [&](std::string path, bool is_prefix, std::string help, RouteKind kind,
                 GuardedHandler handler) {
    routes.push_back({.path = std::move(path),
                      .prefix = is_prefix,
                      .methods = AllMethods(),
                      .help = std::move(help),
                      .handler = Guarded(kind, std::move(handler))});
  };
  auto page = [self, base](const http::ServerRequest& req, TokenSource source,
                           http::ServerResponse& r) { self->ServePage(base, req, source, r); };
  add(base, false, "the node dashboard (web page; ?token=T sets the token cookie)",
      RouteKind::kPage, page);
  if (!prefix.empty()) add(prefix, false, "redirects to " + base, RouteKind::kPage, page);
  add(base, true, "not found (after the dashboard's checks)", RouteKind::kApi,
      [](const http::ServerRequest& req, TokenSource, http::ServerResponse& r) {
        Json(r, absl::StrCat("{\"error\":", JsonString(absl::StrCat("not found: ", req.path)), "}"),
             404);
      });
  add(base + "api/nodes", false, "the dashboard's data: the `trimaranctl nodes -o json` document",
      RouteKind::kApi, [self](const http::ServerRequest&, TokenSource, http::ServerResponse& r) {
        std::shared_ptr<const std::string> doc = self->NodesJson();
        if (doc == nullptr) {
          Json(r, absl::StrCat("{\"error\":", JsonString(self->NoDataReason()), "}"), 503);
          return;
        }
        Json(r, *doc);
      });
  add(base + "api/history", false,
      "per-node usage samples: ?node=NAME (repeatable; none: all nodes)", RouteKind::kApi,
      [self](const http::ServerRequest& req, TokenSource, http::ServerResponse& r) {
        std::vector<std::string> nodes;
        auto [lo, hi] = req.query.equal_range("node");
        for (auto it = lo; it != hi; ++it) nodes.push_back(it->second);
        Json(r, self->history().Json(nodes));
      });
  add(base + "api/config", false, "the dashboard's settings and its last refresh error",
      RouteKind::kApi, [self](const http::ServerRequest&, TokenSource, http::ServerResponse& r) {
        Json(r, self->ConfigJson());
      });
  add(base + "api/decisions", false, "the scheduler's recent decisions (with --scheduler)",
      RouteKind::kApi, [self](const http::ServerRequest&, TokenSource, http::ServerResponse& r) {
        Json(r, self->DecisionsJson());
      });
  return routes;
}

absl::Status DashboardService::AddRoutes(http::HttpServer& server, const std::string& prefix) {
  for (http::Route& r : Routes(prefix)) {
    absl::Status s = server.AddRoute(std::move(r));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace trimaran::dashboard::web
