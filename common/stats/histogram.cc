#include "common/stats/histogram.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/stats/text_format.h"

namespace trimaran::stats {

std::vector<double> DefaultBuckets() { return {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}; }

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  TRIMARAN_CHECK(count >= 1) << "ExponentialBuckets needs count >= 1, got " << count;
  TRIMARAN_CHECK(start > 0) << "ExponentialBuckets needs start > 0, got " << start;
  TRIMARAN_CHECK(factor > 1) << "ExponentialBuckets needs factor > 1, got " << factor;
  std::vector<double> bounds;
  bounds.reserve(count);
  double bound = start;
  for (int i = 0; i < count; ++i) {
    bounds.push_back(bound);
    bound *= factor;
  }
  return bounds;
}

std::vector<double> LinearBuckets(double start, double width, int count) {
  TRIMARAN_CHECK(count >= 1) << "LinearBuckets needs count >= 1, got " << count;
  TRIMARAN_CHECK(width > 0) << "LinearBuckets needs width > 0, got " << width;
  std::vector<double> bounds;
  bounds.reserve(count);
  for (int i = 0; i < count; ++i) {
    // Multiplying instead of accumulating keeps rounding errors from adding up.
    bounds.push_back(start + width * i);
  }
  return bounds;
}

absl::StatusOr<std::vector<double>> NormalizeBuckets(std::vector<double> bounds) {
  if (bounds.empty()) return DefaultBuckets();
  if (std::isinf(bounds.back()) && bounds.back() > 0) bounds.pop_back();
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (std::isnan(bounds[i])) {
      return absl::InvalidArgumentError(absl::StrCat("bucket bound ", i, " is NaN"));
    }
    if (i > 0 && !(bounds[i - 1] < bounds[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("bucket bounds must be strictly increasing, but bound ", i, " (",
                       FormatValue(bounds[i]), ") follows ", FormatValue(bounds[i - 1])));
    }
  }
  return bounds;
}

Histogram::Histogram(std::vector<double> bounds) {
  absl::StatusOr<std::vector<double>> normalized = NormalizeBuckets(std::move(bounds));
  TRIMARAN_CHECK(normalized.ok()) << "invalid histogram buckets: " << normalized.status();
  bounds_ = *std::move(normalized);
  counts_ = std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1);
}

void Histogram::Observe(double value) {
  // The first bound >= value; NaN compares false everywhere and so reaches +Inf.
  const auto it = std::partition_point(bounds_.begin(), bounds_.end(),
                                       [value](double bound) { return !(bound >= value); });
  counts_[it - bounds_.begin()].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

HistogramSnapshot Histogram::Snapshot() const {
  HistogramSnapshot snapshot;
  snapshot.cumulative_counts.reserve(bounds_.size() + 1);
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    snapshot.cumulative_counts.push_back(cumulative);
  }
  snapshot.count = cumulative;
  snapshot.sum = sum_.load(std::memory_order_relaxed);
  return snapshot;
}

}  // namespace trimaran::stats
