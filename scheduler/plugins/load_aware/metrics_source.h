#pragma once
// Where a Trimaran plugin's metrics come from, and how often they are re-read.
//
// ResolveMetricsClient (spec §1.1, issue 7 "Metrics source per args"):
//   watcherAddress set      -> handle.load_watcher_sources()->Remote(watcherAddress)
//   otherwise               -> handle.load_watcher_sources()->InProcess(metricProvider)
//   no pool on the handle   -> handle.load_watcher() (may be null)
//   nothing                 -> nullptr: the plugin runs without metrics, every node takes
//                              the fallback (trimaran_spec.h).
// The pool deduplicates, so all plugins and profiles with one provider config share one
// watcher (upstream builds one per plugin instance). The pool's errors (an unusable spec)
// fail plugin creation with the plugin's name in the message.
//
// MetricsCache: the plugin's current MetricsView. Get() is called once per scheduling
// cycle (PreScore, scheduling thread). How it reads the client depends on the client:
//
//   In-process (lw::Client::remote() false): Get() re-reads the client inline (a
//   pointer copy from memory) at most every `refresh_interval` (default 5 s; the watcher
//   itself fetches every 60 s, upstream's collector every 30 s), or `retry_interval`
//   (30 s) after a failed read. TryGet() never blocks: for a Score that runs without
//   PreScore (a profile listing the plugin at `score` only), it refreshes only when no
//   other thread is doing so.
//
//   Remote (HttpClient, GrpcClient; issue 14 item 3, "the scheduling thread never waits
//   on the network"): Get() and TryGet() never touch the client. They return the latest
//   good snapshot of a background MetricsRefresher, one per source (per client, clock
//   and intervals; every plugin and profile reading that client shares it), started by
//   the first MetricsCache of the source (at plugin creation, so that the first read is
//   usually done before the first cycle). Its thread reads the client, then sleeps
//   (the clock's cancellable sleep) `refresh_interval` after a good read or
//   `retry_interval` after a failed one, both measured from the end of the read; so at
//   most one request per source is ever in flight, and each has a deadline of `request_timeout` (10
//   s; the client's own 55 s when larger is cut to it). Before the first good read the view is null
//   (every node takes the fallback); a frozen or hung watcher only ages the last good view.
//   Destroying the last MetricsCache of a source stops its thread at once if it sleeps,
//   or after the request in flight (at most `request_timeout`).
//
// Either way a failed read keeps the previous view (upstream); its age keeps growing,
// and the staleness policy (PluginMetrics, metricsMaxAge) takes over once it is older
// than metricsMaxAge. Failed reads are logged once per change of state (failing /
// readable again) and, when a stats scope is given, counted in
//   <scope>plugin_metrics_fetch_failures_total{reason}
// (reason: the absl status code in lower case, e.g. resource_exhausted for an answer
// over the remote clients' size cap, deadline_exceeded, unavailable). A shared refresher
// counts in the scope of the cache that started it.
//
// Thread-safety: safe for concurrent use. Ownership: borrows the client, the clock and
// the scope's registry, which outlive the plugin (the Handle's lifetime).

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/stats/counter.h"
#include "common/stats/family.h"
#include "common/stats/scope.h"
#include "loadwatcher/client.h"
#include "scheduler/framework/handle.h"
#include "scheduler/plugins/load_aware/metrics_view.h"
#include "scheduler/plugins/load_aware/trimaran_spec.h"

namespace trimaran::sched::plugins::load_aware {

// See above. `plugin` names the caller in errors.
absl::StatusOr<lw::Client*> ResolveMetricsClient(const TrimaranSpec& spec, Handle& handle,
                                                 absl::string_view plugin);

class MetricsRefresher;

struct MetricsCacheOptions {
  absl::Duration refresh_interval = absl::Seconds(5);
  absl::Duration retry_interval = absl::Seconds(30);
  // Remote clients: the deadline of each background read.
  absl::Duration request_timeout = absl::Seconds(10);
  // Where failed reads are counted (plugin_metrics_fetch_failures_total); null: not counted.
  // Read by the constructor only.
  const stats::Scope* scope = nullptr;
};

class MetricsCache {
 public:
  static constexpr absl::Duration kDefaultRefreshInterval = absl::Seconds(5);
  static constexpr absl::Duration kDefaultRetryInterval = absl::Seconds(30);

  // `client` may be null (no metrics ever).
  MetricsCache(lw::Client* client, const Clock& clock,
               absl::Duration refresh_interval = kDefaultRefreshInterval,
               absl::Duration retry_interval = kDefaultRetryInterval);
  MetricsCache(lw::Client* client, const Clock& clock, const MetricsCacheOptions& options);
  ~MetricsCache();
  MetricsCache(const MetricsCache&) = delete;
  MetricsCache& operator=(const MetricsCache&) = delete;

  // The current view (after refreshing it inline if due, in-process clients only);
  // nullptr before the first good read. Never waits on the network.
  std::shared_ptr<const MetricsView> Get() ABSL_LOCKS_EXCLUDED(refresh_mu_, view_mu_);
  // As Get, but never waits for another thread's inline refresh either.
  std::shared_ptr<const MetricsView> TryGet() ABSL_LOCKS_EXCLUDED(refresh_mu_, view_mu_);

  bool has_client() const { return client_ != nullptr; }

 private:
  void RefreshIfDueLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(refresh_mu_);
  std::shared_ptr<const MetricsView> view() const ABSL_LOCKS_EXCLUDED(view_mu_);

  lw::Client* const client_;
  const Clock& clock_;
  const MetricsCacheOptions options_;
  stats::Family<stats::Counter>* const failures_;  // null without a scope
  // Remote clients: the source's shared refresher (null for in-process clients).
  const std::shared_ptr<MetricsRefresher> refresher_;

  // Held while reading the client inline (in-process); never by readers of the view.
  absl::Mutex refresh_mu_;
  absl::Time next_read_ ABSL_GUARDED_BY(refresh_mu_) = absl::InfinitePast();
  bool last_read_failed_ ABSL_GUARDED_BY(refresh_mu_) = false;
  // Held only to copy or swap the pointer.
  mutable absl::Mutex view_mu_ ABSL_ACQUIRED_AFTER(refresh_mu_);
  std::shared_ptr<const MetricsView> view_ ABSL_GUARDED_BY(view_mu_);
};

// The counter family MetricsCache counts failed reads in (registered on first call).
stats::Family<stats::Counter>& MetricsFetchFailures(const stats::Scope& scope);

}  // namespace trimaran::sched::plugins::load_aware
