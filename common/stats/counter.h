#pragma once
// A Counter is a monotonically increasing value (requests served, pods bound), exported
// with `# TYPE counter`. It starts at 0 and resets only when the process restarts.
//
//   Counter& bound = registry.CounterFamily("trimaran_binds_total", "...").Get();
//   bound.Inc();
//
// Counters live in a Family (family.h) that owns them; callers keep references.
//
// Thread-safety: safe for concurrent use; Inc/Add and Value are lock-free. Integer adds
// are one atomic fetch_add; double adds use a compare-and-swap loop on a separate
// atomic, so the two never contend with each other (as in the Prometheus Go client).

#include <atomic>
#include <concepts>
#include <cstdint>
#include <type_traits>

namespace trimaran::stats {

class Counter {
 public:
  Counter() = default;
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  void Inc() { integer_.fetch_add(1, std::memory_order_relaxed); }

  // Adds `delta`. A counter never decreases: a negative (or NaN) delta is a bug in the
  // caller, reported with TRIMARAN_BUG (log + trimaran_bugs_total) and ignored.
  void Add(double delta);
  template <std::integral I>
  void Add(I delta) {
    if constexpr (std::is_signed_v<I>) {
      if (delta < 0) {
        AddNegative(static_cast<double>(delta));
        return;
      }
    }
    integer_.fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed);
  }

  // The current value. Integer increments beyond 2^53 lose precision here, as in every
  // Prometheus client.
  double Value() const {
    return static_cast<double>(integer_.load(std::memory_order_relaxed)) +
           fractional_.load(std::memory_order_relaxed);
  }

 private:
  static void AddNegative(double delta);

  std::atomic<uint64_t> integer_{0};
  std::atomic<double> fractional_{0};
};

}  // namespace trimaran::stats
