#include "scheduler/plugins/default_preemption/args.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kKind = "DefaultPreemptionArgs";
constexpr absl::string_view kPercentage = "minCandidateNodesPercentage";
constexpr absl::string_view kAbsolute = "minCandidateNodesAbsolute";

std::string Child(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

// Reads an int32 field; false (with an error) when it is not one.
bool ReadInt32(const YAML::Node& value, const std::string& field, std::vector<std::string>& errors,
               int32_t& out) {
  int64_t v = 0;
  if (!value.IsScalar() || !YAML::convert<int64_t>::decode(value, v) || v < INT32_MIN ||
      v > INT32_MAX) {
    errors.push_back(absl::StrCat(field, ": must be a 32-bit integer"));
    return false;
  }
  out = static_cast<int32_t>(v);
  return true;
}

}  // namespace

absl::StatusOr<DefaultPreemptionArgs> DecodeDefaultPreemptionArgs(const PluginArgs& plugin_args) {
  DefaultPreemptionArgs args;
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  if (!node.IsDefined() || node.IsNull()) return args;
  if (!node.IsMap()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path.empty() ? "args" : path, ": must be a mapping"));
  }
  std::vector<std::string> errors;
  bool typed_ok = true;
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const std::string field = Child(path, key);
    const YAML::Node& value = entry.second;
    if (key == "apiVersion") continue;
    if (key == "kind") {
      if (!value.IsScalar() || value.Scalar() != kKind) {
        errors.push_back(absl::StrCat(field, ": must be \"", kKind, "\""));
      }
    } else if (key == kPercentage) {
      typed_ok &= ReadInt32(value, field, errors, args.min_candidate_nodes_percentage);
    } else if (key == kAbsolute) {
      typed_ok &= ReadInt32(value, field, errors, args.min_candidate_nodes_absolute);
    } else {
      errors.push_back(absl::StrCat(field, ": unknown field"));
    }
  }
  // Upstream ValidateDefaultPreemptionArgs.
  if (typed_ok) {
    const int32_t pct = args.min_candidate_nodes_percentage;
    const int32_t abs = args.min_candidate_nodes_absolute;
    if (pct < 0 || pct > 100) {
      errors.push_back(absl::StrCat(Child(path, kPercentage), ": Invalid value: ", pct,
                                    ": not in valid range [0, 100]"));
    }
    if (abs < 0) {
      errors.push_back(absl::StrCat(Child(path, kAbsolute), ": Invalid value: ", abs,
                                    ": not in valid range [0, inf)"));
    }
    if (pct == 0 && abs == 0) {
      errors.push_back(absl::StrCat(Child(path, kPercentage),
                                    ": Invalid value: 0: cannot be zero at the same time as ",
                                    kAbsolute));
    }
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
  return args;
}

int32_t NumCandidates(const DefaultPreemptionArgs& args, int32_t num_nodes) {
  int64_t n = static_cast<int64_t>(num_nodes) * args.min_candidate_nodes_percentage / 100;
  n = std::max<int64_t>(n, args.min_candidate_nodes_absolute);
  return static_cast<int32_t>(std::min<int64_t>(n, num_nodes));
}

}  // namespace trimaran::sched::plugins
