#include "scheduler/plugins/node_resources_fit/args.h"

#include <cstddef>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kKind = "NodeResourcesFitArgs";
constexpr int64_t kMaxResourceWeight = 100;
constexpr int32_t kMaxUtilization = 100;
constexpr int32_t kMaxCustomPriorityScore = 10;

// Field errors, in the order found.
class Errors {
 public:
  void Add(absl::string_view path, absl::string_view message) {
    list_.push_back(absl::StrCat(path, ": ", message));
  }
  bool empty() const { return list_.empty(); }
  absl::Status ToStatus() const {
    if (list_.empty()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrJoin(list_, "; "));
  }

 private:
  std::vector<std::string> list_;
};

std::string Child(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}
std::string Index(absl::string_view path, size_t i) { return absl::StrCat(path, "[", i, "]"); }

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

bool Present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

// Checks that `node` is a mapping whose keys are all in `known`.
bool DecodeMap(const YAML::Node& node, absl::string_view path,
               std::initializer_list<absl::string_view> known, Errors& errors) {
  if (!node.IsMap()) {
    errors.Add(path.empty() ? "args" : path, "must be a mapping");
    return false;
  }
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      errors.Add(path.empty() ? "args" : path, "keys must be strings");
      continue;
    }
    const std::string& key = entry.first.Scalar();
    bool found = false;
    for (absl::string_view k : known) found = found || k == key;
    if (!found) errors.Add(Child(path, key), "unknown field");
  }
  return true;
}

std::optional<std::string> DecodeString(const YAML::Node& node, absl::string_view path,
                                        Errors& errors) {
  if (!node.IsScalar()) {
    errors.Add(path, "must be a string");
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<int64_t> DecodeInt(const YAML::Node& node, absl::string_view path, int64_t min,
                                 int64_t max, Errors& errors) {
  if (node.IsScalar()) {
    try {
      const int64_t v = node.as<int64_t>();
      if (v >= min && v <= max) return v;
    } catch (const YAML::Exception&) {
      // Falls through to the error below.
    }
  }
  errors.Add(path, absl::StrCat("must be an integer in [", min, ", ", max, "]"));
  return std::nullopt;
}

void DecodeStringList(const YAML::Node& node, absl::string_view path, std::vector<std::string>& out,
                      Errors& errors) {
  if (!Present(node)) return;
  if (!node.IsSequence()) {
    errors.Add(path, "must be a list of strings");
    return;
  }
  for (size_t i = 0; i < node.size(); ++i) {
    if (auto s = DecodeString(node[i], Index(path, i), errors)) out.push_back(std::move(*s));
  }
}

void DecodeResources(const YAML::Node& node, absl::string_view path, std::vector<ResourceSpec>& out,
                     Errors& errors) {
  if (!Present(node)) return;
  if (!node.IsSequence()) {
    errors.Add(path, "must be a list");
    return;
  }
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string item_path = Index(path, i);
    const YAML::Node item = node[i];
    ResourceSpec spec;
    if (!DecodeMap(item, item_path, {"name", "weight"}, errors)) continue;
    if (Present(item["name"])) {
      spec.name = DecodeString(item["name"], Child(item_path, "name"), errors).value_or("");
    }
    if (Present(item["weight"])) {
      // Range errors beyond int64 only; (0, 100] is Validate's job.
      spec.weight =
          DecodeInt(item["weight"], Child(item_path, "weight"), std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max(), errors)
              .value_or(1);
    }
    out.push_back(std::move(spec));
  }
}

void DecodeShape(const YAML::Node& node, absl::string_view path,
                 std::vector<UtilizationShapePoint>& out, Errors& errors) {
  if (!Present(node)) return;
  if (!node.IsSequence()) {
    errors.Add(path, "must be a list");
    return;
  }
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string item_path = Index(path, i);
    const YAML::Node item = node[i];
    UtilizationShapePoint point;
    if (!DecodeMap(item, item_path, {"utilization", "score"}, errors)) continue;
    if (Present(item["utilization"])) {
      point.utilization = static_cast<int32_t>(
          DecodeInt(item["utilization"], Child(item_path, "utilization"), kMin, kMax, errors)
              .value_or(0));
    }
    if (Present(item["score"])) {
      point.score = static_cast<int32_t>(
          DecodeInt(item["score"], Child(item_path, "score"), kMin, kMax, errors).value_or(0));
    }
    out.push_back(point);
  }
}

// Decodes scoringStrategy; a missing or unknown type is reported (upstream has no
// default type inside an explicit strategy).
void DecodeScoringStrategy(const YAML::Node& node, absl::string_view path, ScoringStrategy& out,
                           Errors& errors) {
  if (!DecodeMap(node, path, {"type", "resources", "requestedToCapacityRatio"}, errors)) return;
  const std::string type_path = Child(path, "type");
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
  DecodeResources(node["resources"], Child(path, "resources"), out.resources, errors);
  const YAML::Node rtcr = node["requestedToCapacityRatio"];
  if (Present(rtcr)) {
    const std::string rtcr_path = Child(path, "requestedToCapacityRatio");
    if (DecodeMap(rtcr, rtcr_path, {"shape"}, errors)) {
      RequestedToCapacityRatioParam param;
      DecodeShape(rtcr["shape"], Child(rtcr_path, "shape"), param.shape, errors);
      out.requested_to_capacity_ratio = std::move(param);
    }
  }
}

void Validate(const NodeResourcesFitArgs& args, absl::string_view path, Errors& errors) {
  const std::string ignored_path = Child(path, "ignoredResources");
  for (size_t i = 0; i < args.ignored_resources.size(); ++i) {
    if (!IsQualifiedName(args.ignored_resources[i])) {
      errors.Add(Index(ignored_path, i), kQualifiedNameMessage);
    }
  }
  const std::string groups_path = Child(path, "ignoredResourceGroups");
  for (size_t i = 0; i < args.ignored_resource_groups.size(); ++i) {
    const std::string& group = args.ignored_resource_groups[i];
    if (group.find('/') != std::string::npos) {
      errors.Add(Index(groups_path, i), "resource group name can't contain '/'");
    } else if (!IsQualifiedName(group)) {
      errors.Add(Index(groups_path, i), kQualifiedNameMessage);
    }
  }

  const ScoringStrategy& strategy = args.scoring_strategy;
  const std::string strategy_path = Child(path, "scoringStrategy");
  const std::string resources_path = Child(strategy_path, "resources");
  for (size_t i = 0; i < strategy.resources.size(); ++i) {
    const ResourceSpec& r = strategy.resources[i];
    if (r.name.empty()) errors.Add(Child(Index(resources_path, i), "name"), "Required value");
    if (r.weight <= 0 || r.weight > kMaxResourceWeight) {
      errors.Add(Child(Index(resources_path, i), "weight"),
                 absl::StrCat("must be in (0, 100], got ", r.weight));
    }
  }

  const std::string rtcr_path = Child(strategy_path, "requestedToCapacityRatio");
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
  const std::string shape_path = Child(rtcr_path, "shape");
  if (shape.empty()) {
    errors.Add(shape_path, "Required value: at least one point must be specified");
    return;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errors.Add(Child(Index(shape_path, i), "utilization"),
                 absl::StrCat("utilization values must be sorted in strictly increasing order, "
                              "got ",
                              shape[i].utilization, " after ", shape[i - 1].utilization));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].utilization < 0 || shape[i].utilization > kMaxUtilization) {
      errors.Add(Child(Index(shape_path, i), "utilization"),
                 absl::StrCat("must be in [0, 100], got ", shape[i].utilization));
    }
    if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
      errors.Add(Child(Index(shape_path, i), "score"),
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
  Errors errors;
  Validate(args, path, errors);
  return errors.ToStatus();
}

absl::StatusOr<NodeResourcesFitArgs> DecodeNodeResourcesFitArgs(const PluginArgs& plugin_args) {
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  NodeResourcesFitArgs args = DefaultNodeResourcesFitArgs();
  if (!Present(node)) return args;

  Errors errors;
  if (DecodeMap(
          node, path,
          {"apiVersion", "kind", "ignoredResources", "ignoredResourceGroups", "scoringStrategy"},
          errors)) {
    if (Present(node["kind"])) {
      const std::string kind_path = Child(path, "kind");
      const std::optional<std::string> kind = DecodeString(node["kind"], kind_path, errors);
      if (kind.has_value() && *kind != kKind) {
        errors.Add(kind_path, absl::StrCat("must be \"", kKind, "\", got \"", *kind, "\""));
      }
    }
    DecodeStringList(node["ignoredResources"], Child(path, "ignoredResources"),
                     args.ignored_resources, errors);
    DecodeStringList(node["ignoredResourceGroups"], Child(path, "ignoredResourceGroups"),
                     args.ignored_resource_groups, errors);
    if (Present(node["scoringStrategy"])) {
      // An explicit strategy replaces the default one entirely (then SetDefaults fills
      // in resources and weights).
      args.scoring_strategy = ScoringStrategy{};
      DecodeScoringStrategy(node["scoringStrategy"], Child(path, "scoringStrategy"),
                            args.scoring_strategy, errors);
    }
  }
  SetDefaults(args);
  Validate(args, path, errors);
  if (!errors.empty()) return errors.ToStatus();
  return args;
}

}  // namespace trimaran::sched::plugins
