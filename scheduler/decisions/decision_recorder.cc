#include "scheduler/decisions/decision_recorder.h"

#include <utility>

#include "scheduler/decisions/decision_builder.h"

namespace trimaran::sched::decisions {
namespace {

// The attempt a DecisionRecorder keeps: the Decision built from the cycle's scores.
struct DecisionAttempt final : CycleObserver::Attempt {
  explicit DecisionAttempt(Decision d) : decision(std::move(d)) {}
  Decision decision;
};

}  // namespace

std::shared_ptr<CycleObserver::Attempt> DecisionRecorder::OnEvaluated(
    const Framework& fwk, const CycleState& state, const kube::Pod& pod,
    const ScheduleResult& result, const SchedulingAlgorithmState& algo) {
  return std::make_shared<DecisionAttempt>(MakeDecision(fwk, state, pod, result, algo));
}

void DecisionRecorder::OnScheduled(std::shared_ptr<Attempt> attempt, absl::string_view node) {
  Record(std::move(attempt), DecisionResult::kBound, node, "");
}

void DecisionRecorder::OnUnschedulable(std::shared_ptr<Attempt> attempt, absl::string_view message,
                                       absl::string_view nominated_node) {
  if (nominated_node.empty()) {
    Record(std::move(attempt), DecisionResult::kUnschedulable, "", message);
  } else {
    Record(std::move(attempt), DecisionResult::kNominated, nominated_node, message);
  }
}

void DecisionRecorder::OnError(std::shared_ptr<Attempt> attempt, absl::string_view message) {
  Record(std::move(attempt), DecisionResult::kError, "", message);
}

void DecisionRecorder::Record(std::shared_ptr<Attempt> attempt, DecisionResult result,
                              absl::string_view node, absl::string_view message) {
  auto* kept = static_cast<DecisionAttempt*>(attempt.get());
  if (kept == nullptr) return;
  Decision& d = kept->decision;
  d.time = clock_.Now();
  d.result = result;
  d.node = std::string(node);
  d.message = BoundedMessage(message);
  ring_.Record(std::move(d));
}

}  // namespace trimaran::sched::decisions
