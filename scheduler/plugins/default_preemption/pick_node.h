#pragma once
// PickOneNodeForPreemption: the choice among preemption candidates (upstream
// pickOneNodeForPreemption, spec kube-scheduler-constraints.md §9.4). Criteria in order,
// each keeping only the ties of the previous one:
//   1. fewest PodDisruptionBudget violations;
//   2. lowest priority of the most important victim;
//   3. smallest sum over victims of (priority + 2^31);
//   4. fewest victims;
//   5. latest "earliest start time among the highest-priority victims";
//   6. the first remaining candidate (in the order given).
//
// Thread-safety: pure functions.

#include <span>
#include <string>

#include "absl/time/time.h"
#include "scheduler/plugins/default_preemption/victims.h"

namespace trimaran::sched::plugins {

struct Candidate {
  std::string node_name;
  Victims victims;
};

// The earliest start time among the victims with the highest priority (criterion 5);
// `now` stands for a missing start time. std::nullopt when there is no victim.
std::optional<absl::Time> EarliestStartTimeOfMostImportant(const Victims& victims, absl::Time now);

// The index of the chosen candidate, or -1 when `candidates` is empty. Every candidate
// must have at least one victim.
int PickOneNodeForPreemption(std::span<const Candidate> candidates, absl::Time now);

}  // namespace trimaran::sched::plugins
