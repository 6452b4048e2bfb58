#include "scheduler/plugins/load_variation_risk_balancing/args.h"

#include <vector>

#include "scheduler/plugins/helper/args_decoding.h"

namespace trimaran::sched::plugins {

LoadVariationRiskBalancingArgs DefaultLoadVariationRiskBalancingArgs() {
  LoadVariationRiskBalancingArgs args;
  args.trimaran = load_aware::DefaultTrimaranSpec();
  return args;
}

absl::StatusOr<LoadVariationRiskBalancingArgs> DecodeLoadVariationRiskBalancingArgs(
    const PluginArgs& plugin_args) {
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  LoadVariationRiskBalancingArgs args = DefaultLoadVariationRiskBalancingArgs();
  if (!helper::Present(node)) return args;

  helper::FieldErrors errors;
  std::vector<absl::string_view> known = {"apiVersion", "kind", "safeVarianceMargin",
                                          "safeVarianceSensitivity"};
  for (absl::string_view f : load_aware::TrimaranSpecFields()) known.push_back(f);
  if (!helper::DecodeMapKeys(node, path, known, errors)) return errors.ToStatus();
  helper::CheckKind(node, path, "LoadVariationRiskBalancingArgs", errors);
  load_aware::DecodeTrimaranSpec(node, path, args.trimaran, errors);
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
