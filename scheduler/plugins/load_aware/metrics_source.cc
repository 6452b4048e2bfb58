#include "scheduler/plugins/load_aware/metrics_source.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/logging.h"

namespace trimaran::sched::plugins::load_aware {

absl::StatusOr<lw::Client*> ResolveMetricsClient(const TrimaranSpec& spec, Handle& handle,
                                                 absl::string_view plugin) {
  lw::SourcePool* pool = handle.load_watcher_sources();
  if (pool == nullptr) return handle.load_watcher();
  absl::StatusOr<lw::Client*> client = spec.service_mode() ? pool->Remote(*spec.watcher_address)
                                                           : pool->InProcess(spec.metric_provider);
  if (!client.ok()) {
    return absl::Status(
        client.status().code(),
        absl::StrCat(plugin, ": metrics source ",
                     spec.service_mode()
                         ? absl::StrCat("watcherAddress \"", *spec.watcher_address, "\"")
                         : absl::StrCat("metricProvider type \"", spec.metric_provider.type, "\""),
                     ": ", client.status().message()));
  }
  return *client;
}

MetricsCache::MetricsCache(lw::Client* client, const Clock& clock, absl::Duration refresh_interval,
                           absl::Duration retry_interval)
    : client_(client),
      clock_(clock),
      refresh_interval_(refresh_interval),
      retry_interval_(retry_interval) {}

std::shared_ptr<const MetricsView> MetricsCache::view() const {
  absl::MutexLock lock(&view_mu_);
  return view_;
}

void MetricsCache::RefreshIfDueLocked() {
  if (client_ == nullptr) return;
  const absl::Time now = clock_.Now();
  if (now < next_read_) return;
  absl::StatusOr<lw::WatcherMetricsPtr> metrics = client_->GetLatestMetrics();
  if (metrics.ok() && *metrics == nullptr) {
    metrics = absl::InternalError("load watcher client returned no snapshot");
  }
  if (metrics.ok()) {
    // Reads the shared snapshot in place (the in-process client does not copy it).
    auto fresh = std::make_shared<const MetricsView>(**metrics);
    const size_t nodes = fresh->size();
    {
      absl::MutexLock lock(&view_mu_);
      view_ = std::move(fresh);
    }
    next_read_ = now + refresh_interval_;
    if (last_read_failed_) {
      Log(Component::kPlugin).info("trimaran: load watcher readable again nodes={}", nodes);
    }
    last_read_failed_ = false;
  } else {
    next_read_ = now + retry_interval_;
    if (!last_read_failed_) {
      Log(Component::kPlugin)
          .warn("trimaran: reading the load watcher failed, keeping the previous metrics: {}",
                metrics.status());
    }
    last_read_failed_ = true;
  }
}

std::shared_ptr<const MetricsView> MetricsCache::Get() {
  {
    absl::MutexLock lock(&refresh_mu_);
    RefreshIfDueLocked();
  }
  return view();
}

std::shared_ptr<const MetricsView> MetricsCache::TryGet() {
  if (refresh_mu_.TryLock()) {
    RefreshIfDueLocked();
    refresh_mu_.Unlock();
  }
  return view();
}

}  // namespace trimaran::sched::plugins::load_aware
