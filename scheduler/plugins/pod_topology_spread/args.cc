#include "scheduler/plugins/pod_topology_spread/args.h"

#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/plugins/helper/args_decoding.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

using helper::ChildPath;

void DecodeConstraint(const YAML::Node& node, const std::string& path, helper::FieldErrors& errors,
                      DefaultSpreadConstraint& out) {
  if (!node.IsMap()) {
    errors.Add(path, "must be a mapping");
    return;
  }
  bool has_skew = false, has_key = false, has_when = false;
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const std::string field = ChildPath(path, key);
    const YAML::Node& v = entry.second;
    if (key == "maxSkew") {
      has_skew = true;
      const std::optional<int32_t> skew = helper::DecodeInt<int32_t>(v, field, errors);
      if (skew.has_value() && *skew <= 0) {
        errors.AddInvalidValue(field, *skew, "must be greater than zero");
      } else if (skew.has_value()) {
        out.max_skew = *skew;
      }
    } else if (key == "topologyKey") {
      has_key = true;
      if (!v.IsScalar() || v.Scalar().empty()) {
        errors.Add(field, "Required value: can not be empty");
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
        errors.Add(field,
                   absl::StrCat("Unsupported value: \"", w,
                                "\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""));
      }
    } else if (key == "labelSelector") {
      errors.Add(field,
                 "Forbidden: constraint must not define a selector, as they deduced for each pod");
    } else {
      errors.Add(field, "unknown field");
    }
  }
  if (!has_skew) errors.Add(ChildPath(path, "maxSkew"), "must be greater than zero");
  if (!has_key) errors.Add(ChildPath(path, "topologyKey"), "Required value: can not be empty");
  if (!has_when) {
    errors.Add(ChildPath(path, "whenUnsatisfiable"),
               "Unsupported value: \"\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
  }
}

}  // namespace

std::vector<DefaultSpreadConstraint> SystemDefaultSpreadConstraints() {
  return {{3, "kubernetes.io/hostname", kube::UnsatisfiableConstraintAction::kScheduleAnyway},
          {5, "topology.kubernetes.io/zone", kube::UnsatisfiableConstraintAction::kScheduleAnyway}};
}

absl::StatusOr<PodTopologySpreadArgs> DecodePodTopologySpreadArgs(const PluginArgs& plugin_args) {
  PodTopologySpreadArgs args;
  helper::FieldErrors errors;
  const bool decoded = helper::DecodeArgsFields(
      plugin_args, "PodTopologySpreadArgs", errors, [&](const helper::ArgsField& f) {
        const YAML::Node& v = f.value;
        if (f.key == "defaultingType") {
          const std::string t = v.IsScalar() ? v.Scalar() : "";
          if (t == "System") {
            args.defaulting_type = SpreadDefaultingType::kSystem;
          } else if (t == "List") {
            args.defaulting_type = SpreadDefaultingType::kList;
          } else {
            errors.Add(f.path, absl::StrCat("Unsupported value: \"", t,
                                            "\": supported values: \"List\", \"System\""));
          }
        } else if (f.key == "defaultConstraints") {
          if (v.IsNull()) return true;
          std::set<std::pair<std::string, kube::UnsatisfiableConstraintAction>> seen;
          helper::DecodeList(
              v, f.path, errors, [&](const YAML::Node& item, const std::string& path) {
                DefaultSpreadConstraint c;
                const size_t before = errors.size();
                DecodeConstraint(item, path, errors, c);
                if (errors.size() != before) return;
                if (!seen.insert({c.topology_key, c.when_unsatisfiable}).second) {
                  errors.Add(path,
                             absl::StrCat("Duplicate value: {", c.topology_key, ", ",
                                          std::string(kube::ToString(c.when_unsatisfiable)), "}"));
                  return;
                }
                args.default_constraints.push_back(std::move(c));
              });
        } else {
          return false;
        }
        return true;
      });
  if (decoded && args.defaulting_type == SpreadDefaultingType::kSystem &&
      !args.default_constraints.empty()) {
    errors.Add(ChildPath(plugin_args.path, "defaultingType"),
               "Invalid value: \"System\": when .defaultConstraints are not empty");
  }
  return errors.ToStatusOr(std::move(args));
}

}  // namespace trimaran::sched::plugins
