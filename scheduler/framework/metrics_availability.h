#pragma once
// MetricsAvailabilityObserver: told when a load-aware plugin's live-load metrics stop
// being usable for a whole scheduling cycle (none yet, stale past metricsMaxAge, or
// from the future: the plugin then scores every node by its fallback) and when they
// are usable again. The daemon turns the changes into Kubernetes Events on its own Pod
// (scheduler/metrics_availability_events.h), so `kubectl describe pod` and `kubectl get
// events` say that the scheduler packs by requests and why.
//
// Calls come from the scheduling thread, at most once per change of a plugin
// instance's state, at the PreScore that sees the change (none while no pod is being
// scored). A plugin instance that never had usable metrics reports them unavailable only
// after a start-up grace (load_aware/plugin_metrics.h), not at its first cycle.
//
// Thread-safety: implementations must be safe for concurrent use (profiles may run on
// one thread today, but nothing promises it) and must not block on the network.

#include "absl/strings/string_view.h"

namespace trimaran::sched {

class MetricsAvailabilityObserver {
 public:
  virtual ~MetricsAvailabilityObserver() = default;
  // `plugin` is the plugin's name (TargetLoadPacking, ...), `source` where its metrics
  // come from ("watcherAddress http://127.0.0.1:2020", "metricProvider Prometheus
  // http://prometheus:9090"), `why` what is wrong and what the plugin does meanwhile
  // ("its newest snapshot is 6m old, over metricsMaxAge 5m; every node is scored by its
  // requests (fallback Requests) until they return").
  virtual void MetricsUnavailable(absl::string_view plugin, absl::string_view source,
                                  absl::string_view why) = 0;
  virtual void MetricsAvailable(absl::string_view plugin, absl::string_view source) = 0;
};

}  // namespace trimaran::sched
