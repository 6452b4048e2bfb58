#include "sim/load_windows.h"

#include <algorithm>
#include <cmath>

namespace trimaran::sim {

lw::NodeMetrics WindowMetrics(const std::deque<UsagePoint>& samples, double now,
                              double window_seconds, double cpu_alloc, double mem_alloc) {
  lw::NodeMetrics nm;
  double cs = 0, cs2 = 0, ms = 0, ms2 = 0, k = 0;

  for (const UsagePoint& s : samples) {
    if (s.t <= now - window_seconds || s.t > now) continue;
    const double c = 100.0 * static_cast<double>(s.cpu_milli) / cpu_alloc;
    const double m = 100.0 * static_cast<double>(s.memory_mib) / mem_alloc;
    cs += c;
    cs2 += c * c;
    ms += m;
    ms2 += m * m;
    k += 1;
  }
  if (k == 0) return nm;
  const double cavg = cs / k;
  const double mavg = ms / k;
  auto add = [&](absl::string_view type, absl::string_view op, double v) {
    nm.metrics.push_back({"", std::string(type), std::string(op), "", v});
  };
  add(lw::kTypeCpu, lw::kOpAvg, cavg);
  add(lw::kTypeCpu, lw::kOpStd, std::sqrt(std::max(0.0, cs2 / k - cavg * cavg)));
  add(lw::kTypeMemory, lw::kOpAvg, mavg);
  add(lw::kTypeMemory, lw::kOpStd, std::sqrt(std::max(0.0, ms2 / k - mavg * mavg)));
  return nm;
}

LoadSnapshots::LoadSnapshots(int64_t timestamp, double now) : now_(now) {
  for (absl::string_view w : {lw::kWindow15m, lw::kWindow10m, lw::kWindow5m}) {
    lw::WatcherMetrics& m = by_window_[std::string(w)];
    m.timestamp = timestamp;
    m.window = {std::string(w), timestamp - lw::WindowSeconds(w), timestamp};
    m.source = "Simulator";
  }
}

void LoadSnapshots::AddNode(const std::string& name, const std::deque<UsagePoint>& samples,
                            double cpu_alloc, double mem_alloc) {
  for (auto& [window, m] : by_window_) {
    lw::NodeMetrics nm = WindowMetrics(
        samples, now_, static_cast<double>(lw::WindowSeconds(window)), cpu_alloc, mem_alloc);
    if (!nm.metrics.empty()) m.data.node_metrics_map.emplace(name, std::move(nm));
  }
}

std::map<std::string, lw::WatcherMetrics> LoadSnapshots::Take() && { return std::move(by_window_); }

}  // namespace trimaran::sim
