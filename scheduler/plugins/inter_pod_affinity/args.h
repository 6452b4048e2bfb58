#pragma once
// InterPodAffinityArgs (kubescheduler.config.k8s.io/v1, spec kube-scheduler-constraints.md
// §2.1):
//
//   args:
//     hardPodAffinityWeight: 1                   # [0, 100]; the score an existing pod's
//                                                # *required* affinity term matching the
//                                                # incoming pod adds (symmetry)
//     ignorePreferredTermsOfExistingPods: false  # 1.26+: true skips scoring when the
//                                                # incoming pod has no preferred terms
//
// Unknown fields are errors; every error is reported with its field path; `kind`, when
// present, must be "InterPodAffinityArgs".
//
// Thread-safety: plain values and pure functions.

#include <cstdint>

#include "absl/status/statusor.h"
#include "scheduler/framework/plugin_args.h"

namespace trimaran::sched::plugins {

struct InterPodAffinityArgs {
  int32_t hard_pod_affinity_weight = 1;
  bool ignore_preferred_terms_of_existing_pods = false;

  friend bool operator==(const InterPodAffinityArgs&, const InterPodAffinityArgs&) = default;
};

absl::StatusOr<InterPodAffinityArgs> DecodeInterPodAffinityArgs(const PluginArgs& args);

}  // namespace trimaran::sched::plugins
