#include "scheduler/plugins/load_aware/metrics_source.h"

#include <stop_token>
#include <string>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/logging.h"

namespace trimaran::sched::plugins::load_aware {

absl::StatusOr<lw::Client*> ResolveMetricsClient(const TrimaranSpec& spec, Handle& handle,
                                                 absl::string_view plugin) {
  lw::SourcePool* pool = handle.load_watcher_sources();
  if (pool == nullptr) return handle.load_watcher();
  absl::StatusOr<lw::Client*> client = spec.service_mode() ? pool->ConnectRemote(spec.remote())
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

namespace {

std::string ReasonLabel(const absl::Status& status) {
  return absl::AsciiStrToLower(absl::StatusCodeToString(status.code()));
}

void CountFailure(stats::Family<stats::Counter>* failures, const absl::Status& status) {
  if (failures != nullptr) failures->WithLabels({ReasonLabel(status)}).Inc();
}

absl::StatusOr<lw::WatcherMetricsPtr> Read(lw::Client& client, absl::Duration timeout) {
  lw::MetricsRequest request;
  request.timeout = timeout;
  absl::StatusOr<lw::WatcherMetricsPtr> metrics = client.GetLatestMetrics(request);
  if (metrics.ok() && *metrics == nullptr) {
    return absl::InternalError("load watcher client returned no snapshot");
  }
  return metrics;
}

}  // namespace

stats::Family<stats::Counter>& MetricsFetchFailures(const stats::Scope& scope) {
  return scope.CounterFamily(
      "plugin_metrics_fetch_failures_total",
      "Failed reads of the load watcher (the previous metrics are kept), by status code.",
      {"reason"});
}

// One per remote source (see the header): a thread that reads the client, publishes the
// latest good view and sleeps. Thread-safety: view() is safe for concurrent use; the
// destructor stops the thread (at once when it sleeps, else after the read in flight).
class MetricsRefresher {
 public:
  struct Key {
    lw::Client* client;
    const Clock* clock;
    absl::Duration refresh_interval;
    absl::Duration retry_interval;
    absl::Duration request_timeout;

    friend bool operator==(const Key&, const Key&) = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.client, k.clock, k.refresh_interval, k.retry_interval,
                        k.request_timeout);
    }
  };

  MetricsRefresher(const Key& key, stats::Family<stats::Counter>* failures)
      : key_(key), failures_(failures), thread_([this](std::stop_token stop) { Run(stop); }) {}
  MetricsRefresher(const MetricsRefresher&) = delete;
  MetricsRefresher& operator=(const MetricsRefresher&) = delete;

  std::shared_ptr<const MetricsView> view() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    return view_;
  }

  // The refresher for `key`: the live one, or a new one (its thread started).
  static std::shared_ptr<MetricsRefresher> Shared(const Key& key,
                                                  stats::Family<stats::Counter>* failures);

 private:
  void Run(std::stop_token stop) {
    bool failing = false;
    while (!stop.stop_requested()) {
      absl::StatusOr<lw::WatcherMetricsPtr> metrics = Read(*key_.client, key_.request_timeout);
      absl::Duration wait = key_.refresh_interval;
      if (metrics.ok()) {
        auto fresh = std::make_shared<const MetricsView>(*std::move(metrics));
        const size_t nodes = fresh->size();
        {
          absl::MutexLock lock(&mu_);
          view_ = std::move(fresh);
        }
        if (failing) {
          Log(Component::kPlugin).info("trimaran: load watcher readable again nodes={}", nodes);
        }
        failing = false;
      } else {
        CountFailure(failures_, metrics.status());
        if (!failing) {
          Log(Component::kPlugin)
              .warn("trimaran: reading the load watcher failed, keeping the previous metrics: {}",
                    metrics.status());
        }
        failing = true;
        wait = key_.retry_interval;
      }
      if (!key_.clock->SleepFor(wait, stop)) return;
    }
  }

  const Key key_;
  stats::Family<stats::Counter>* const failures_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const MetricsView> view_ ABSL_GUARDED_BY(mu_);
  std::jthread thread_;  // last: starts once everything above is constructed
};

namespace {

struct RefresherRegistry {
  absl::Mutex mu;
  absl::flat_hash_map<MetricsRefresher::Key, std::weak_ptr<MetricsRefresher>> live
      ABSL_GUARDED_BY(mu);
};

RefresherRegistry& Refreshers() {
  static auto* const registry = new RefresherRegistry;
  return *registry;
}

}  // namespace

std::shared_ptr<MetricsRefresher> MetricsRefresher::Shared(
    const Key& key, stats::Family<stats::Counter>* failures) {
  RefresherRegistry& registry = Refreshers();
  absl::MutexLock lock(&registry.mu);
  for (auto it = registry.live.begin(); it != registry.live.end();) {
    if (it->second.expired()) {
      registry.live.erase(it++);
    } else {
      ++it;
    }
  }
  if (auto it = registry.live.find(key); it != registry.live.end()) {
    if (std::shared_ptr<MetricsRefresher> live = it->second.lock()) return live;
  }
  auto made = std::make_shared<MetricsRefresher>(key, failures);
  registry.live[key] = made;
  return made;
}

MetricsCache::MetricsCache(lw::Client* client, const Clock& clock, absl::Duration refresh_interval,
                           absl::Duration retry_interval)
    : MetricsCache(client, clock,
                   MetricsCacheOptions{.refresh_interval = refresh_interval,
                                       .retry_interval = retry_interval}) {}

MetricsCache::MetricsCache(lw::Client* client, const Clock& clock,
                           const MetricsCacheOptions& options)
    : client_(client),
      clock_(clock),
      options_(options),
      failures_(options.scope != nullptr ? &MetricsFetchFailures(*options.scope) : nullptr),
      refresher_(client != nullptr && client->remote()
                     ? MetricsRefresher::Shared({.client = client,
                                                 .clock = &clock,
                                                 .refresh_interval = options.refresh_interval,
                                                 .retry_interval = options.retry_interval,
                                                 .request_timeout = options.request_timeout},
                                                failures_)
                     : nullptr) {}

MetricsCache::~MetricsCache() = default;

std::shared_ptr<const MetricsView> MetricsCache::view() const {
  absl::MutexLock lock(&view_mu_);
  return view_;
}

void MetricsCache::RefreshIfDueLocked() {
  if (client_ == nullptr) return;
  const absl::Time now = clock_.Now();
  if (now < next_read_) return;
  absl::StatusOr<lw::WatcherMetricsPtr> metrics = Read(*client_, options_.request_timeout);
  if (metrics.ok()) {
    // Indexes the shared snapshot in place and keeps it (the in-process client does not
    // copy it).
    auto fresh = std::make_shared<const MetricsView>(*std::move(metrics));
    const size_t nodes = fresh->size();
    {
      absl::MutexLock lock(&view_mu_);
      view_ = std::move(fresh);
    }
    next_read_ = now + options_.refresh_interval;
    if (last_read_failed_) {
      Log(Component::kPlugin).info("trimaran: load watcher readable again nodes={}", nodes);
    }
    last_read_failed_ = false;
  } else {
    next_read_ = now + options_.retry_interval;
    CountFailure(failures_, metrics.status());
    if (!last_read_failed_) {
      Log(Component::kPlugin)
          .warn("trimaran: reading the load watcher failed, keeping the previous metrics: {}",
                metrics.status());
    }
    last_read_failed_ = true;
  }
}

std::shared_ptr<const MetricsView> MetricsCache::Get() {
  if (refresher_ != nullptr) return refresher_->view();
  {
    absl::MutexLock lock(&refresh_mu_);
    RefreshIfDueLocked();
  }
  return view();
}

std::shared_ptr<const MetricsView> MetricsCache::TryGet() {
  if (refresher_ != nullptr) return refresher_->view();
  if (refresh_mu_.TryLock()) {
    RefreshIfDueLocked();
    refresh_mu_.Unlock();
  }
  return view();
}

}  // namespace trimaran::sched::plugins::load_aware
