#pragma once
// Internal to common/stats: what every metric family has in common, whatever its child
// type, and how each child type writes its samples. Family<T> (family.h) derives from
// FamilyBase; the Registry owns families through it. Not for use outside common/stats.
//
// Thread-safety: the name, help, label names and bucket bounds are immutable after
// construction; AppendText is safe to call concurrently with anything else.

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/stats/callback_metric.h"
#include "common/stats/counter.h"
#include "common/stats/gauge.h"
#include "common/stats/histogram.h"
#include "common/stats/metric_type.h"

namespace trimaran::stats::stats_internal {

// Per child type: its TYPE line, and the name used in registration errors (two families
// conflict when their kinds differ, even if both are gauges).
template <typename T>
struct MetricTraits;
template <>
struct MetricTraits<Counter> {
  static constexpr MetricType kType = MetricType::kCounter;
  static constexpr absl::string_view kKind = "counter";
};
template <>
struct MetricTraits<Gauge> {
  static constexpr MetricType kType = MetricType::kGauge;
  static constexpr absl::string_view kKind = "gauge";
};
template <>
struct MetricTraits<Histogram> {
  static constexpr MetricType kType = MetricType::kHistogram;
  static constexpr absl::string_view kKind = "histogram";
};
template <>
struct MetricTraits<CallbackCounter> {
  static constexpr MetricType kType = MetricType::kCounter;
  static constexpr absl::string_view kKind = "callback counter";
};
template <>
struct MetricTraits<CallbackGauge> {
  static constexpr MetricType kType = MetricType::kGauge;
  static constexpr absl::string_view kKind = "callback gauge";
};

// Orders label-value tuples lexicographically. Transparent, so that a
// span<const string_view> finds a vector<string> key without building one.
struct LabelValuesLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return std::lexicographical_compare(
        a.begin(), a.end(), b.begin(), b.end(),
        [](absl::string_view x, absl::string_view y) { return x < y; });
  }
};

class FamilyBase {
 public:
  virtual ~FamilyBase() = default;
  FamilyBase(const FamilyBase&) = delete;
  FamilyBase& operator=(const FamilyBase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  MetricType type() const { return type_; }
  absl::string_view kind() const { return kind_; }
  // Normalized bucket upper bounds (without +Inf) of a histogram family; else empty.
  const std::vector<double>& bucket_bounds() const { return bucket_bounds_; }

  // Appends `# HELP` (when there is help text), `# TYPE` and the samples of every
  // exported child; nothing at all when no child is exported (as the Go client does).
  void AppendText(std::string& out) const;

 protected:
  FamilyBase(std::string name, std::string help, std::vector<std::string> label_names,
             MetricType type, absl::string_view kind, std::vector<double> bucket_bounds);

  // Appends the sample lines of every exported child.
  virtual void AppendSamples(std::string& out) const = 0;

  // `a="x",b="y"` for the label names and these values (escaped); "" without labels.
  std::string LabelText(std::span<const absl::string_view> label_values) const;

 private:
  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  const MetricType type_;
  const absl::string_view kind_;
  const std::vector<double> bucket_bounds_;
};

// Append the sample lines of one child named `name` whose label text (see LabelText) is
// `labels`. Callback children without a callback append nothing.
void AppendChildSamples(const Counter& counter, absl::string_view name, absl::string_view labels,
                        std::string& out);
void AppendChildSamples(const Gauge& gauge, absl::string_view name, absl::string_view labels,
                        std::string& out);
void AppendChildSamples(const Histogram& histogram, absl::string_view name,
                        absl::string_view labels, std::string& out);
void AppendChildSamples(const CallbackCounter& counter, absl::string_view name,
                        absl::string_view labels, std::string& out);
void AppendChildSamples(const CallbackGauge& gauge, absl::string_view name,
                        absl::string_view labels, std::string& out);

}  // namespace trimaran::stats::stats_internal
