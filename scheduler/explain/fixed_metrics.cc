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
    if (!by_window_.empty()) {
      const absl::string_view window = request.window.empty() ? lw::kWindow15m : request.window;
      std::vector<absl::string_view> order = {window};
      if (window == lw::kWindow15m) order.push_back(lw::kWindow10m);
      if (window == lw::kWindow10m) order.push_back(lw::kWindow5m);
      for (absl::string_view w : order) {
        if (auto it = by_window_.find(w); it != by_window_.end()) {
          metrics = it->second;
          break;
        }
      }
    }
  }
  return lw::FilterHosts(std::move(metrics), request.hosts);
}

void FixedMetricsClient::Set(lw::WatcherMetrics metrics) {
  auto next = std::make_shared<const lw::WatcherMetrics>(std::move(metrics));
  absl::MutexLock lock(&mu_);
  metrics_ = std::move(next);
  by_window_.clear();
}

void FixedMetricsClient::SetByWindow(std::map<std::string, lw::WatcherMetrics> by_window) {
  std::map<std::string, lw::WatcherMetricsPtr, std::less<>> next;
  for (auto& [window, metrics] : by_window) {
    next.emplace(window, std::make_shared<const lw::WatcherMetrics>(std::move(metrics)));
  }
  absl::MutexLock lock(&mu_);
  if (auto it = next.find(lw::kWindow15m); it != next.end()) metrics_ = it->second;
  by_window_ = std::move(next);
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
