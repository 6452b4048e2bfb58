#include "scheduler/plugins/target_load_packing/args.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "kube/api/quantity.h"
#include "scheduler/plugins/helper/args_decoding.h"

namespace trimaran::sched::plugins {
namespace {

using helper::ChildPath;
using helper::FieldErrors;
using helper::IndexPath;
using helper::Present;

constexpr absl::string_view kKind = "TargetLoadPackingArgs";

void DecodeDefaultRequests(const YAML::Node& node, absl::string_view path,
                           TargetLoadPackingArgs& args, FieldErrors& errors) {
  if (!node.IsMap()) {
    errors.Add(path, "must be a mapping of resource name to quantity");
    return;
  }
  // An explicit map replaces the default: a missing cpu key means 0 (spec §2.1).
  args.default_requests_milli_cpu = 0;
  args.default_requests_memory = 0;
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const std::string item_path = ChildPath(path, key);
    auto text = helper::DecodeString(entry.second, item_path, errors);
    if (!text.has_value()) continue;
    absl::StatusOr<kube::Quantity> q = kube::Quantity::Parse(*text);
    if (!q.ok()) {
      errors.Add(item_path, absl::StrCat("must be a quantity, got \"", *text, "\""));
      continue;
    }
    if (key == kube::kResourceCPU) {
      args.default_requests_milli_cpu = q->MilliValue();
    } else if (key == kube::kResourceMemory) {
      args.default_requests_memory = q->Value();
    }
    // Other resources are accepted and ignored, as upstream.
  }
}

void DecodeResources(const YAML::Node& node, absl::string_view path, std::optional<int64_t> target,
                     std::vector<TargetLoadPackingResource>& out, FieldErrors& errors) {
  helper::DecodeList(node, path, errors, [&](const YAML::Node& item, const std::string& item_path) {
    if (!helper::DecodeMapKeys(item, item_path, {"name", "weight", "targetUtilization"}, errors)) {
      return;
    }
    TargetLoadPackingResource r;
    r.target_utilization = target.value_or(0);  // resolved after the top level is defaulted
    if (Present(item["name"])) {
      r.name =
          helper::DecodeString(item["name"], ChildPath(item_path, "name"), errors).value_or("");
    }
    if (Present(item["weight"])) {
      r.weight = helper::DecodeDecimalInt(item["weight"], ChildPath(item_path, "weight"), errors)
                     .value_or(1);
    }
    if (Present(item["targetUtilization"])) {
      r.target_utilization =
          helper::DecodeDecimalInt(item["targetUtilization"],
                                   ChildPath(item_path, "targetUtilization"), errors)
              .value_or(40);
    }
    out.push_back(std::move(r));
  });
}

void Validate(const TargetLoadPackingArgs& args, absl::string_view path, FieldErrors& errors) {
  if (args.target_utilization < 1 || args.target_utilization > 100) {
    errors.Add(ChildPath(path, "targetUtilization"),
               absl::StrCat("must be in [1, 100], got ", args.target_utilization));
  }
  if (args.default_requests_milli_cpu < 0) {
    errors.Add(ChildPath(ChildPath(path, "defaultRequests"), "cpu"), "must not be negative");
  }
  if (args.default_requests_memory < 0) {
    errors.Add(ChildPath(ChildPath(path, "defaultRequests"), "memory"), "must not be negative");
  }
  const std::string resources_path = ChildPath(path, "resources");
  bool seen_cpu = false, seen_memory = false;
  for (size_t i = 0; i < args.resources.size(); ++i) {
    const TargetLoadPackingResource& r = args.resources[i];
    const std::string item_path = IndexPath(resources_path, i);
    bool* seen = r.name == kube::kResourceCPU      ? &seen_cpu
                 : r.name == kube::kResourceMemory ? &seen_memory
                                                   : nullptr;
    if (seen == nullptr) {
      errors.Add(ChildPath(item_path, "name"),
                 absl::StrCat("Unsupported value: \"", r.name,
                              "\": supported values: \"cpu\", \"memory\""));
    } else if (*seen) {
      errors.Add(ChildPath(item_path, "name"), absl::StrCat("Duplicate value: \"", r.name, "\""));
    } else {
      *seen = true;
    }
    if (r.weight < 1 || r.weight > 100) {
      errors.Add(ChildPath(item_path, "weight"),
                 absl::StrCat("must be in [1, 100], got ", r.weight));
    }
    if (r.target_utilization < 1 || r.target_utilization > 100) {
      errors.Add(ChildPath(item_path, "targetUtilization"),
                 absl::StrCat("must be in [1, 100], got ", r.target_utilization));
    }
  }
}

}  // namespace

TargetLoadPackingArgs DefaultTargetLoadPackingArgs() {
  TargetLoadPackingArgs args;
  args.trimaran = load_aware::DefaultTrimaranSpec();
  args.resources = {{std::string(kube::kResourceCPU), 1, args.target_utilization}};
  return args;
}

absl::StatusOr<TargetLoadPackingArgs> DecodeTargetLoadPackingArgs(const PluginArgs& plugin_args) {
  TargetLoadPackingArgs args = DefaultTargetLoadPackingArgs();
  FieldErrors errors;
  if (!load_aware::DecodeTrimaranArgs(
          plugin_args, kKind,
          {"defaultRequests", "defaultRequestsMultiplier", "targetUtilization", "resources"},
          args.trimaran, errors)) {
    return errors.ToStatusOr(std::move(args));
  }
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;

  std::optional<int64_t> explicit_target;
  if (Present(node["targetUtilization"])) {
    explicit_target = helper::DecodeDecimalInt(node["targetUtilization"],
                                               ChildPath(path, "targetUtilization"), errors);
    // Upstream v1 defaulting: nil or <= 0 -> 40.
    args.target_utilization = explicit_target.value_or(40) <= 0 ? 40 : explicit_target.value_or(40);
  }
  if (Present(node["defaultRequests"])) {
    DecodeDefaultRequests(node["defaultRequests"], ChildPath(path, "defaultRequests"), args,
                          errors);
  }
  if (Present(node["defaultRequestsMultiplier"])) {
    const std::string m_path = ChildPath(path, "defaultRequestsMultiplier");
    if (auto s = helper::DecodeString(node["defaultRequestsMultiplier"], m_path, errors)) {
      args.default_requests_multiplier = *s;
      double m = 0;
      if (!absl::SimpleAtod(*s, &m) || !std::isfinite(m)) {
        errors.Add(m_path, absl::StrCat("unable to parse DefaultRequestsMultiplier: \"", *s,
                                        "\" is not a number"));
      } else if (m < 0) {
        errors.Add(m_path, absl::StrCat("must not be negative, got ", *s));
      } else {
        args.multiplier = m;
      }
    }
  }
  if (Present(node["resources"])) {
    args.resources.clear();
    DecodeResources(node["resources"], ChildPath(path, "resources"), std::nullopt, args.resources,
                    errors);
    for (TargetLoadPackingResource& r : args.resources) {
      if (r.target_utilization == 0) r.target_utilization = args.target_utilization;
    }
    if (args.resources.empty()) {
      errors.Add(ChildPath(path, "resources"), "Required value: at least one resource");
    }
  } else {
    args.resources[0].target_utilization = args.target_utilization;
  }
  Validate(args, path, errors);
  if (!errors.empty()) return errors.ToStatus();
  return args;
}

}  // namespace trimaran::sched::plugins
