#pragma once
// LowRiskOverCommitmentArgs (kubescheduler.config.k8s.io/v1, spec §4 and §6):
//
//   args:
//     smoothingWindowSize: 5                    # W (default 5; nil or <= 0 -> 5)
//     riskLimitWeights: {cpu: 0.5, memory: 0.5} # w_r (default 0.5 each; entries merge
//                                               # over the defaults)
//     # plus the shared TrimaranSpec fields (trimaran/trimaran_spec.h)
//
// Validation: riskLimitWeights keys are cpu or memory and values in [0, 1] (upstream
// silently replaces out-of-range values by 0.5; we reject them); plus TrimaranSpec's.
// `kind`, when present, must be "LowRiskOverCommitmentArgs".
//
// Thread-safety: plain values and pure functions.

#include <cstdint>

#include "absl/status/statusor.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/load_aware/trimaran_spec.h"

namespace trimaran::sched::plugins {

struct LowRiskOverCommitmentArgs {
  load_aware::TrimaranSpec trimaran;
  int64_t smoothing_window_size = 5;
  double cpu_risk_limit_weight = 0.5;
  double memory_risk_limit_weight = 0.5;

  friend bool operator==(const LowRiskOverCommitmentArgs&,
                         const LowRiskOverCommitmentArgs&) = default;
};

LowRiskOverCommitmentArgs DefaultLowRiskOverCommitmentArgs();

absl::StatusOr<LowRiskOverCommitmentArgs> DecodeLowRiskOverCommitmentArgs(const PluginArgs& args);

}  // namespace trimaran::sched::plugins
