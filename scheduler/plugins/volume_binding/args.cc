#include "scheduler/plugins/volume_binding/args.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {

absl::StatusOr<VolumeBindingArgs> DecodeVolumeBindingArgs(const PluginArgs& plugin_args) {
  VolumeBindingArgs args;
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  if (!node.IsDefined() || node.IsNull()) return args;
  if (!node.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path.empty() ? "args" : path, ": must be a mapping"));
  }
  std::vector<std::string> errors;
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const std::string field = path.empty() ? key : absl::StrCat(path, ".", key);
    const YAML::Node& value = entry.second;
    if (key == "apiVersion") continue;
    if (key == "kind") {
      if (!value.IsScalar() || value.Scalar() != "VolumeBindingArgs") {
        errors.push_back(absl::StrCat(field, ": must be \"VolumeBindingArgs\""));
      }
    } else if (key == "bindTimeoutSeconds") {
      int64_t t = 0;
      if (!value.IsScalar() || !YAML::convert<int64_t>::decode(value, t)) {
        errors.push_back(absl::StrCat(field, ": must be an integer"));
      } else if (t < 0) {
        errors.push_back(
            absl::StrCat(field, ": Invalid value: ", t,
                         ": invalid BindTimeoutSeconds, should not be a negative value"));
      } else {
        args.bind_timeout_seconds = t;
      }
    } else if (key == "shape") {
      if (!value.IsNull()) {
        errors.push_back(
            absl::StrCat(field,
                         ": Invalid value: shape is only allowed with the VolumeCapacityPriority "
                         "feature gate, alpha and off by default upstream (kube-scheduler "
                         "rejects it the same way); trimaran-scheduler does not implement "
                         "that score"));
      }
    } else {
      errors.push_back(absl::StrCat(field, ": unknown field"));
    }
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
  return args;
}

}  // namespace trimaran::sched::plugins
