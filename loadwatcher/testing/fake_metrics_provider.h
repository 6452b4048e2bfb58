#pragma once
// FakeMetricsProvider: a scriptable MetricsProvider for tests.
//
//   FakeMetricsProvider provider("Prometheus", &fake_clock);
//   provider.SetResult("15m", HostsMetrics{...});            // sticky answer per window
//   provider.PushResult("10m", absl::UnavailableError("x")); // one-shot, consumed first
//   provider.SetLatency("15m", absl::Seconds(2));            // advances the FakeClock
//
// A window with nothing scripted answers Unavailable. Latency is simulated by advancing
// the FakeClock given at construction (no sleeping), so the Watcher's fetch-duration
// histogram sees it. Every FetchAllHostsMetrics call is recorded (windows()).
//
// Thread-safety: safe for concurrent use.

#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "common/testing/fake_clock.h"
#include "loadwatcher/metrics_provider.h"

namespace trimaran::lw::testing {

class FakeMetricsProvider final : public MetricsProvider {
 public:
  explicit FakeMetricsProvider(std::string name = "Fake",
                               trimaran::testing::FakeClock* clock = nullptr)
      : name_(std::move(name)), clock_(clock) {}

  void SetResult(const std::string& window, absl::StatusOr<HostsMetrics> result) {
    absl::MutexLock lock(&mu_);
    sticky_.insert_or_assign(window, std::move(result));
  }
  // Convenience: a successful answer with no partial errors.
  void SetNodes(const std::string& window, NodeMetricsMap nodes) {
    SetResult(window, HostsMetrics{std::move(nodes), {}});
  }
  void PushResult(const std::string& window, absl::StatusOr<HostsMetrics> result) {
    absl::MutexLock lock(&mu_);
    queued_[window].push_back(std::move(result));
  }
  void SetLatency(const std::string& window, absl::Duration latency) {
    absl::MutexLock lock(&mu_);
    latency_.insert_or_assign(window, latency);
  }
  void SetHealth(absl::Status health) {
    absl::MutexLock lock(&mu_);
    health_ = std::move(health);
  }

  // The windows of every FetchAllHostsMetrics call, in order.
  std::vector<Window> windows() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

  std::string Name() const override { return name_; }

  absl::StatusOr<std::vector<Metric>> FetchHostMetrics(absl::string_view host,
                                                       const Window& window) override {
    TRIMARAN_ASSIGN_OR_RETURN(HostsMetrics all, FetchAllHostsMetrics(window));
    auto it = all.nodes.find(host);
    if (it == all.nodes.end()) {
      return absl::NotFoundError(absl::StrCat("no metrics for host ", host));
    }
    return it->second.metrics;
  }

  absl::StatusOr<HostsMetrics> FetchAllHostsMetrics(const Window& window) override {
    absl::StatusOr<HostsMetrics> result = absl::UnavailableError(
        absl::StrCat("fake provider: nothing scripted for window ", window.duration));
    absl::Duration latency;
    {
      absl::MutexLock lock(&mu_);
      calls_.push_back(window);
      if (auto q = queued_.find(window.duration); q != queued_.end() && !q->second.empty()) {
        result = std::move(q->second.front());
        q->second.pop_front();
      } else if (auto s = sticky_.find(window.duration); s != sticky_.end()) {
        result = s->second;
      }
      if (auto l = latency_.find(window.duration); l != latency_.end()) latency = l->second;
    }
    if (clock_ != nullptr && latency > absl::ZeroDuration()) clock_->Advance(latency);
    return result;
  }

  absl::Status Health() override {
    absl::MutexLock lock(&mu_);
    return health_;
  }

 private:
  const std::string name_;
  trimaran::testing::FakeClock* const clock_;
  mutable absl::Mutex mu_;
  std::map<std::string, absl::StatusOr<HostsMetrics>, std::less<>> sticky_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::deque<absl::StatusOr<HostsMetrics>>, std::less<>> queued_
      ABSL_GUARDED_BY(mu_);
  std::map<std::string, absl::Duration, std::less<>> latency_ ABSL_GUARDED_BY(mu_);
  absl::Status health_ ABSL_GUARDED_BY(mu_);
  std::vector<Window> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::lw::testing
