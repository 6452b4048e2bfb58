#pragma once
// A Gauge is a value that goes up and down (pods in flight, cache size), exported with
// `# TYPE gauge`. For a value that is cheaper to compute when scraped than to keep up to
// date (a queue's length, the age of the last metrics fetch), use a CallbackGauge
// (callback_metric.h) instead.
//
// Gauges live in a Family (family.h) that owns them; callers keep references.
//
// Thread-safety: safe for concurrent use and lock-free. Add/Sub use a compare-and-swap
// loop on an atomic double.

#include <atomic>

namespace trimaran::stats {

class Gauge {
 public:
  Gauge() = default;
  Gauge(const Gauge&) = delete;
  Gauge& operator=(const Gauge&) = delete;

  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Add(double delta) { value_.fetch_add(delta, std::memory_order_relaxed); }
  void Sub(double delta) { value_.fetch_sub(delta, std::memory_order_relaxed); }
  void Inc() { Add(1); }
  void Dec() { Sub(1); }

  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

}  // namespace trimaran::stats
