#include "cmd/trimaranctl/dashboard_service.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "cmd/trimaranctl/dashboard_page.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace trimaran::cmd::trimaranctl::nodes {
namespace {

constexpr absl::Duration kDecisionsCacheTtl = absl::Seconds(2);

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

}  // namespace

DashboardService::DashboardService(ClusterSource& source, PriceTable prices, LayoutOptions layout,
                                   DashboardOptions options, const Clock& clock,
                                   DecisionsSource* decisions)
    : source_(source),
      prices_(std::move(prices)),
      layout_(std::move(layout)),
      options_(std::move(options)),
      clock_(clock),
      decisions_(decisions),
      history_(options_.history_capacity) {}

DashboardService::~DashboardService() { Stop(); }

absl::Status DashboardService::Refresh() {
  const absl::Time now = clock_.Now();
  absl::StatusOr<ClusterView> view = BuildView(source_, options_.flags, prices_, now);
  if (!view.ok()) {
    absl::MutexLock lock(&mu_);
    last_error_ = std::string(view.status().message());
    return view.status();
  }
  history_.Record(*view);
  auto json = std::make_shared<const std::string>(RenderJson(*view, layout_));
  absl::MutexLock lock(&mu_);
  nodes_json_ = std::move(json);
  last_error_.clear();
  last_refresh_ = now;
  return absl::OkStatus();
}

void DashboardService::Start(std::function<absl::Status()> start) {
  thread_ = std::jthread([this, start = std::move(start)](std::stop_token stop) {
    const absl::Duration period = options_.flags.refresh;
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
      "{\"hotThresholdPercent\":", layout_.hot_threshold,
      ",\"refreshSeconds\":", absl::ToDoubleSeconds(options_.flags.refresh),
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

std::vector<http::Route> DashboardService::Routes(const std::string& prefix) {
  DashboardService* self = this;  // the handlers call thread-safe members only
  std::vector<http::Route> routes;
  const std::string base = prefix + "/";
  auto page = [](const http::ServerRequest&, http::ServerResponse& r) {
    r.content_type = "text/html; charset=utf-8";
    r.headers.Set("Cache-Control", "no-cache");
    r.body = std::string(DashboardPage());
  };
  routes.push_back({.path = base, .help = "the node dashboard (web page)", .handler = page});
  if (!prefix.empty()) {
    routes.push_back({.path = prefix,
                      .help = "redirects to " + base,
                      .handler = [base](const http::ServerRequest&, http::ServerResponse& r) {
                        r.status = 302;
                        r.headers.Set("Location", base);
                      }});
  }
  routes.push_back({.path = base + "api/nodes",
                    .help = "the dashboard's data: the `trimaranctl nodes -o json` document",
                    .handler = [self](const http::ServerRequest&, http::ServerResponse& r) {
                      std::shared_ptr<const std::string> doc = self->NodesJson();
                      if (doc == nullptr) {
                        Json(r, absl::StrCat("{\"error\":", JsonString(self->NoDataReason()), "}"),
                             503);
                        return;
                      }
                      Json(r, *doc);
                    }});
  routes.push_back({.path = base + "api/nodes.js",
                    .help = "the same as a script (window.trimaranNodes = ...)",
                    .handler = [self](const http::ServerRequest&, http::ServerResponse& r) {
                      std::shared_ptr<const std::string> doc = self->NodesJson();
                      r.content_type = "application/javascript; charset=utf-8";
                      r.headers.Set("Cache-Control", "no-store");
                      r.body = absl::StrCat(
                          "window.trimaranNodes = ", doc == nullptr ? "null" : *doc, ";\n");
                    }});
  routes.push_back({.path = base + "api/history",
                    .help = "per-node usage samples: ?node=NAME (repeatable; none: all nodes)",
                    .handler = [self](const http::ServerRequest& req, http::ServerResponse& r) {
                      std::vector<std::string> nodes;
                      auto [lo, hi] = req.query.equal_range("node");
                      for (auto it = lo; it != hi; ++it) nodes.push_back(it->second);
                      Json(r, self->history().Json(nodes));
                    }});
  routes.push_back({.path = base + "api/config",
                    .help = "the dashboard's settings and its last refresh error",
                    .handler = [self](const http::ServerRequest&, http::ServerResponse& r) {
                      Json(r, self->ConfigJson());
                    }});
  routes.push_back({.path = base + "api/decisions",
                    .help = "the scheduler's recent decisions (with --scheduler)",
                    .handler = [self](const http::ServerRequest&, http::ServerResponse& r) {
                      Json(r, self->DecisionsJson());
                    }});
  return routes;
}

absl::Status DashboardService::AddRoutes(http::HttpServer& server, const std::string& prefix) {
  for (http::Route& r : Routes(prefix)) {
    absl::Status s = server.AddRoute(std::move(r));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace trimaran::cmd::trimaranctl::nodes
