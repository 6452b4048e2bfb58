#pragma once
// MetricType: what a metric family is, as written on its `# TYPE` line.
//
// Thread-safety: a plain enum.

#include "absl/strings/string_view.h"

namespace trimaran::stats {

enum class MetricType {
  kCounter,    // Only goes up; rate() treats a decrease as a process restart.
  kGauge,      // Goes up and down.
  kHistogram,  // Buckets + sum + count; histogram_quantile() reads the buckets.
};

// "counter", "gauge" or "histogram".
constexpr absl::string_view MetricTypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace trimaran::stats
