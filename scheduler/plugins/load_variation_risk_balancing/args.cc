#include "scheduler/plugins/load_variation_risk_balancing/args.h"

#include <utility>

#include "scheduler/plugins/helper/args_decoding.h"

namespace trimaran::sched::plugins {

LoadVariationRiskBalancingArgs DefaultLoadVariationRiskBalancingArgs() {
  LoadVariationRiskBalancingArgs args;
  args.trimaran = load_aware::DefaultTrimaranSpec();
  return args;
}

absl::StatusOr<LoadVariationRiskBalancingArgs> DecodeLoadVariationRiskBalancingArgs(
    const PluginArgs& plugin_args) {
  LoadVariationRiskBalancingArgs args = DefaultLoadVariationRiskBalancingArgs();
  helper::FieldErrors errors;
  if (!load_aware::DecodeTrimaranArgs(plugin_args, "LoadVariationRiskBalancingArgs",
                                      {"safeVarianceMargin", "safeVarianceSensitivity"},
                                      args.trimaran, errors)) {
    return errors.ToStatusOr(std::move(args));
  }
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  // Upstream v1 defaulting: nil or < 0 -> 1.
  if (helper::Present(node["safeVarianceMargin"])) {
    const double v = helper::DecodeDouble(node["safeVarianceMargin"],
                                          helper::ChildPath(path, "safeVarianceMargin"), errors)
                         .value_or(1);
    args.safe_variance_margin = v < 0 ? 1 : v;
  }
  if (helper::Present(node["safeVarianceSensitivity"])) {
    const double v =
        helper::DecodeDouble(node["safeVarianceSensitivity"],
                             helper::ChildPath(path, "safeVarianceSensitivity"), errors)
            .value_or(1);
    args.safe_variance_sensitivity = v < 0 ? 1 : v;
  }
  if (!errors.empty()) return errors.ToStatus();
  return args;
}

}  // namespace trimaran::sched::plugins
