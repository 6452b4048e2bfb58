#include "common/stats/internal/family_base.h"

#include <optional>
#include <utility>

#include "common/stats/text_format.h"

namespace trimaran::stats::stats_internal {
namespace {

// Appends one sample line: name+suffix, the labels (plus an extra pre-rendered
// `le="..."` pair when given), the value.
void AppendSample(absl::string_view name, absl::string_view suffix, absl::string_view labels,
                  absl::string_view extra_label, double value, std::string& out) {
  out.append(name.data(), name.size());
  out.append(suffix.data(), suffix.size());
  if (!labels.empty() || !extra_label.empty()) {
    out += '{';
    out.append(labels.data(), labels.size());
    if (!labels.empty() && !extra_label.empty()) out += ',';
    out.append(extra_label.data(), extra_label.size());
    out += '}';
  }
  out += ' ';
  AppendValue(value, out);
  out += '\n';
}

template <typename Callback>
void AppendCallbackSamples(const Callback& metric, absl::string_view name, absl::string_view labels,
                           std::string& out) {
  std::optional<double> value = metric.Value();
  if (value.has_value()) AppendSample(name, "", labels, "", *value, out);
}

}  // namespace

FamilyBase::FamilyBase(std::string name, std::string help, std::vector<std::string> label_names,
                       MetricType type, absl::string_view kind, std::vector<double> bucket_bounds)
    : name_(std::move(name)),
      help_(std::move(help)),
      label_names_(std::move(label_names)),
      type_(type),
      kind_(kind),
      bucket_bounds_(std::move(bucket_bounds)) {}

void FamilyBase::AppendText(std::string& out) const {
  std::string samples;
  AppendSamples(samples);
  if (samples.empty()) return;
  if (!help_.empty()) {
    out += "# HELP ";
    out += name_;
    out += ' ';
    AppendEscapedHelp(help_, out);
    out += '\n';
  }
  out += "# TYPE ";
  out += name_;
  out += ' ';
  const absl::string_view type_name = MetricTypeName(type_);
  out.append(type_name.data(), type_name.size());
  out += '\n';
  out += samples;
}

std::string FamilyBase::LabelText(std::span<const absl::string_view> label_values) const {
  std::string text;
  for (size_t i = 0; i < label_values.size() && i < label_names_.size(); ++i) {
    if (i > 0) text += ',';
    text += label_names_[i];
    text += "=\"";
    AppendEscapedLabelValue(label_values[i], text);
    text += '"';
  }
  return text;
}

void AppendChildSamples(const Counter& counter, absl::string_view name, absl::string_view labels,
                        std::string& out) {
  AppendSample(name, "", labels, "", counter.Value(), out);
}

void AppendChildSamples(const Gauge& gauge, absl::string_view name, absl::string_view labels,
                        std::string& out) {
  AppendSample(name, "", labels, "", gauge.Value(), out);
}

void AppendChildSamples(const Histogram& histogram, absl::string_view name,
                        absl::string_view labels, std::string& out) {
  const HistogramSnapshot snapshot = histogram.Snapshot();
  const std::vector<double>& bounds = histogram.bounds();
  std::string le;
  for (size_t i = 0; i < snapshot.cumulative_counts.size(); ++i) {
    le = "le=\"";
    if (i < bounds.size()) {
      AppendValue(bounds[i], le);
    } else {
      le += "+Inf";
    }
    le += '"';
    AppendSample(name, "_bucket", labels, le, static_cast<double>(snapshot.cumulative_counts[i]),
                 out);
  }
  AppendSample(name, "_sum", labels, "", snapshot.sum, out);
  AppendSample(name, "_count", labels, "", static_cast<double>(snapshot.count), out);
}

void AppendChildSamples(const CallbackCounter& counter, absl::string_view name,
                        absl::string_view labels, std::string& out) {
  AppendCallbackSamples(counter, name, labels, out);
}

void AppendChildSamples(const CallbackGauge& gauge, absl::string_view name,
                        absl::string_view labels, std::string& out) {
  AppendCallbackSamples(gauge, name, labels, out);
}

}  // namespace trimaran::stats::stats_internal
