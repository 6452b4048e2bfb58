#include "common/stats/registry.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/check.h"
#include "common/stats/text_format.h"

namespace trimaran::stats {
namespace {

// The series a histogram named `name` writes besides `name` itself.
constexpr absl::string_view kHistogramSuffixes[] = {"_bucket", "_sum", "_count"};

absl::Status ValidateNames(absl::string_view name, const std::vector<std::string>& label_names,
                           MetricType type) {
  if (!IsValidMetricName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("metric name \"", name, "\" does not match [a-zA-Z_:][a-zA-Z0-9_:]*"));
  }
  for (size_t i = 0; i < label_names.size(); ++i) {
    const std::string& label = label_names[i];
    if (!IsValidLabelName(label)) {
      return absl::InvalidArgumentError(absl::StrCat("metric ", name, ": label name \"", label,
                                                     "\" does not match [a-zA-Z_][a-zA-Z0-9_]*"));
    }
    if (absl::StartsWith(label, "__")) {
      return absl::InvalidArgumentError(absl::StrCat("metric ", name, ": label name \"", label,
                                                     "\" is reserved (starts with \"__\")"));
    }
    if (type == MetricType::kHistogram && label == "le") {
      return absl::InvalidArgumentError(
          absl::StrCat("histogram ", name, ": label name \"le\" is reserved for buckets"));
    }
    if (std::find(label_names.begin(), label_names.begin() + i, label) != label_names.begin() + i) {
      return absl::InvalidArgumentError(
          absl::StrCat("metric ", name, ": label name \"", label, "\" repeats"));
    }
  }
  return absl::OkStatus();
}

std::string Describe(absl::string_view kind, const std::vector<std::string>& label_names,
                     const std::vector<double>& bounds) {
  std::string text = absl::StrCat(kind, " with labels {", absl::StrJoin(label_names, ","), "}");
  if (!bounds.empty()) {
    absl::StrAppend(
        &text, " and buckets {",
        absl::StrJoin(bounds, ",", [](std::string* out, double b) { AppendValue(b, *out); }), "}");
  }
  return text;
}

template <typename T>
T& CheckOk(absl::StatusOr<T*> family) {
  TRIMARAN_CHECK(family.ok()) << family.status();
  return **family;
}

}  // namespace

Registry::Registry() = default;
Registry::~Registry() = default;

absl::Status Registry::CheckSeriesCollision(absl::string_view name, MetricType type) const {
  if (type == MetricType::kHistogram) {
    for (absl::string_view suffix : kHistogramSuffixes) {
      const std::string series = absl::StrCat(name, suffix);
      if (families_.contains(series)) {
        return absl::AlreadyExistsError(absl::StrCat("histogram ", name, " would write series ",
                                                     series, ", which is already a metric"));
      }
    }
  }
  for (absl::string_view suffix : kHistogramSuffixes) {
    if (!absl::EndsWith(name, suffix)) continue;
    auto it = families_.find(name.substr(0, name.size() - suffix.size()));
    if (it != families_.end() && it->second->type() == MetricType::kHistogram) {
      return absl::AlreadyExistsError(
          absl::StrCat("metric ", name, " collides with a series of histogram ", it->first));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::StatusOr<Family<T>*> Registry::Register(absl::string_view name, absl::string_view help,
                                              std::vector<std::string> label_names,
                                              std::vector<double> bucket_bounds) {
  constexpr MetricType kType = stats_internal::MetricTraits<T>::kType;
  constexpr absl::string_view kKind = stats_internal::MetricTraits<T>::kKind;
  if (absl::Status status = ValidateNames(name, label_names, kType); !status.ok()) {
    return status;
  }
  if constexpr (kType == MetricType::kHistogram) {
    absl::StatusOr<std::vector<double>> normalized = NormalizeBuckets(std::move(bucket_bounds));
    if (!normalized.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("histogram ", name, ": ", normalized.status().message()));
    }
    bucket_bounds = *std::move(normalized);
  }

  absl::MutexLock lock(&mu_);
  if (auto it = families_.find(name); it != families_.end()) {
    stats_internal::FamilyBase& existing = *it->second;
    if (existing.kind() != kKind || existing.label_names() != label_names ||
        existing.bucket_bounds() != bucket_bounds) {
      return absl::AlreadyExistsError(
          absl::StrCat("metric ", name, " is registered as a ",
                       Describe(existing.kind(), existing.label_names(), existing.bucket_bounds()),
                       "; cannot register it as a ", Describe(kKind, label_names, bucket_bounds)));
    }
    // Same kind, so the same T.
    return static_cast<Family<T>*>(&existing);
  }
  if (absl::Status status = CheckSeriesCollision(name, kType); !status.ok()) return status;
  auto* family = new Family<T>(std::string(name), std::string(help), std::move(label_names),
                               std::move(bucket_bounds));
  families_.emplace(std::string(name), std::unique_ptr<stats_internal::FamilyBase>(family));
  return family;
}

absl::StatusOr<Family<Counter>*> Registry::RegisterCounterFamily(
    absl::string_view name, absl::string_view help, std::vector<std::string> label_names) {
  return Register<Counter>(name, help, std::move(label_names), {});
}

absl::StatusOr<Family<Gauge>*> Registry::RegisterGaugeFamily(absl::string_view name,
                                                             absl::string_view help,
                                                             std::vector<std::string> label_names) {
  return Register<Gauge>(name, help, std::move(label_names), {});
}

absl::StatusOr<Family<Histogram>*> Registry::RegisterHistogramFamily(
    absl::string_view name, absl::string_view help, std::vector<std::string> label_names,
    std::vector<double> bucket_bounds) {
  return Register<Histogram>(name, help, std::move(label_names), std::move(bucket_bounds));
}

absl::StatusOr<Family<CallbackGauge>*> Registry::RegisterCallbackGaugeFamily(
    absl::string_view name, absl::string_view help, std::vector<std::string> label_names) {
  return Register<CallbackGauge>(name, help, std::move(label_names), {});
}

absl::StatusOr<Family<CallbackCounter>*> Registry::RegisterCallbackCounterFamily(
    absl::string_view name, absl::string_view help, std::vector<std::string> label_names) {
  return Register<CallbackCounter>(name, help, std::move(label_names), {});
}

Family<Counter>& Registry::CounterFamily(absl::string_view name, absl::string_view help,
                                         std::vector<std::string> label_names) {
  return CheckOk(RegisterCounterFamily(name, help, std::move(label_names)));
}

Family<Gauge>& Registry::GaugeFamily(absl::string_view name, absl::string_view help,
                                     std::vector<std::string> label_names) {
  return CheckOk(RegisterGaugeFamily(name, help, std::move(label_names)));
}

Family<Histogram>& Registry::HistogramFamily(absl::string_view name, absl::string_view help,
                                             std::vector<std::string> label_names,
                                             std::vector<double> bucket_bounds) {
  return CheckOk(
      RegisterHistogramFamily(name, help, std::move(label_names), std::move(bucket_bounds)));
}

Family<CallbackGauge>& Registry::CallbackGaugeFamily(absl::string_view name, absl::string_view help,
                                                     std::vector<std::string> label_names) {
  return CheckOk(RegisterCallbackGaugeFamily(name, help, std::move(label_names)));
}

Family<CallbackCounter>& Registry::CallbackCounterFamily(absl::string_view name,
                                                         absl::string_view help,
                                                         std::vector<std::string> label_names) {
  return CheckOk(RegisterCallbackCounterFamily(name, help, std::move(label_names)));
}

std::string Registry::PrometheusText() const {
  // Families are never removed, so the pointers outlive the lock; reading values and
  // calling callbacks unlocked keeps a slow callback from blocking registration.
  std::vector<const stats_internal::FamilyBase*> families;
  {
    absl::ReaderMutexLock lock(&mu_);
    families.reserve(families_.size());
    for (const auto& [name, family] : families_) families.push_back(family.get());
  }
  std::string out;
  for (const stats_internal::FamilyBase* family : families) family->AppendText(out);
  return out;
}

Registry& DefaultRegistry() {
  static Registry* const registry = [] {
    auto* r = new Registry();
    r->CallbackCounterFamily("trimaran_bugs_total",
                             "Internal invariant violations reported with TRIMARAN_BUG. Each "
                             "one is a bug in Trimaran; the log has the details.")
        .Get()
        .Set([] { return static_cast<double>(BugCount()); });
    return r;
  }();
  return *registry;
}

}  // namespace trimaran::stats
