#pragma once
// DecisionRecorder: the CycleObserver (scheduler/cycle_observer.h) that records each
// scheduling attempt in a DecisionRing (decision_ring.h), for /debug/decisions and
// `trimaranctl explain`.
//
//   OnEvaluated      builds the Decision from the cycle's scores (MakeDecision,
//                    decision_builder.h) and keeps it as the attempt
//   OnScheduled      Bound on `node`
//   OnUnschedulable  Unschedulable, or Nominated on `nominated_node` when set
//   OnError          Error
// Each outcome stamps the Decision with the clock's time and the (bounded) message and
// moves it into the ring.
//
// Thread-safety: as CycleObserver requires (the ring is thread-safe; each attempt's
// Decision is touched by one thread at a time).
//
// Ownership: the ring and the clock must outlive the recorder.

#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "scheduler/cycle_observer.h"
#include "scheduler/decisions/decision.h"
#include "scheduler/decisions/decision_ring.h"

namespace trimaran::sched::decisions {

class DecisionRecorder final : public CycleObserver {
 public:
  DecisionRecorder(DecisionRing& ring, const Clock& clock) : ring_(ring), clock_(clock) {}

  std::shared_ptr<Attempt> OnEvaluated(const Framework& fwk, const CycleState& state,
                                       const kube::Pod& pod, const ScheduleResult& result,
                                       const SchedulingAlgorithmState& algo) override;
  void OnScheduled(std::shared_ptr<Attempt> attempt, absl::string_view node) override;
  void OnUnschedulable(std::shared_ptr<Attempt> attempt, absl::string_view message,
                       absl::string_view nominated_node) override;
  void OnError(std::shared_ptr<Attempt> attempt, absl::string_view message) override;

 private:
  // Completes the attempt's Decision with its outcome and records it.
  void Record(std::shared_ptr<Attempt> attempt, DecisionResult result, absl::string_view node,
              absl::string_view message);

  DecisionRing& ring_;
  const Clock& clock_;
};

}  // namespace trimaran::sched::decisions
