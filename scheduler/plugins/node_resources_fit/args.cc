#include "scheduler/plugins/node_resources_fit/args.h"

#include <cstddef>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "scheduler/plugins/helper/args_decoding.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kKind = "NodeResourcesFitArgs";
constexpr int64_t kMaxResourceWeight = 100;
constexpr int32_t kMaxUtilization = 100;
constexpr int32_t kMaxCustomPriorityScore = 10;

using helper::ChildPath;
using helper::DecodeMapKeys;
using helper::DecodeString;
using helper::FieldErrors;
using helper::IndexPath;
using helper::Present;

// ---- Qualified names (metav1validation.ValidateLabelName) ----

bool IsAlnum(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); }

// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at most 63 characters.
bool IsQualifiedNamePart(absl::string_view s) {
  if (s.empty() || s.size() > 63 || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// A DNS-1123 subdomain: lower-case alphanumerics, '-' and '.', starting and ending
// alphanumeric, at most 253 characters.
bool IsDNS1123Subdomain(absl::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_alnum(s.front()) || !lower_alnum(s.back())) return false;
  for (char c : s) {
    if (!lower_alnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

// "[prefix/]name" with a DNS-1123 subdomain prefix.
bool IsQualifiedName(absl::string_view s) {
  const size_t slash = s.find('/');
  if (slash == absl::string_view::npos) return IsQualifiedNamePart(s);
  if (s.find('/', slash + 1) != absl::string_view::npos) return false;
  return IsDNS1123Subdomain(s.substr(0, slash)) && IsQualifiedNamePart(s.substr(slash + 1));
}

constexpr absl::string_view kQualifiedNameMessage =
    "must be a qualified name: an optional DNS subdomain prefix and '/', then 1-63 "
    "alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric "
    "character (e.g. \"example.com/my-resource\")";

// ---- YAML decoding helpers ----

std::optional<int64_t> DecodeInt(const YAML::Node& node, absl::string_view path, int64_t min,
                                 int64_t max, FieldErrors& errors) {
  if (const std::optional<int64_t> v = helper::ParseInt(node); v && *v >= min && *v <= max) {
    return v;
  }
  errors.Add(path, absl::StrCat("must be an integer in [", min, ", ", max, "]"));
  return std::nullopt;
}

void DecodeStringList(const YAML::Node& node, absl::string_view path, std::vector<std::string>& out,
                      FieldErrors& errors) {
  if (!Present(node)) return;
  helper::DecodeList(
      node, path, errors,
      [&](const YAML::Node& item, const std::string& item_path) {
        if (auto s = DecodeString(item, item_path, errors)) out.push_back(std::move(*s));
      },
      "must be a list of strings");
}

void DecodeResources(const YAML::Node& node, absl::string_view path, std::vector<ResourceSpec>& out,
                     FieldErrors& errors) {
  if (!Present(node)) return;
  helper::DecodeList(node, path, errors, [&](const YAML::Node& item, const std::string& item_path) {
    ResourceSpec spec;
    if (!DecodeMapKeys(item, item_path, {"name", "weight"}, errors)) return;
    if (Present(item["name"])) {
      spec.name = DecodeString(item["name"], ChildPath(item_path, "name"), errors).value_or("");
    }
    if (Present(item["weight"])) {
      // Range errors beyond int64 only; (0, 100] is Validate's job.
      spec.weight = DecodeInt(item["weight"], ChildPath(item_path, "weight"),
                              std::numeric_limits<int64_t>::min(),
                              std::numeric_limits<int64_t>::max(), errors)
                        .value_or(1);
    }
    out.push_back(std::move(spec));
  });
}

void DecodeShape(const YAML::Node& node, absl::string_view path,
                 std::vector<UtilizationShapePoint>& out, FieldErrors& errors) {
  if (!Present(node)) return;
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  helper::DecodeList(node, path, errors, [&](const YAML::Node& item, const std::string& item_path) {
    UtilizationShapePoint point;
    if (!DecodeMapKeys(item, item_path, {"utilization", "score"}, errors)) return;
    if (Present(item["utilization"])) {
      point.utilization = static_cast<int32_t>(
          DecodeInt(item["utilization"], ChildPath(item_path, "utilization"), kMin, kMax, errors)
              .value_or(0));
    }
    if (Present(item["score"])) {
      point.score = static_cast<int32_t>(
          DecodeInt(item["score"], ChildPath(item_path, "score"), kMin, kMax, errors).value_or(0));
    }
    out.push_back(point);
  });
}

// Decodes scoringStrategy; a missing or unknown type is reported (upstream has no
// default type inside an explicit strategy).
void DecodeScoringStrategy(const YAML::Node& node, absl::string_view path, ScoringStrategy& out,
                           FieldErrors& errors) {
  if (!DecodeMapKeys(node, path, {"type", "resources", "requestedToCapacityRatio"}, errors)) return;
  const std::string type_path = ChildPath(path, "type");
  std::string type;
  if (Present(node["type"])) type = DecodeString(node["type"], type_path, errors).value_or("");
  if (type == ScoringStrategyTypeName(ScoringStrategyType::kLeastAllocated)) {
    out.type = ScoringStrategyType::kLeastAllocated;
  } else if (type == ScoringStrategyTypeName(ScoringStrategyType::kMostAllocated)) {
    out.type = ScoringStrategyType::kMostAllocated;
  } else if (type == ScoringStrategyTypeName(ScoringStrategyType::kRequestedToCapacityRatio)) {
    out.type = ScoringStrategyType::kRequestedToCapacityRatio;
  } else {
    errors.Add(type_path, absl::StrCat("Unsupported value: \"", type,
                                       "\": supported values: \"LeastAllocated\", "
                                       "\"MostAllocated\", \"RequestedToCapacityRatio\""));
  }
  DecodeResources(node["resources"], ChildPath(path, "resources"), out.resources, errors);
  const YAML::Node rtcr = node["requestedToCapacityRatio"];
  if (Present(rtcr)) {
    const std::string rtcr_path = ChildPath(path, "requestedToCapacityRatio");
    if (DecodeMapKeys(rtcr, rtcr_path, {"shape"}, errors)) {
      RequestedToCapacityRatioParam param;
      DecodeShape(rtcr["shape"], ChildPath(rtcr_path, "shape"), param.shape, errors);
      out.requested_to_capacity_ratio = std::move(param);
    }
  }
}

void Validate(const NodeResourcesFitArgs& args, absl::string_view path, FieldErrors& errors) {
  const std::string ignored_path = ChildPath(path, "ignoredResources");
  for (size_t i = 0; i < args.ignored_resources.size(); ++i) {
    if (!IsQualifiedName(args.ignored_resources[i])) {
      errors.Add(IndexPath(ignored_path, i), kQualifiedNameMessage);
    }
  }
  const std::string groups_path = ChildPath(path, "ignoredResourceGroups");
  for (size_t i = 0; i < args.ignored_resource_groups.size(); ++i) {
    const std::string& group = args.ignored_resource_groups[i];
    if (group.find('/') != std::string::npos) {
      errors.Add(IndexPath(groups_path, i), "resource group name can't contain '/'");
    } else if (!IsQualifiedName(group)) {
      errors.Add(IndexPath(groups_path, i), kQualifiedNameMessage);
    }
  }

  const ScoringStrategy& strategy = args.scoring_strategy;
  const std::string strategy_path = ChildPath(path, "scoringStrategy");
  const std::string resources_path = ChildPath(strategy_path, "resources");
  for (size_t i = 0; i < strategy.resources.size(); ++i) {
    const ResourceSpec& r = strategy.resources[i];
    if (r.name.empty())
      errors.Add(ChildPath(IndexPath(resources_path, i), "name"), "Required value");
    if (r.weight <= 0 || r.weight > kMaxResourceWeight) {
      errors.Add(ChildPath(IndexPath(resources_path, i), "weight"),
                 absl::StrCat("must be in (0, 100], got ", r.weight));
    }
  }

  const std::string rtcr_path = ChildPath(strategy_path, "requestedToCapacityRatio");
  const bool is_rtcr = strategy.type == ScoringStrategyType::kRequestedToCapacityRatio;
  if (!is_rtcr) {
    if (strategy.requested_to_capacity_ratio.has_value()) {
      errors.Add(rtcr_path, absl::StrCat("Forbidden: only allowed with type "
                                         "RequestedToCapacityRatio, not ",
                                         ScoringStrategyTypeName(strategy.type)));
    }
    return;
  }
  if (!strategy.requested_to_capacity_ratio.has_value()) {
    errors.Add(rtcr_path, "Required value: type RequestedToCapacityRatio needs a shape");
    return;
  }
  const std::vector<UtilizationShapePoint>& shape = strategy.requested_to_capacity_ratio->shape;
  const std::string shape_path = ChildPath(rtcr_path, "shape");
  if (shape.empty()) {
    errors.Add(shape_path, "Required value: at least one point must be specified");
    return;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errors.Add(ChildPath(IndexPath(shape_path, i), "utilization"),
                 absl::StrCat("utilization values must be sorted in strictly increasing order, "
                              "got ",
                              shape[i].utilization, " after ", shape[i - 1].utilization));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].utilization < 0 || shape[i].utilization > kMaxUtilization) {
      errors.Add(ChildPath(IndexPath(shape_path, i), "utilization"),
                 absl::StrCat("must be in [0, 100], got ", shape[i].utilization));
    }
    if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
      errors.Add(ChildPath(IndexPath(shape_path, i), "score"),
                 absl::StrCat("must be in [0, 10], got ", shape[i].score));
    }
  }
}

std::vector<ResourceSpec> DefaultResources() { return {{"cpu", 1}, {"memory", 1}}; }

}  // namespace

absl::string_view ScoringStrategyTypeName(ScoringStrategyType type) {
  switch (type) {
    case ScoringStrategyType::kLeastAllocated:
      return "LeastAllocated";
    case ScoringStrategyType::kMostAllocated:
      return "MostAllocated";
    case ScoringStrategyType::kRequestedToCapacityRatio:
      return "RequestedToCapacityRatio";
  }
  return "Unknown";
}

NodeResourcesFitArgs DefaultNodeResourcesFitArgs() {
  NodeResourcesFitArgs args;
  args.scoring_strategy.type = ScoringStrategyType::kLeastAllocated;
  args.scoring_strategy.resources = DefaultResources();
  return args;
}

void SetDefaults(NodeResourcesFitArgs& args) {
  std::vector<ResourceSpec>& resources = args.scoring_strategy.resources;
  if (resources.empty()) resources = DefaultResources();
  for (ResourceSpec& r : resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

absl::Status ValidateNodeResourcesFitArgs(const NodeResourcesFitArgs& args,
                                          absl::string_view path) {
  FieldErrors errors;
  Validate(args, path, errors);
  return errors.ToStatus();
}

absl::StatusOr<NodeResourcesFitArgs> DecodeNodeResourcesFitArgs(const PluginArgs& plugin_args) {
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  NodeResourcesFitArgs args = DefaultNodeResourcesFitArgs();
  if (!Present(node)) return args;

  FieldErrors errors;
  if (DecodeMapKeys(
          node, path,
          {"apiVersion", "kind", "ignoredResources", "ignoredResourceGroups", "scoringStrategy"},
          errors)) {
    helper::CheckKind(node, path, kKind, errors);
    DecodeStringList(node["ignoredResources"], ChildPath(path, "ignoredResources"),
                     args.ignored_resources, errors);
    DecodeStringList(node["ignoredResourceGroups"], ChildPath(path, "ignoredResourceGroups"),
                     args.ignored_resource_groups, errors);
    if (Present(node["scoringStrategy"])) {
      // An explicit strategy replaces the default one entirely (then SetDefaults fills
      // in resources and weights).
      args.scoring_strategy = ScoringStrategy{};
      DecodeScoringStrategy(node["scoringStrategy"], ChildPath(path, "scoringStrategy"),
                            args.scoring_strategy, errors);
    }
  }
  SetDefaults(args);
  Validate(args, path, errors);
  if (!errors.empty()) return errors.ToStatus();
  return args;
}

}  // namespace trimaran::sched::plugins
