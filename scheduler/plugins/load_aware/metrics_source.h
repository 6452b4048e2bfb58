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
// cycle (PreScore, scheduling thread) and re-reads the client at most every
// `refresh_interval` (default 5 s; the watcher itself fetches every 60 s, upstream's
// collector every 30 s), or `retry_interval` (30 s) after a failed read, so a remote
// watcher that is down costs one timed-out request per 30 s, not one per pod. A failed
// read keeps the previous view (upstream); its age keeps growing, and the staleness
// policy takes over once it is older than metricsMaxAge. TryGet() never blocks: for a
// Score that runs without PreScore (a profile listing the plugin at `score` only), it
// refreshes only when no other thread is doing so.
//
// Thread-safety: safe for concurrent use. Ownership: borrows the client and the clock,
// which outlive the plugin (the Handle's lifetime).

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "loadwatcher/client.h"
#include "scheduler/framework/handle.h"
#include "scheduler/plugins/load_aware/metrics_view.h"
#include "scheduler/plugins/load_aware/trimaran_spec.h"

namespace trimaran::sched::plugins::load_aware {

// See above. `plugin` names the caller in errors.
absl::StatusOr<lw::Client*> ResolveMetricsClient(const TrimaranSpec& spec, Handle& handle,
                                                 absl::string_view plugin);

class MetricsCache {
 public:
  static constexpr absl::Duration kDefaultRefreshInterval = absl::Seconds(5);
  static constexpr absl::Duration kDefaultRetryInterval = absl::Seconds(30);

  // `client` may be null (no metrics ever).
  MetricsCache(lw::Client* client, const Clock& clock,
               absl::Duration refresh_interval = kDefaultRefreshInterval,
               absl::Duration retry_interval = kDefaultRetryInterval);

  // The current view after refreshing it if due; nullptr before the first good read.
  std::shared_ptr<const MetricsView> Get() ABSL_LOCKS_EXCLUDED(refresh_mu_, view_mu_);
  // As Get, but refreshes only if no other thread is refreshing (never waits for one).
  std::shared_ptr<const MetricsView> TryGet() ABSL_LOCKS_EXCLUDED(refresh_mu_, view_mu_);

  bool has_client() const { return client_ != nullptr; }

 private:
  void RefreshIfDueLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(refresh_mu_);
  std::shared_ptr<const MetricsView> view() const ABSL_LOCKS_EXCLUDED(view_mu_);

  lw::Client* const client_;
  const Clock& clock_;
  const absl::Duration refresh_interval_;
  const absl::Duration retry_interval_;

  // Held while reading the client (possibly slow I/O); never by readers of the view.
  absl::Mutex refresh_mu_;
  absl::Time next_read_ ABSL_GUARDED_BY(refresh_mu_) = absl::InfinitePast();
  bool last_read_failed_ ABSL_GUARDED_BY(refresh_mu_) = false;
  // Held only to copy or swap the pointer.
  mutable absl::Mutex view_mu_ ABSL_ACQUIRED_AFTER(refresh_mu_);
  std::shared_ptr<const MetricsView> view_ ABSL_GUARDED_BY(view_mu_);
};

}  // namespace trimaran::sched::plugins::load_aware
