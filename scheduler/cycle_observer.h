#pragma once
// CycleObserver: what the Scheduler tells an observer about each scheduling attempt
// (schedule_one.cc), at the cycle's few outcome points and nowhere else. The decisions
// ring's recorder (scheduler/decisions/decision_recorder.h) is one; tests use fakes.
//
//   OnEvaluated      once per attempt, on the scheduling thread, right after the
//                    algorithm ran (or could not run: the snapshot update failed and
//                    `result` is empty). The only call that may read the cycle's scores
//                    (`state`, `algo`: overwritten by the next cycle). Returns what the
//                    observer keeps of the attempt (may be null); the outcome gets it back.
//   then exactly one outcome, on the scheduling thread or the binding cycle's thread:
//   OnScheduled      the binding cycle bound the pod to `node` (or the API already shows
//                    it bound there after a failed Bind).
//   OnUnschedulable  no node fits, or a Reserve/Permit plugin or a binding-cycle plugin
//                    rejected the pod; `nominated_node` is set when a PostFilter
//                    (preemption) nominated it there.
//   OnError          anything else: the snapshot, the cache, a plugin's error, a failed
//                    Bind, or a binding dropped behind the fence or by Stop.
//
// Cost: with no observer (SchedulerOptions::cycle_observer and ::decisions null) the
// cycle makes none of these calls.
//
// Thread-safety: an observer must accept OnEvaluated from the scheduling thread and the
// outcome calls from any thread, concurrently with each other (for different attempts).

#include <memory>

#include "absl/strings/string_view.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/runtime/framework.h"
#include "scheduler/runtime/schedule_algorithm.h"

namespace trimaran::sched {

class CycleObserver {
 public:
  // What an observer keeps of one attempt between OnEvaluated and its outcome. Opaque
  // to the Scheduler, which only carries it (shared: the binding cycle's task is copied).
  class Attempt {
   public:
    virtual ~Attempt() = default;
  };

  virtual ~CycleObserver() = default;

  virtual std::shared_ptr<Attempt> OnEvaluated(const Framework& fwk, const CycleState& state,
                                               const kube::Pod& pod, const ScheduleResult& result,
                                               const SchedulingAlgorithmState& algo) = 0;
  virtual void OnScheduled(std::shared_ptr<Attempt> attempt, absl::string_view node) = 0;
  virtual void OnUnschedulable(std::shared_ptr<Attempt> attempt, absl::string_view message,
                               absl::string_view nominated_node) = 0;
  virtual void OnError(std::shared_ptr<Attempt> attempt, absl::string_view message) = 0;
};

}  // namespace trimaran::sched
