#include "scheduler/plugins/pod_topology_spread/args.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

std::string Child(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

void DecodeConstraint(const YAML::Node& node, const std::string& path,
                      std::vector<std::string>& errors, DefaultSpreadConstraint& out) {
  if (!node.IsMap()) {
    errors.push_back(absl::StrCat(path, ": must be a mapping"));
    return;
  }
  bool has_skew = false, has_key = false, has_when = false;
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const std::string field = Child(path, key);
    const YAML::Node& v = entry.second;
    if (key == "maxSkew") {
      int32_t skew = 0;
      has_skew = true;
      if (!v.IsScalar() || !YAML::convert<int32_t>::decode(v, skew)) {
        errors.push_back(absl::StrCat(field, ": must be an integer"));
      } else if (skew <= 0) {
        errors.push_back(
            absl::StrCat(field, ": Invalid value: ", skew, ": must be greater than zero"));
      } else {
        out.max_skew = skew;
      }
    } else if (key == "topologyKey") {
      has_key = true;
      if (!v.IsScalar() || v.Scalar().empty()) {
        errors.push_back(absl::StrCat(field, ": Required value: can not be empty"));
      } else {
        out.topology_key = v.Scalar();
      }
    } else if (key == "whenUnsatisfiable") {
      has_when = true;
      const std::string w = v.IsScalar() ? v.Scalar() : "";
      if (w == "DoNotSchedule") {
        out.when_unsatisfiable = kube::UnsatisfiableConstraintAction::kDoNotSchedule;
      } else if (w == "ScheduleAnyway") {
        out.when_unsatisfiable = kube::UnsatisfiableConstraintAction::kScheduleAnyway;
      } else {
        errors.push_back(
            absl::StrCat(field, ": Unsupported value: \"", w,
                         "\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""));
      }
    } else if (key == "labelSelector") {
      errors.push_back(absl::StrCat(field,
                                    ": Forbidden: constraint must not define a selector, "
                                    "as they deduced for each pod"));
    } else {
      errors.push_back(absl::StrCat(field, ": unknown field"));
    }
  }
  if (!has_skew)
    errors.push_back(absl::StrCat(Child(path, "maxSkew"), ": must be greater than zero"));
  if (!has_key)
    errors.push_back(
        absl::StrCat(Child(path, "topologyKey"), ": Required value: can not be empty"));
  if (!has_when) {
    errors.push_back(absl::StrCat(Child(path, "whenUnsatisfiable"),
                                  ": Unsupported value: \"\": supported values: \"DoNotSchedule\", "
                                  "\"ScheduleAnyway\""));
  }
}

}  // namespace

std::vector<DefaultSpreadConstraint> SystemDefaultSpreadConstraints() {
  return {{3, "kubernetes.io/hostname", kube::UnsatisfiableConstraintAction::kScheduleAnyway},
          {5, "topology.kubernetes.io/zone", kube::UnsatisfiableConstraintAction::kScheduleAnyway}};
}

absl::StatusOr<PodTopologySpreadArgs> DecodePodTopologySpreadArgs(const PluginArgs& plugin_args) {
  PodTopologySpreadArgs args;
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
    const std::string field = Child(path, key);
    const YAML::Node& v = entry.second;
    if (key == "apiVersion") continue;
    if (key == "kind") {
      if (!v.IsScalar() || v.Scalar() != "PodTopologySpreadArgs") {
        errors.push_back(absl::StrCat(field, ": must be \"PodTopologySpreadArgs\""));
      }
    } else if (key == "defaultingType") {
      const std::string t = v.IsScalar() ? v.Scalar() : "";
      if (t == "System") {
        args.defaulting_type = SpreadDefaultingType::kSystem;
      } else if (t == "List") {
        args.defaulting_type = SpreadDefaultingType::kList;
      } else {
        errors.push_back(absl::StrCat(field, ": Unsupported value: \"", t,
                                      "\": supported values: \"List\", \"System\""));
      }
    } else if (key == "defaultConstraints") {
      if (v.IsNull()) continue;
      if (!v.IsSequence()) {
        errors.push_back(absl::StrCat(field, ": must be a list"));
        continue;
      }
      std::set<std::pair<std::string, kube::UnsatisfiableConstraintAction>> seen;
      for (size_t i = 0; i < v.size(); ++i) {
        const std::string item = absl::StrCat(field, "[", i, "]");
        DefaultSpreadConstraint c;
        const size_t before = errors.size();
        DecodeConstraint(v[i], item, errors, c);
        if (errors.size() != before) continue;
        if (!seen.insert({c.topology_key, c.when_unsatisfiable}).second) {
          errors.push_back(absl::StrCat(item, ": Duplicate value: {", c.topology_key, ", ",
                                        std::string(kube::ToString(c.when_unsatisfiable)), "}"));
          continue;
        }
        args.default_constraints.push_back(std::move(c));
      }
    } else {
      errors.push_back(absl::StrCat(field, ": unknown field"));
    }
  }
  if (args.defaulting_type == SpreadDefaultingType::kSystem && !args.default_constraints.empty()) {
    errors.push_back(absl::StrCat(Child(path, "defaultingType"),
                                  ": Invalid value: \"System\": when .defaultConstraints are not "
                                  "empty"));
  }
  if (!errors.empty()) return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
  return args;
}

}  // namespace trimaran::sched::plugins
