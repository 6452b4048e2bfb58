#pragma once
// PodTopologySpreadArgs (kubescheduler.config.k8s.io/v1, spec kube-scheduler-constraints.md
// §3.1):
//
//   args:
//     defaultConstraints:                  # for pods without constraints of their own
//       - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone,
//          whenUnsatisfiable: ScheduleAnyway}
//     defaultingType: List                 # System (default) | List
//
// System defaulting uses kube-scheduler's system defaults (hostname maxSkew 3, zone
// maxSkew 5, ScheduleAnyway) and requires an empty defaultConstraints. Validation (every
// error reported with its path): maxSkew > 0; topologyKey non-empty; whenUnsatisfiable
// DoNotSchedule or ScheduleAnyway; labelSelector forbidden; no two constraints with the
// same (topologyKey, whenUnsatisfiable); unknown fields are errors.
//
// Thread-safety: plain values and pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kube/api/topology_spread_constraint.h"
#include "scheduler/framework/plugin_args.h"

namespace trimaran::sched::plugins {

enum class SpreadDefaultingType { kSystem, kList };

struct DefaultSpreadConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  kube::UnsatisfiableConstraintAction when_unsatisfiable =
      kube::UnsatisfiableConstraintAction::kDoNotSchedule;

  friend bool operator==(const DefaultSpreadConstraint&, const DefaultSpreadConstraint&) = default;
};

struct PodTopologySpreadArgs {
  std::vector<DefaultSpreadConstraint> default_constraints;
  SpreadDefaultingType defaulting_type = SpreadDefaultingType::kSystem;

  friend bool operator==(const PodTopologySpreadArgs&, const PodTopologySpreadArgs&) = default;
};

// kube-scheduler's system default constraints.
std::vector<DefaultSpreadConstraint> SystemDefaultSpreadConstraints();

absl::StatusOr<PodTopologySpreadArgs> DecodePodTopologySpreadArgs(const PluginArgs& args);

}  // namespace trimaran::sched::plugins
