#include "dashboard/web/history.h"

#include <cmath>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trimaran::dashboard::web {
namespace {

std::optional<float> UsedPercentOf(const NodeRow& row, absl::string_view resource) {
  for (const ResourceFigures& r : row.resources) {
    if (r.name != resource) continue;
    std::optional<double> p = r.UsedPercent();
    if (!p.has_value() || !std::isfinite(*p)) return std::nullopt;
    return static_cast<float>(*p);
  }
  return std::nullopt;
}

void AppendNumber(std::string& out, const std::optional<float>& v) {
  if (v.has_value()) {
    absl::StrAppendFormat(&out, "%.2f", *v);
  } else {
    out += "null";
  }
}

// Node names are Kubernetes object names (DNS subdomains), but escape anyway.
void AppendJsonString(std::string& out, absl::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppendFormat(&out, "\\u%04x", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  out += '"';
}

}  // namespace

NodeHistory::NodeHistory(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

bool NodeHistory::Record(const ClusterView& view, absl::Duration min_gap) {
  absl::MutexLock lock(&mu_);
  absl::Time stamp = view.now;
  if (view.has_metrics && view.metrics_time.has_value()) {
    if (last_snapshot_.has_value() && *view.metrics_time <= *last_snapshot_) return false;
    last_snapshot_ = *view.metrics_time;
    stamp = *view.metrics_time;
  } else if (last_sample_.has_value() && view.now - *last_sample_ < min_gap) {
    return false;
  }
  last_sample_ = view.now;
  absl::flat_hash_set<std::string> present;
  present.reserve(view.rows.size());
  for (const NodeRow& row : view.rows) {
    present.insert(row.name);
    UsageSample s;
    s.unix_seconds = absl::ToUnixSeconds(stamp);
    if (row.usage_state == UsageState::kOk) {
      s.cpu_percent = UsedPercentOf(row, "cpu");
      s.memory_percent = UsedPercentOf(row, "memory");
    }
    std::deque<UsageSample>& q = samples_[row.name];
    q.push_back(s);
    while (q.size() > capacity_) q.pop_front();
  }
  for (auto it = samples_.begin(); it != samples_.end();) {
    if (!present.contains(it->first)) {
      samples_.erase(it++);
    } else {
      ++it;
    }
  }
  return true;
}

std::vector<UsageSample> NodeHistory::Samples(absl::string_view node) const {
  absl::MutexLock lock(&mu_);
  auto it = samples_.find(node);
  if (it == samples_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

std::string NodeHistory::Json(const std::vector<std::string>& nodes) const {
  absl::MutexLock lock(&mu_);
  std::string out = "{";
  bool first = true;
  auto emit = [&](const std::string& name, const std::deque<UsageSample>& q) {
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, name);
    out += ":[";
    for (size_t i = 0; i < q.size(); ++i) {
      if (i > 0) out += ',';
      absl::StrAppend(&out, "[", q[i].unix_seconds, ",");
      AppendNumber(out, q[i].cpu_percent);
      out += ',';
      AppendNumber(out, q[i].memory_percent);
      out += ']';
    }
    out += ']';
  };
  if (nodes.empty()) {
    for (const auto& [name, q] : samples_) emit(name, q);
  } else {
    for (const std::string& name : nodes) {
      auto it = samples_.find(name);
      if (it != samples_.end()) emit(it->first, it->second);
    }
  }
  out += '}';
  return out;
}

}  // namespace trimaran::dashboard::web
