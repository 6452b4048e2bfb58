#pragma once
// The load watcher's data model: one snapshot of per-node utilisation for one window,
// exactly as paypal/load-watcher's JSON schema has it (spec trimaran-and-load-watcher.md
// §5.2). These are plain values; nothing here is part of the wire format that the
// schema does not have. Our own bookkeeping (fetch time, age, history) lives in
// watcher.h (Snapshot), never in these structs.
//
//   WatcherMetrics {timestamp, window {duration, start, end}, source,
//                   data {NodeMetricsMap: host -> NodeMetrics}}
//   NodeMetrics    {metrics: [Metric], tags: {} (always empty), metadata {dataCenter}}
//   Metric         {name, type, operator, rollup, value (a percentage)}
//
// Strings (type, operator, window duration) are kept as the provider wrote them, so a
// value we do not know ("Bandwidth", a future operator) survives a decode/encode round
// trip. Compare them with the constants below.
//
// Thread-safety: plain values; externally synchronized. The watcher shares snapshots
// as std::shared_ptr<const WatcherMetrics>.
// Invariants: timestamps and window bounds are unix seconds.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace trimaran::lw {

// Window durations (spec §5.1). The watcher fetches all three.
inline constexpr absl::string_view kWindow15m = "15m";
inline constexpr absl::string_view kWindow10m = "10m";
inline constexpr absl::string_view kWindow5m = "5m";

// Metric `type` values.
inline constexpr absl::string_view kTypeCpu = "CPU";
inline constexpr absl::string_view kTypeMemory = "Memory";
inline constexpr absl::string_view kTypeBandwidth = "Bandwidth";
inline constexpr absl::string_view kTypeStorage = "Storage";
inline constexpr absl::string_view kTypeEnergy = "Energy";
inline constexpr absl::string_view kTypeUnknown = "Unknown";

// Metric `operator` values. Trimaran's plugins read AVG and Latest (TLP) and STD
// (LVRB/LRO); an empty operator is accepted by LVRB/LRO only.
inline constexpr absl::string_view kOpAvg = "AVG";
inline constexpr absl::string_view kOpStd = "STD";
inline constexpr absl::string_view kOpLatest = "Latest";
inline constexpr absl::string_view kOpUnknown = "Unknown";

// Provider names (spec §5.1), also the snapshot's `source`.
inline constexpr absl::string_view kProviderMetricsServer = "KubernetesMetricsServer";
inline constexpr absl::string_view kProviderPrometheus = "Prometheus";
inline constexpr absl::string_view kProviderSignalFx = "SignalFx";

struct Metric {
  std::string name{};    // provider-side metric name ("" for metrics-server)
  std::string type{};    // kTypeCpu, kTypeMemory, ...
  std::string op{};      // JSON "operator": kOpAvg, kOpStd, kOpLatest, ...
  std::string rollup{};  // Prometheus: the window duration ("15m"); else usually ""
  double value = 0;      // a percentage (0..100 for CPU and memory)

  friend bool operator==(const Metric&, const Metric&) = default;
};

struct NodeMetrics {
  std::vector<Metric> metrics{};
  // JSON "tags" has no fields upstream and is always written as {}.
  std::string data_center{};  // JSON "metadata": {"dataCenter": ...}

  friend bool operator==(const NodeMetrics&, const NodeMetrics&) = default;
};

// Host (node) name -> metrics. Ordered, so output is deterministic (upstream's order is
// unspecified, so any order is compatible).
using NodeMetricsMap = std::map<std::string, NodeMetrics, std::less<>>;

struct Window {
  std::string duration{};  // "15m", "10m", "5m"
  int64_t start = 0;       // unix seconds: end - duration
  int64_t end = 0;         // unix seconds

  friend bool operator==(const Window&, const Window&) = default;
};

struct Data {
  NodeMetricsMap node_metrics_map{};  // JSON "NodeMetricsMap"
  // Hosts a decoded response listed more than once: dropped from node_metrics_map (not
  // part of the wire format; the plugins count them as bad values).
  std::vector<std::string> duplicate_hosts{};

  friend bool operator==(const Data&, const Data&) = default;
};

struct WatcherMetrics {
  int64_t timestamp = 0;  // unix seconds, when the fetch completed
  Window window{};
  std::string source{};  // provider name
  Data data{};

  friend bool operator==(const WatcherMetrics&, const WatcherMetrics&) = default;
};

// The window length of "15m"/"10m"/"5m" in seconds (900/600/300); 0 for anything else.
inline int64_t WindowSeconds(absl::string_view duration) {
  if (duration == kWindow15m) return 900;
  if (duration == kWindow10m) return 600;
  if (duration == kWindow5m) return 300;
  return 0;
}

}  // namespace trimaran::lw
