#pragma once
// DashboardService: the web dashboard's data and HTTP routes (docs/trimaranctl.md
// "dashboard"), served by `trimaranctl dashboard` and by `load-watcher --dashboard`.
// It reuses `trimaranctl nodes`' model: a ClusterSource (dashboard/cluster_source.h) is
// turned into a ClusterView (dashboard/model.h) every `refresh`, rendered once with the
// `-o json` writer (dashboard/documents.h RenderJson) and kept; requests read the kept
// document, so any number of browsers cost one model build per period. Each build also feeds the
// per-node usage history (history.h).
//
// Routes, under `prefix` ("" for trimaranctl, "/dashboard" for the load watcher):
//   GET <prefix>/                 the page (HTML, CSS and JS in one document,
//                                 page.h) with the last refresh's nodes
//                                 document in a JSON data block (its first render
//                                 happens before the load event; the block is data,
//                                 never script). With ?token=T: sets the token cookie
//                                 and redirects to <prefix>/ (the token leaves the
//                                 URL). <prefix> alone redirects to <prefix>/.
//   GET <prefix>/api/nodes        the `trimaranctl nodes -o json` document of the last
//                                 refresh; 503 {"error"} before the first one succeeds
//   GET <prefix>/api/history[?node=N]*  per-node samples (NodeHistory::Json)
//   GET <prefix>/api/config       {"hotThresholdPercent", "refreshSeconds",
//                                 "decisions": bool, "historyCapacity", "lastError"}
//   GET <prefix>/api/decisions    {"enabled": false, "hint"} without a DecisionsSource;
//                                 else {"enabled": true, "scheduler", "error"} or
//                                 {"enabled": true, "scheduler", "result": <the
//                                 scheduler's document>} (cached for 2 s)
//   anything else under <prefix>/ 404 (after the checks below)
// Every answer, refusals included, passes DashboardGuard (guard.h) first:
// Host and Origin (403), the method (405 but for GET and HEAD), the token (401), and
// carries its security headers (Content-Security-Policy, X-Frame-Options: DENY, ...).
// The api answers are application/json with Cache-Control: no-store; there is no
// script-includable data (no JSONP, no `window.x = ...` endpoint).
//
// A failed refresh keeps the last good document (its "time" says how old it is) and
// reports the error in /api/config "lastError" (the page shows it); it never stops the
// service.
//
// Thread-safety: Refresh and the route handlers are safe for concurrent use; Start and
// Stop are called by the owner. The ClusterSource and DecisionsSource are borrowed,
// must outlive the service, and are called from the refresh thread (Fetch) and from
// handler threads (decisions).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/http/http_server.h"
#include "dashboard/cluster_source.h"
#include "dashboard/price_table.h"
#include "dashboard/targets.h"
#include "dashboard/view_options.h"
#include "dashboard/web/decisions.h"
#include "dashboard/web/guard.h"
#include "dashboard/web/history.h"

namespace trimaran::dashboard::web {

struct DashboardOptions {
  ViewOptions view;       // the model (resources, sort, stale-after), hot threshold and refresh
  TargetPercent targets;  // TargetLoadPacking's, resolved (ResolveTargets(view))
  size_t history_capacity = 120;
  int decisions_limit = 50;
  // Who may read the dashboard (its token, bind address, allowed Host names, TLS).
  DashboardAccess access;
  // Shown in the decisions panel when there is no DecisionsSource.
  std::string decisions_hint =
      "Start the dashboard with --scheduler https://SCHEDULER:10259 (and "
      "--scheduler-ca-file / --scheduler-token-file, or the kubeconfig's credentials) to "
      "list the scheduler's recent decisions.";
};

class DashboardService {
 public:
  // `decisions` may be null. `source`, `decisions` and `clock` are borrowed.
  DashboardService(ClusterSource& source, PriceTable prices, DashboardOptions options,
                   const Clock& clock, DecisionsSource* decisions = nullptr);
  ~DashboardService();
  DashboardService(const DashboardService&) = delete;
  DashboardService& operator=(const DashboardService&) = delete;

  // One fetch + model build + render + history sample.
  absl::Status Refresh();

  // Starts the refresh thread: `start` first (e.g. the informers' initial list; its
  // error is reported like a failed refresh and retried every period), then Refresh
  // every view.refresh.
  void Start(std::function<absl::Status()> start = nullptr);
  void Stop();

  // The routes borrow this service: it must outlive the server that serves them.
  std::vector<http::Route> Routes(const std::string& prefix);
  absl::Status AddRoutes(http::HttpServer& server, const std::string& prefix);

  // The last good `-o json` document, or null before the first good refresh.
  std::shared_ptr<const std::string> NodesJson() const;
  std::string ConfigJson() const;
  // Why NodesJson is null ("no data yet: ...").
  std::string NoDataReason() const;
  std::string DecisionsJson();
  const NodeHistory& history() const { return history_; }
  const DashboardGuard& guard() const { return guard_; }
  // The page's Content-Security-Policy (its inline script and style by hash).
  const std::string& page_csp() const { return page_csp_; }

 private:
  enum class RouteKind { kPage, kApi };
  using GuardedHandler =
      std::function<void(const http::ServerRequest&, TokenSource, http::ServerResponse&)>;
  // `handler` behind the guard: security headers, then Host/Origin, method and token.
  http::RouteHandler Guarded(RouteKind kind, GuardedHandler handler) const;
  void ServePage(const std::string& base, const http::ServerRequest& request, TokenSource source,
                 http::ServerResponse& response) const;

  ClusterSource& source_;
  const PriceTable prices_;
  const DashboardOptions options_;
  const Clock& clock_;
  DecisionsSource* const decisions_;
  NodeHistory history_;
  const DashboardGuard guard_;
  // The page split around its data block's placeholder, and its policy.
  std::string page_head_;
  std::string page_tail_;
  std::string page_csp_;

  mutable absl::Mutex mu_;
  std::shared_ptr<const std::string> nodes_json_ ABSL_GUARDED_BY(mu_);
  std::string last_error_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Time> last_refresh_ ABSL_GUARDED_BY(mu_);

  absl::Mutex decisions_mu_;
  std::string decisions_cache_ ABSL_GUARDED_BY(decisions_mu_);
  absl::Time decisions_time_ ABSL_GUARDED_BY(decisions_mu_) = absl::InfinitePast();

  std::jthread thread_;  // last: stopped first
};

}  // namespace trimaran::dashboard::web
