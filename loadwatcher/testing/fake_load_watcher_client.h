#pragma once
// FakeLoadWatcherClient: a loadwatcher::Client with canned answers, for plugin tests.
//
//   FakeLoadWatcherClient client;
//   client.Set(MakeWatcherMetrics().Node("n1").Cpu(kOpAvg, 40).Obj());  // every window
//   client.Set("10m", absl::UnavailableError("no data yet"));           // one window
//
// An answer set for the requested window wins over the default one; with neither, the
// answer is Unavailable. An answer is stored once as a shared snapshot and handed out
// without copying, as the in-process client does; hosts are filtered as the real
// clients do. Requests are recorded (requests()).
//
// Thread-safety: safe for concurrent use.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "loadwatcher/client.h"

namespace trimaran::lw::testing {

class FakeLoadWatcherClient final : public Client {
 public:
  void Set(absl::StatusOr<WatcherMetrics> answer) {
    absl::StatusOr<WatcherMetricsPtr> shared = Share(std::move(answer));
    absl::MutexLock lock(&mu_);
    default_ = std::move(shared);
  }
  void Set(const std::string& window, absl::StatusOr<WatcherMetrics> answer) {
    absl::StatusOr<WatcherMetricsPtr> shared = Share(std::move(answer));
    absl::MutexLock lock(&mu_);
    by_window_.insert_or_assign(window, std::move(shared));
  }
  std::vector<MetricsRequest> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

  using Client::GetLatestMetrics;
  absl::StatusOr<WatcherMetricsPtr> GetLatestMetrics(const MetricsRequest& request) override {
    absl::MutexLock lock(&mu_);
    requests_.push_back(request);
    const absl::StatusOr<WatcherMetricsPtr>* answer = nullptr;
    if (auto it = by_window_.find(request.window); it != by_window_.end()) {
      answer = &it->second;
    } else if (default_.has_value()) {
      answer = &*default_;
    }
    if (answer == nullptr) return absl::UnavailableError("fake load watcher: no answer set");
    if (!answer->ok()) return answer->status();
    return FilterHosts(**answer, request.hosts);
  }

 private:
  static absl::StatusOr<WatcherMetricsPtr> Share(absl::StatusOr<WatcherMetrics> answer) {
    if (!answer.ok()) return answer.status();
    return std::make_shared<const WatcherMetrics>(*std::move(answer));
  }

  mutable absl::Mutex mu_;
  std::optional<absl::StatusOr<WatcherMetricsPtr>> default_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::StatusOr<WatcherMetricsPtr>, std::less<>> by_window_
      ABSL_GUARDED_BY(mu_);
  std::vector<MetricsRequest> requests_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::lw::testing
