#pragma once
// InProcessClient: loadwatcher::Client over a Watcher in the same process (library
// mode: trimaran-scheduler with plugin args `metricProvider`).
//
// GetLatestMetrics hands out the Watcher's latest snapshot itself (a shared_ptr to the
// immutable snapshot, no copy); a request naming hosts gets a new, filtered snapshot.
//
// Thread-safety: safe for concurrent use. Borrows the Watcher, which must outlive it.

#include "loadwatcher/client.h"
#include "loadwatcher/watcher.h"

namespace trimaran::lw {

class InProcessClient final : public Client {
 public:
  explicit InProcessClient(const Watcher& watcher) : watcher_(watcher) {}
  using Client::GetLatestMetrics;
  absl::StatusOr<WatcherMetricsPtr> GetLatestMetrics(const MetricsRequest& request) override;

 private:
  const Watcher& watcher_;
};

}  // namespace trimaran::lw
