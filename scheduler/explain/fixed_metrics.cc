#include "scheduler/explain/fixed_metrics.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace trimaran::sched::explain {

absl::StatusOr<lw::WatcherMetricsPtr> FixedMetricsClient::GetLatestMetrics(
    const lw::MetricsRequest& request) {
  lw::WatcherMetricsPtr metrics;
  {
    absl::MutexLock lock(&mu_);
    metrics = metrics_;
  }
  return lw::FilterHosts(std::move(metrics), request.hosts);
}

void FixedMetricsClient::Set(lw::WatcherMetrics metrics) {
  auto next = std::make_shared<const lw::WatcherMetrics>(std::move(metrics));
  absl::MutexLock lock(&mu_);
  metrics_ = std::move(next);
}

absl::StatusOr<lw::Client*> FixedSourcePool::InProcess(const lw::ProviderSpec& spec) {
  Record(absl::StrCat("metricProvider {type: ", spec.type,
                      spec.address.empty() ? "" : absl::StrCat(", address: ", spec.address), "}"));
  return &client_;
}

absl::StatusOr<lw::Client*> FixedSourcePool::Remote(absl::string_view address) {
  if (!absl::StartsWith(address, "http://") && !absl::StartsWith(address, "https://") &&
      !absl::StartsWith(address, "grpc://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("watcherAddress \"", address, "\": expected http://, https:// or grpc://"));
  }
  Record(absl::StrCat("watcherAddress ", address));
  return &client_;
}

std::vector<std::string> FixedSourcePool::Requested() const {
  absl::MutexLock lock(&mu_);
  return {requested_.begin(), requested_.end()};
}

void FixedSourcePool::Record(std::string what) {
  absl::MutexLock lock(&mu_);
  requested_.insert(std::move(what));
}

}  // namespace trimaran::sched::explain
