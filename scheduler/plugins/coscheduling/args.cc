#include "scheduler/plugins/coscheduling/args.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/framework/interface.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kKind = "CoschedulingArgs";
constexpr absl::string_view kPermit = "permitWaitingTimeSeconds";
constexpr absl::string_view kBackoff = "podGroupBackoffSeconds";
constexpr absl::string_view kReject = "podGroupRejectPercentage";

std::string Child(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

bool ReadInt(const YAML::Node& value, const std::string& field, int64_t min, int64_t max,
             std::vector<std::string>& errors, int64_t& out) {
  int64_t v = 0;
  if (!value.IsScalar() || !YAML::convert<int64_t>::decode(value, v)) {
    errors.push_back(absl::StrCat(field, ": must be an integer"));
    return false;
  }
  if (v < min || v > max) {
    errors.push_back(
        absl::StrCat(field, ": Invalid value: ", v, ": not in valid range [", min, ", ", max, "]"));
    return false;
  }
  out = v;
  return true;
}

}  // namespace

absl::StatusOr<CoschedulingArgs> DecodeCoschedulingArgs(const PluginArgs& plugin_args) {
  CoschedulingArgs args;
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  if (!node.IsDefined() || node.IsNull()) return args;
  if (!node.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path.empty() ? "args" : path, ": must be a mapping"));
  }
  const int64_t max_wait = absl::ToInt64Seconds(kMaxPermitTimeout);
  std::vector<std::string> errors;
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const std::string field = Child(path, key);
    const YAML::Node& value = entry.second;
    if (key == "apiVersion") continue;
    if (key == "kind") {
      if (!value.IsScalar() || value.Scalar() != kKind) {
        errors.push_back(absl::StrCat(field, ": must be \"", kKind, "\""));
      }
    } else if (key == kPermit) {
      ReadInt(value, field, 1, max_wait, errors, args.permit_waiting_time_seconds);
    } else if (key == kBackoff) {
      ReadInt(value, field, 0, max_wait, errors, args.pod_group_backoff_seconds);
    } else if (key == kReject) {
      int64_t v = args.pod_group_reject_percentage;
      if (ReadInt(value, field, 0, 100, errors, v)) {
        args.pod_group_reject_percentage = static_cast<int32_t>(v);
      }
    } else {
      errors.push_back(absl::StrCat(field, ": unknown field"));
    }
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
  return args;
}

}  // namespace trimaran::sched::plugins
