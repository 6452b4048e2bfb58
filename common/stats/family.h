#pragma once
// A Family is one metric name with fixed label names, and one child metric per tuple of
// label values: Family<Counter>, Family<Gauge>, Family<Histogram>, Family<CallbackGauge>,
// Family<CallbackCounter>. Families are created and owned by a Registry (registry.h).
//
//   Family<Counter>& attempts = registry.CounterFamily(
//       "scheduler_schedule_attempts_total", "...", {"result", "profile"});
//   Counter& scheduled = attempts.WithLabels({"scheduled", "trimaran"});  // cache this
//   scheduled.Inc();                                                       // lock-free
//
// Children and lifetime: a child is created on first WithLabels and is never destroyed
// while the registry lives, so the returned reference may be cached and used from any
// thread. A family without labels has exactly one child, created with the family (so
// it is exported as 0 from the start); Get() returns it.
//
// Removal: Remove(values) stops exporting a child, for a label value that is gone (a
// node deleted). The child object stays alive, so a cached reference remains safe to use
// (its updates are just not exported). A later WithLabels with the same values exports
// the same child again, with the value it had: counters stay monotonic. Memory is thus
// bounded by the number of distinct label tuples ever used, as without removal.
//
// Label values must be UTF-8; any string is allowed and escaped on output. Passing a
// number of values different from the number of label names is a programming error:
// TRIMARAN_CHECK aborts with the family's name (label arity is fixed in code, so a
// status would only move the crash).
//
// Thread-safety: safe for concurrent use. WithLabels takes a reader lock to find an
// existing child (a writer lock to create or re-export one); updating a child is
// lock-free (see counter.h, gauge.h, histogram.h).

#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/check.h"
#include "common/stats/callback_metric.h"
#include "common/stats/counter.h"
#include "common/stats/gauge.h"
#include "common/stats/histogram.h"
#include "common/stats/internal/family_base.h"

namespace trimaran::stats {

class Registry;

template <typename T>
class Family final : public stats_internal::FamilyBase {
 public:
  // The child for `label_values` (one per label name, in order), created on first use.
  T& WithLabels(std::initializer_list<absl::string_view> label_values) {
    return WithLabels(
        std::span<const absl::string_view>(label_values.begin(), label_values.size()));
  }
  T& WithLabels(std::span<const absl::string_view> label_values);
  T& WithLabels(std::span<const std::string> label_values) {
    const std::vector<absl::string_view> views(label_values.begin(), label_values.end());
    return WithLabels(std::span<const absl::string_view>(views));
  }

  // The only child of a family without labels (TRIMARAN_CHECK otherwise).
  T& Get() { return WithLabels(std::span<const absl::string_view>()); }

  // Stops exporting the child for `label_values`; see "Removal" above. Returns false if
  // there was no exported child for them.
  bool Remove(std::initializer_list<absl::string_view> label_values) {
    return Remove(std::span<const absl::string_view>(label_values.begin(), label_values.size()));
  }
  bool Remove(std::span<const absl::string_view> label_values);

  // The number of exported children.
  size_t size() const {
    absl::ReaderMutexLock lock(&mu_);
    return exported_;
  }

 private:
  friend class Registry;

  struct Child {
    std::unique_ptr<T> metric;
    std::string label_text;  // `a="x",b="y"`, rendered once.
    bool exported = true;
  };

  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::vector<double> bucket_bounds)
      : FamilyBase(std::move(name), std::move(help), std::move(label_names),
                   stats_internal::MetricTraits<T>::kType, stats_internal::MetricTraits<T>::kKind,
                   std::move(bucket_bounds)) {
    if (this->label_names().empty()) Get();
  }

  void CheckArity(std::span<const absl::string_view> label_values) const {
    TRIMARAN_CHECK(label_values.size() == label_names().size())
        << "metric " << name() << " has " << label_names().size() << " label names but got "
        << label_values.size() << " label values";
  }

  std::unique_ptr<T> NewChild() const {
    if constexpr (std::is_same_v<T, Histogram>) {
      return std::make_unique<Histogram>(bucket_bounds());
    } else {
      return std::make_unique<T>();
    }
  }

  void AppendSamples(std::string& out) const override;

  mutable absl::Mutex mu_;
  std::map<std::vector<std::string>, Child, stats_internal::LabelValuesLess> children_
      ABSL_GUARDED_BY(mu_);
  size_t exported_ ABSL_GUARDED_BY(mu_) = 0;
};

template <typename T>
T& Family<T>::WithLabels(std::span<const absl::string_view> label_values) {
  CheckArity(label_values);
  {
    absl::ReaderMutexLock lock(&mu_);
    auto it = children_.find(label_values);
    if (it != children_.end() && it->second.exported) return *it->second.metric;
  }
  absl::MutexLock lock(&mu_);
  auto it = children_.find(label_values);
  if (it == children_.end()) {
    it = children_
             .emplace(std::vector<std::string>(label_values.begin(), label_values.end()),
                      Child{NewChild(), LabelText(label_values), false})
             .first;
  }
  if (!it->second.exported) {
    it->second.exported = true;
    ++exported_;
  }
  return *it->second.metric;
}

template <typename T>
bool Family<T>::Remove(std::span<const absl::string_view> label_values) {
  CheckArity(label_values);
  absl::MutexLock lock(&mu_);
  auto it = children_.find(label_values);
  if (it == children_.end() || !it->second.exported) return false;
  it->second.exported = false;
  --exported_;
  return true;
}

template <typename T>
void Family<T>::AppendSamples(std::string& out) const {
  // Children and their label text are never destroyed or modified once created, so the
  // pointers stay valid after the lock is released; a callback then runs unlocked.
  std::vector<std::pair<const T*, const std::string*>> exported;
  {
    absl::ReaderMutexLock lock(&mu_);
    exported.reserve(exported_);
    for (const auto& [values, child] : children_) {
      if (child.exported) exported.emplace_back(child.metric.get(), &child.label_text);
    }
  }
  for (const auto& [metric, label_text] : exported) {
    stats_internal::AppendChildSamples(*metric, name(), *label_text, out);
  }
}

}  // namespace trimaran::stats
