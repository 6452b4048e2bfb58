#pragma once
// MetricsAvailabilityEvents: the daemon's MetricsAvailabilityObserver
// (scheduler/framework/metrics_availability.h). Each change becomes a log line and a
// Kubernetes Event regarding the scheduler's own Pod, so that `kubectl describe pod` on
// the scheduler (or `kubectl get events -n trimaran`) says that live-load scoring is
// off, why, and when it is back:
//
//   Warning  LoadMetricsUnavailable  "TargetLoadPacking cannot use the load metrics of
//            watcherAddress http://127.0.0.1:2020: its newest snapshot is 12s old, over
//            metricsMaxAge 10s; every node is scored by its requests (fallback Requests)
//            until they return"
//   Normal   LoadMetricsAvailable    "TargetLoadPacking uses the load metrics of
//            watcherAddress http://127.0.0.1:2020 again"
//
// with action "Scheduling" and reportingController trimaran-scheduler. The Pod is named
// by the downward API's POD_NAME and POD_NAMESPACE (and POD_UID when set), as the shipped
// Deployment sets them (SelfPodFromEnvironment); without a name (a scheduler run outside
// a cluster) only the log lines are written. The recorder's dedup applies: the same
// change within its window is one Event.
//
// Thread-safety: safe for concurrent use (the recorder is). Ownership: borrows the
// recorder, which must outlive this.

#include <optional>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/metrics_availability.h"

namespace trimaran::sched {

inline constexpr char kLoadMetricsUnavailableReason[] = "LoadMetricsUnavailable";
inline constexpr char kLoadMetricsAvailableReason[] = "LoadMetricsAvailable";

// The scheduler's own Pod from `env` (POD_NAME, POD_NAMESPACE, POD_UID); nullopt when
// POD_NAME or POD_NAMESPACE is unset or empty.
std::optional<kube::Pod> SelfPodFromEnvironment(absl::FunctionRef<const char*(const char*)> env);

class MetricsAvailabilityEvents final : public MetricsAvailabilityObserver {
 public:
  // `self`: the Pod the Events are about (nullopt: log only).
  MetricsAvailabilityEvents(EventRecorder& recorder, std::optional<kube::Pod> self);

  void MetricsUnavailable(absl::string_view plugin, absl::string_view source,
                          absl::string_view why) override;
  void MetricsAvailable(absl::string_view plugin, absl::string_view source) override;

 private:
  EventRecorder& recorder_;
  const std::optional<kube::Pod> self_;
};

}  // namespace trimaran::sched
