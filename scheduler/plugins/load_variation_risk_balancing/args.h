#pragma once
// LoadVariationRiskBalancingArgs (kubescheduler.config.k8s.io/v1, spec §3 and §6):
//
//   args:
//     safeVarianceMargin: 1        # margin (default 1; nil or < 0 -> 1 as upstream)
//     safeVarianceSensitivity: 1   # sensitivity (default 1; the README recommends 2)
//     # plus the shared TrimaranSpec fields (trimaran/trimaran_spec.h)
//
// Validation: both are finite numbers (negative values are defaulted, as upstream);
// plus TrimaranSpec's. `kind`, when present, must be "LoadVariationRiskBalancingArgs".
//
// Thread-safety: plain values and pure functions.

#include "absl/status/statusor.h"
#include "scheduler/framework/registry.h"
#include "scheduler/plugins/load_aware/trimaran_spec.h"

namespace trimaran::sched::plugins {

struct LoadVariationRiskBalancingArgs {
  load_aware::TrimaranSpec trimaran;
  double safe_variance_margin = 1;
  double safe_variance_sensitivity = 1;

  friend bool operator==(const LoadVariationRiskBalancingArgs&,
                         const LoadVariationRiskBalancingArgs&) = default;
};

LoadVariationRiskBalancingArgs DefaultLoadVariationRiskBalancingArgs();

absl::StatusOr<LoadVariationRiskBalancingArgs> DecodeLoadVariationRiskBalancingArgs(
    const PluginArgs& args);

}  // namespace trimaran::sched::plugins
