#pragma once
// SchedulerMetrics: the Scheduler's own attempt families (scheduler.h, "Stats"), in the
// `upstream` scope, named as kube-scheduler names them without its "scheduler_"
// subsystem:
//   schedule_attempts_total{result,profile}                counter
//   scheduling_attempt_duration_seconds{result,profile}    histogram 0.001×2^k, 15
//   pod_scheduling_attempts                                histogram 1×2^k, 5
//   pod_scheduling_sli_duration_seconds{attempts}          histogram 0.01×2^k, 20
//   scheduling_algorithm_duration_seconds                  histogram 0.001×2^k, 15
//     (from the cycle's start through the algorithm: snapshot, PreFilter..Score, as
//     kube-scheduler's schedulingAlgorithm)
//
// Thread-safety: the families are safe for concurrent use (common/stats).
//
// Ownership: the scope's registry must outlive it.

#include "common/stats/stats.h"

namespace trimaran::sched {

struct SchedulerMetrics {
  explicit SchedulerMetrics(const stats::Scope& scope)
      : attempts(scope.CounterFamily("schedule_attempts_total",
                                     "Scheduling attempts by result and profile.",
                                     {"result", "profile"})),
        duration(scope.HistogramFamily("scheduling_attempt_duration_seconds",
                                       "Scheduling attempt latency (algorithm + binding).",
                                       {"result", "profile"},
                                       stats::ExponentialBuckets(0.001, 2, 15))),
        pod_attempts(scope
                         .HistogramFamily("pod_scheduling_attempts",
                                          "Attempts needed to schedule a pod.", {},
                                          stats::ExponentialBuckets(1, 2, 5))
                         .Get()),
        sli(scope.HistogramFamily("pod_scheduling_sli_duration_seconds",
                                  "From the pod's first scheduling attempt to bound.", {"attempts"},
                                  stats::ExponentialBuckets(0.01, 2, 20))),
        algorithm(scope
                      .HistogramFamily("scheduling_algorithm_duration_seconds",
                                       "Scheduling algorithm latency in seconds", {},
                                       stats::ExponentialBuckets(0.001, 2, 15))
                      .Get()) {}

  stats::Family<stats::Counter>& attempts;
  stats::Family<stats::Histogram>& duration;
  stats::Histogram& pod_attempts;
  stats::Family<stats::Histogram>& sli;
  stats::Histogram& algorithm;
};

}  // namespace trimaran::sched
