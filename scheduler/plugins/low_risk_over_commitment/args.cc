#include "scheduler/plugins/low_risk_over_commitment/args.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/plugins/helper/args_decoding.h"

namespace trimaran::sched::plugins {

LowRiskOverCommitmentArgs DefaultLowRiskOverCommitmentArgs() {
  LowRiskOverCommitmentArgs args;
  args.trimaran = load_aware::DefaultTrimaranSpec();
  return args;
}

absl::StatusOr<LowRiskOverCommitmentArgs> DecodeLowRiskOverCommitmentArgs(
    const PluginArgs& plugin_args) {
  LowRiskOverCommitmentArgs args = DefaultLowRiskOverCommitmentArgs();
  helper::FieldErrors errors;
  if (!load_aware::DecodeTrimaranArgs(plugin_args, "LowRiskOverCommitmentArgs",
                                      {"smoothingWindowSize", "riskLimitWeights"}, args.trimaran,
                                      errors)) {
    return errors.ToStatusOr(std::move(args));
  }
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  if (helper::Present(node["smoothingWindowSize"])) {
    const int64_t w =
        helper::DecodeDecimalInt(node["smoothingWindowSize"],
                                 helper::ChildPath(path, "smoothingWindowSize"), errors)
            .value_or(5);
    args.smoothing_window_size = w <= 0 ? 5 : w;
  }
  if (const YAML::Node weights = node["riskLimitWeights"]; helper::Present(weights)) {
    const std::string w_path = helper::ChildPath(path, "riskLimitWeights");
    if (!weights.IsMap()) {
      errors.Add(w_path, "must be a mapping of resource name to weight");
    } else {
      for (const auto& entry : weights) {
        const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
        const std::string item_path = helper::ChildPath(w_path, key);
        double* target = key == "cpu"      ? &args.cpu_risk_limit_weight
                         : key == "memory" ? &args.memory_risk_limit_weight
                                           : nullptr;
        if (target == nullptr) {
          errors.Add(item_path, absl::StrCat("Unsupported value: \"", key,
                                             "\": supported values: \"cpu\", \"memory\""));
          continue;
        }
        const std::optional<double> v = helper::DecodeDouble(entry.second, item_path, errors);
        if (!v.has_value()) continue;
        if (*v < 0 || *v > 1) {
          errors.Add(item_path, absl::StrCat("must be in [0, 1], got ", *v));
          continue;
        }
        *target = *v;
      }
    }
  }
  if (!errors.empty()) return errors.ToStatus();
  return args;
}

}  // namespace trimaran::sched::plugins
