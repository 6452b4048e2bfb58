#include "scheduler/plugins/load_variation_risk_balancing/args.h"

#include <vector>

#include "scheduler/plugins/trimaran/args_decoding.h"

namespace trimaran::sched::plugins {

LoadVariationRiskBalancingArgs DefaultLoadVariationRiskBalancingArgs() {
  LoadVariationRiskBalancingArgs args;
  args.trimaran = trimaran::DefaultTrimaranSpec();
  return args;
}

absl::StatusOr<LoadVariationRiskBalancingArgs> DecodeLoadVariationRiskBalancingArgs(
    const PluginArgs& plugin_args) {
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  LoadVariationRiskBalancingArgs args = DefaultLoadVariationRiskBalancingArgs();
  if (!trimaran::Present(node)) return args;

  trimaran::FieldErrors errors;
  std::vector<absl::string_view> known = {"apiVersion", "kind", "safeVarianceMargin",
                                          "safeVarianceSensitivity"};
  for (absl::string_view f : trimaran::TrimaranSpecFields()) known.push_back(f);
  if (!trimaran::DecodeMapKeys(node, path, known, errors)) return errors.ToStatus();
  trimaran::CheckKind(node, path, "LoadVariationRiskBalancingArgs", errors);
  trimaran::DecodeTrimaranSpec(node, path, args.trimaran, errors);
  // Upstream v1 defaulting: nil or < 0 -> 1.
  if (trimaran::Present(node["safeVarianceMargin"])) {
    const double v = trimaran::DecodeDouble(node["safeVarianceMargin"],
                                            trimaran::ChildPath(path, "safeVarianceMargin"), errors)
                         .value_or(1);
    args.safe_variance_margin = v < 0 ? 1 : v;
  }
  if (trimaran::Present(node["safeVarianceSensitivity"])) {
    const double v =
        trimaran::DecodeDouble(node["safeVarianceSensitivity"],
                               trimaran::ChildPath(path, "safeVarianceSensitivity"), errors)
            .value_or(1);
    args.safe_variance_sensitivity = v < 0 ? 1 : v;
  }
  if (!errors.empty()) return errors.ToStatus();
  return args;
}

}  // namespace trimaran::sched::plugins
