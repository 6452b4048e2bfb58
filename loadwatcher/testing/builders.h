#pragma once
// Test builders for load-watcher data, in the style of kube/testing/wrappers.h:
//
//   WatcherMetrics m = MakeWatcherMetrics().Window("15m").Timestamp(1700000062)
//                          .Source("Prometheus")
//                          .Node("n1").Cpu(kOpAvg, 40).Memory(kOpStd, 5)
//                          .Node("n2").Metric("m", kTypeCpu, kOpLatest, "", 12.5)
//                          .Obj();
//   NodeMetricsMap nodes = MakeWatcherMetrics().Node("n1").Cpu(kOpAvg, 40).Nodes();
//
// Window(d) also sets start/end = timestamp - D .. timestamp. Node(name) starts (or
// returns to) a node; the metric setters append to the current node. Cpu/Memory write
// name "" and rollup "" (the metrics-server shape) unless Rollup() was set.
//
// Thread-safety: a value; not shared.

#include <string>
#include <utility>

#include "loadwatcher/metrics.h"

namespace trimaran::lw::testing {

class WatcherMetricsWrapper {
 public:
  WatcherMetricsWrapper() {
    m_.timestamp = 1'700'000'000;
    m_.window = {"15m", 1'700'000'000 - 900, 1'700'000'000};
    m_.source = "Fake";
  }

  WatcherMetricsWrapper& Timestamp(int64_t ts) {
    m_.timestamp = ts;
    return Window(m_.window.duration);
  }
  WatcherMetricsWrapper& Window(const std::string& duration) {
    m_.window = {duration, m_.timestamp - WindowSeconds(duration), m_.timestamp};
    return *this;
  }
  WatcherMetricsWrapper& Source(std::string source) {
    m_.source = std::move(source);
    return *this;
  }
  WatcherMetricsWrapper& Node(const std::string& name) {
    current_ = name;
    m_.data.node_metrics_map[name];
    return *this;
  }
  WatcherMetricsWrapper& DataCenter(std::string dc) {
    current()->data_center = std::move(dc);
    return *this;
  }
  // Rollup written by later Cpu()/Memory() calls.
  WatcherMetricsWrapper& Rollup(std::string rollup) {
    rollup_ = std::move(rollup);
    return *this;
  }
  WatcherMetricsWrapper& Metric(std::string name, absl::string_view type, absl::string_view op,
                                std::string rollup, double value) {
    current()->metrics.push_back(
        lw::Metric{std::move(name), std::string(type), std::string(op), std::move(rollup), value});
    return *this;
  }
  WatcherMetricsWrapper& Cpu(absl::string_view op, double value) {
    return Metric("", kTypeCpu, op, rollup_, value);
  }
  WatcherMetricsWrapper& Memory(absl::string_view op, double value) {
    return Metric("", kTypeMemory, op, rollup_, value);
  }

  WatcherMetrics Obj() const { return m_; }
  NodeMetricsMap Nodes() const { return m_.data.node_metrics_map; }

 private:
  NodeMetrics* current() { return &m_.data.node_metrics_map[current_]; }

  WatcherMetrics m_;
  std::string current_ = "node-1";  // the node the metric setters append to
  std::string rollup_;
};

inline WatcherMetricsWrapper MakeWatcherMetrics() { return WatcherMetricsWrapper(); }

}  // namespace trimaran::lw::testing
