#pragma once
// A Histogram counts observations (latencies, sizes) in buckets with fixed upper bounds,
// and keeps their sum. It is exported with `# TYPE histogram` as cumulative
// `_bucket{le="<bound>"}` samples, a final `le="+Inf"` bucket, `_sum` and `_count`.
//
//   Histogram& latency = registry.HistogramFamily(
//       "trimaran_scheduling_attempt_duration_seconds", "...", {"result"},
//       ExponentialBuckets(0.001, 2, 15)).WithLabels({"scheduled"});
//   latency.Observe(0.0042);
//
// An observation v lands in the first bucket whose bound b satisfies v <= b; NaN and
// values above every bound land only in +Inf (as in the Prometheus Go client).
//
// Histograms live in a Family (family.h) that owns them; callers keep references.
//
// Thread-safety: safe for concurrent use; Observe is lock-free (one atomic increment of
// the bucket and a compare-and-swap loop on the sum). A Snapshot taken while others
// observe is consistent between buckets and count (count is the sum of the buckets) but
// its sum may include an observation whose bucket it does not, or the reverse.

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace trimaran::stats {

// The Go client's DefBuckets, for "a network service's response time in seconds":
// .005 .01 .025 .05 .1 .25 .5 1 2.5 5 10.
std::vector<double> DefaultBuckets();

// `count` bounds start, start*factor, start*factor^2, ... Requires start > 0,
// factor > 1 and count >= 1; anything else is a programming error (TRIMARAN_CHECK),
// because bucket layouts are constants in code.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

// `count` bounds start, start+width, start+2*width, ... Requires width > 0 and
// count >= 1 (TRIMARAN_CHECK).
std::vector<double> LinearBuckets(double start, double width, int count);

// Checks and normalizes bucket bounds: an empty list becomes DefaultBuckets(), a
// trailing +Inf is dropped (the +Inf bucket is always there), and the rest must be
// strictly increasing and not NaN (kInvalidArgument otherwise).
absl::StatusOr<std::vector<double>> NormalizeBuckets(std::vector<double> bounds);

// A point-in-time copy of a Histogram.
struct HistogramSnapshot {
  // cumulative_counts[i] counts observations <= bounds()[i]; the last element, one past
  // the bounds, is the +Inf bucket and equals `count`.
  std::vector<uint64_t> cumulative_counts;
  uint64_t count = 0;
  double sum = 0;
};

class Histogram {
 public:
  // `bounds` as for NormalizeBuckets; invalid bounds are a programming error
  // (TRIMARAN_CHECK). Families validate them at registration, with a status.
  explicit Histogram(std::vector<double> bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  void Observe(double value);

  // The normalized upper bounds, without +Inf.
  const std::vector<double>& bounds() const { return bounds_; }

  HistogramSnapshot Snapshot() const;

 private:
  std::vector<double> bounds_;
  // counts_[i] for i < bounds_.size() counts observations in (bounds_[i-1], bounds_[i]]
  // (not cumulative); counts_[bounds_.size()] counts the rest (the +Inf bucket).
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  std::atomic<double> sum_{0};
};

}  // namespace trimaran::stats
