#pragma once
// A Registry owns metric families and writes them all in the Prometheus text format for
// /metrics. Each family is created on first registration; registering the same name
// again with the same kind, label names (and buckets) returns the existing family, so
// two instances of a component share their series.
//
//   Registry registry;  // Tests use their own; production uses DefaultRegistry().
//   Family<Counter>& attempts = registry.CounterFamily(
//       "scheduler_schedule_attempts_total", "Scheduling attempts by result.",
//       {"result", "profile"});
//   attempts.WithLabels({"scheduled", "trimaran"}).Inc();
//   std::string body = registry.PrometheusText();  // served as kPrometheusTextContentType
//
// Errors. Every Register*Family returns a status:
//   kInvalidArgument  the metric name does not match [a-zA-Z_:][a-zA-Z0-9_:]*, a label
//                     name does not match [a-zA-Z_][a-zA-Z0-9_]* or starts with "__", a
//                     label name repeats, a histogram uses the label "le", or its bucket
//                     bounds are invalid (see NormalizeBuckets).
//   kAlreadyExists    the name is registered with another kind (a gauge vs a callback
//                     gauge counts as another kind), other label names or other buckets;
//                     or it collides with a histogram's `_bucket`/`_sum`/`_count` series.
// The short forms (CounterFamily, ...) treat an error as a programming error and
// TRIMARAN_CHECK it: names and labels are constants in code, so failing at startup with
// the status message is the useful outcome. Help text differences are not errors; the
// first registration's help is kept.
//
// Output: families sorted by name, children sorted by label values; a family with no
// exported child is left out entirely (no HELP/TYPE lines).
//
// Lifetime: families and their children live as long as the registry. References to
// them must not outlive it (DefaultRegistry() is never destroyed).
//
// Thread-safety: safe for concurrent use. PrometheusText() does not hold the registry
// lock while it reads values or calls callbacks, so a callback may itself register.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/stats/callback_metric.h"
#include "common/stats/counter.h"
#include "common/stats/family.h"
#include "common/stats/gauge.h"
#include "common/stats/histogram.h"
#include "common/stats/internal/family_base.h"

namespace trimaran::stats {

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  absl::StatusOr<Family<Counter>*> RegisterCounterFamily(absl::string_view name,
                                                         absl::string_view help,
                                                         std::vector<std::string> label_names = {});
  absl::StatusOr<Family<Gauge>*> RegisterGaugeFamily(absl::string_view name, absl::string_view help,
                                                     std::vector<std::string> label_names = {});
  // `bucket_bounds` as for NormalizeBuckets: empty means DefaultBuckets().
  absl::StatusOr<Family<Histogram>*> RegisterHistogramFamily(absl::string_view name,
                                                             absl::string_view help,
                                                             std::vector<std::string> label_names,
                                                             std::vector<double> bucket_bounds);
  absl::StatusOr<Family<CallbackGauge>*> RegisterCallbackGaugeFamily(
      absl::string_view name, absl::string_view help, std::vector<std::string> label_names = {});
  absl::StatusOr<Family<CallbackCounter>*> RegisterCallbackCounterFamily(
      absl::string_view name, absl::string_view help, std::vector<std::string> label_names = {});

  // As above, with errors fatal (TRIMARAN_CHECK).
  Family<Counter>& CounterFamily(absl::string_view name, absl::string_view help,
                                 std::vector<std::string> label_names = {});
  Family<Gauge>& GaugeFamily(absl::string_view name, absl::string_view help,
                             std::vector<std::string> label_names = {});
  Family<Histogram>& HistogramFamily(absl::string_view name, absl::string_view help,
                                     std::vector<std::string> label_names,
                                     std::vector<double> bucket_bounds);
  Family<CallbackGauge>& CallbackGaugeFamily(absl::string_view name, absl::string_view help,
                                             std::vector<std::string> label_names = {});
  Family<CallbackCounter>& CallbackCounterFamily(absl::string_view name, absl::string_view help,
                                                 std::vector<std::string> label_names = {});

  // The whole exposition, text format 0.0.4 (serve it as kPrometheusTextContentType).
  std::string PrometheusText() const;

 private:
  template <typename T>
  absl::StatusOr<Family<T>*> Register(absl::string_view name, absl::string_view help,
                                      std::vector<std::string> label_names,
                                      std::vector<double> bucket_bounds);

  // Why `name` of type `type` may not be added next to the existing families, if so.
  absl::Status CheckSeriesCollision(absl::string_view name, MetricType type) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<stats_internal::FamilyBase>, std::less<>> families_
      ABSL_GUARDED_BY(mu_);
};

// The process-wide registry that /metrics serves. Created on first use and never
// destroyed. It also exports trimaran_bugs_total (TRIMARAN_BUG reports, common/check.h).
Registry& DefaultRegistry();

}  // namespace trimaran::stats
