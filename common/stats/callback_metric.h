#pragma once
// A CallbackGauge (or CallbackCounter) is a metric whose value is computed when the
// registry is scraped, by a callback its owner installs: a queue's length, the age of
// the last metrics fetch, a count kept elsewhere (trimaran_bugs_total). Use it when
// keeping a Gauge up to date would cost more, or be harder to get right, than asking.
//
//   auto& pending = registry.CallbackGaugeFamily("trimaran_queue_pending_pods", "...",
//                                                {"queue"});
//   pending.WithLabels({"active"}).Set([this] { return ActiveSize(); });
//   ...
//   pending.WithLabels({"active"}).Clear();  // before `this` goes away
//
// A child without a callback is not exported, so Clear() also hides it.
//
// Lifetime: the callback usually captures its owner. The owner must Clear() (or
// Family::Remove) the child before it dies; Clear() waits for a scrape that is calling
// the callback right now, and afterwards the callback is never called again.
//
// Thread-safety: safe for concurrent use. The callback runs on the scraping thread,
// under this child's mutex: it must be quick, must not call Set/Clear on the same child,
// and Clear() must not be called while holding a lock that the callback takes.

#include <functional>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/stats/metric_type.h"

namespace trimaran::stats {

template <MetricType kType>
class CallbackMetric {
 public:
  static_assert(kType != MetricType::kHistogram, "a callback produces a single value");
  using Callback = std::function<double()>;

  CallbackMetric() = default;
  CallbackMetric(const CallbackMetric&) = delete;
  CallbackMetric& operator=(const CallbackMetric&) = delete;

  // Installs `callback`, replacing any previous one (waiting for it if it is running).
  void Set(Callback callback) {
    absl::MutexLock lock(&mu_);
    callback_ = std::move(callback);
  }

  // Removes the callback; see the lifetime rule above.
  void Clear() { Set(nullptr); }

  // Calls the callback; nullopt when there is none.
  std::optional<double> Value() const {
    absl::MutexLock lock(&mu_);
    if (!callback_) return std::nullopt;
    return callback_();
  }

 private:
  mutable absl::Mutex mu_;
  Callback callback_ ABSL_GUARDED_BY(mu_);
};

// The value must not decrease except when the process restarts.
using CallbackCounter = CallbackMetric<MetricType::kCounter>;
using CallbackGauge = CallbackMetric<MetricType::kGauge>;

}  // namespace trimaran::stats
