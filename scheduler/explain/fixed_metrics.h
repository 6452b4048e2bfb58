#pragma once
// The load-watcher side of the offline tools: one WatcherMetrics snapshot served to every
// load-aware plugin, whatever source its args name.
//
//   FixedMetricsClient  a loadwatcher Client that answers with the snapshot (reduced to
//                       the hosts asked for); Set() replaces it between cycles.
//                       SetByWindow() gives each window ("15m", "10m", "5m") its own
//                       snapshot, served by request.window ("" is 15m) with the
//                       watcher's fallback order (15m -> 10m, 10m -> 5m, 5m alone, as
//                       lw::Watcher::Latest); a window with none of its order set gets
//                       the Set() snapshot.
//   FixedSourcePool     resolves every metricProvider / watcherAddress to that client,
//                       validating addresses as the daemon does, and records what was
//                       asked for (a report says so).
//
// Thread-safety: both are safe for concurrent use.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "loadwatcher/client.h"
#include "loadwatcher/metrics.h"
#include "loadwatcher/source_pool.h"

namespace trimaran::sched::explain {

class FixedMetricsClient final : public lw::Client {
 public:
  explicit FixedMetricsClient(lw::WatcherMetrics metrics)
      : metrics_(std::make_shared<const lw::WatcherMetrics>(std::move(metrics))) {}
  absl::StatusOr<lw::WatcherMetricsPtr> GetLatestMetrics(
      const lw::MetricsRequest& request) override;
  // Replaces the snapshot every window gets and forgets the per-window ones.
  void Set(lw::WatcherMetrics metrics);
  // Replaces the per-window snapshots (window duration -> snapshot); the default
  // snapshot becomes the 15m one when given.
  void SetByWindow(std::map<std::string, lw::WatcherMetrics> by_window);

 private:
  absl::Mutex mu_;
  lw::WatcherMetricsPtr metrics_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, lw::WatcherMetricsPtr, std::less<>> by_window_ ABSL_GUARDED_BY(mu_);
};

class FixedSourcePool final : public lw::SourcePool {
 public:
  explicit FixedSourcePool(lw::Client& client) : client_(client) {}
  absl::StatusOr<lw::Client*> InProcess(const lw::ProviderSpec& spec) override;
  absl::StatusOr<lw::Client*> Remote(absl::string_view address) override;
  // What plugins asked for ("metricProvider {type: ...}", "watcherAddress ..."), sorted.
  std::vector<std::string> Requested() const;

 private:
  void Record(std::string what);
  lw::Client& client_;
  mutable absl::Mutex mu_;
  std::set<std::string> requested_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::sched::explain
