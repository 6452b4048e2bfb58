#pragma once
// The load-watcher side of the offline tools: one WatcherMetrics snapshot served to every
// load-aware plugin, whatever source its args name.
//
//   FixedMetricsClient  a loadwatcher Client that answers with the snapshot (reduced to
//                       the hosts asked for); Set() replaces it between cycles.
//   FixedSourcePool     resolves every metricProvider / watcherAddress to that client,
//                       validating addresses as the daemon does, and records what was
//                       asked for (a report says so).
//
// Thread-safety: both are safe for concurrent use.

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
  void Set(lw::WatcherMetrics metrics);

 private:
  absl::Mutex mu_;
  lw::WatcherMetricsPtr metrics_ ABSL_GUARDED_BY(mu_);
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
