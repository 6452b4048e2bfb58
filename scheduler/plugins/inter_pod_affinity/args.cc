#include "scheduler/plugins/inter_pod_affinity/args.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

std::string Child(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

}  // namespace

absl::StatusOr<InterPodAffinityArgs> DecodeInterPodAffinityArgs(const PluginArgs& plugin_args) {
  InterPodAffinityArgs args;
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  if (!node.IsDefined() || node.IsNull()) return args;
  std::vector<std::string> errors;
  if (!node.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path.empty() ? "args" : path, ": must be a mapping"));
  }
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const std::string field = Child(path, key);
    const YAML::Node& value = entry.second;
    if (key == "apiVersion") continue;
    if (key == "kind") {
      if (!value.IsScalar() || value.Scalar() != "InterPodAffinityArgs") {
        errors.push_back(absl::StrCat(field, ": must be \"InterPodAffinityArgs\""));
      }
    } else if (key == "hardPodAffinityWeight") {
      int64_t w = 0;
      if (!value.IsScalar() || !YAML::convert<int64_t>::decode(value, w)) {
        errors.push_back(absl::StrCat(field, ": must be an integer"));
      } else if (w < 0 || w > 100) {
        errors.push_back(
            absl::StrCat(field, ": Invalid value: ", w, ": not in valid range [0-100]"));
      } else {
        args.hard_pod_affinity_weight = static_cast<int32_t>(w);
      }
    } else if (key == "ignorePreferredTermsOfExistingPods") {
      bool b = false;
      if (!value.IsScalar() || !YAML::convert<bool>::decode(value, b)) {
        errors.push_back(absl::StrCat(field, ": must be a boolean"));
      } else {
        args.ignore_preferred_terms_of_existing_pods = b;
      }
    } else {
      errors.push_back(absl::StrCat(field, ": unknown field"));
    }
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
  return args;
}

}  // namespace trimaran::sched::plugins
