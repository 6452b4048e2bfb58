#include "scheduler/plugins/node_resources_balanced_allocation/args.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kKind = "NodeResourcesBalancedAllocationArgs";

std::string Child(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}
std::string Index(absl::string_view path, size_t i) { return absl::StrCat(path, "[", i, "]"); }
std::string Where(absl::string_view path) { return path.empty() ? "args" : std::string(path); }

bool Present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

// Field errors are "path: message".
using Errors = std::vector<std::string>;
void Add(Errors& errors, absl::string_view path, absl::string_view message) {
  errors.push_back(absl::StrCat(path, ": ", message));
}

// Checks that `node` is a mapping whose keys are all in `known`.
bool DecodeMap(const YAML::Node& node, absl::string_view path,
               std::initializer_list<absl::string_view> known, Errors& errors) {
  if (!node.IsMap()) {
    Add(errors, Where(path), "must be a mapping");
    return false;
  }
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) {
      Add(errors, Where(path), "keys must be strings");
      continue;
    }
    const std::string& key = entry.first.Scalar();
    bool found = false;
    for (absl::string_view k : known) found = found || k == key;
    if (!found) Add(errors, Child(path, key), "unknown field");
  }
  return true;
}

std::optional<std::string> DecodeString(const YAML::Node& node, absl::string_view path,
                                        Errors& errors) {
  if (!node.IsScalar()) {
    Add(errors, path, "must be a string");
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<int64_t> DecodeInt(const YAML::Node& node, absl::string_view path, Errors& errors) {
  if (node.IsScalar()) {
    try {
      return node.as<int64_t>();
    } catch (const YAML::Exception&) {
      // Falls through to the error below.
    }
  }
  Add(errors, path, "must be an integer");
  return std::nullopt;
}

void Validate(const NodeResourcesBalancedAllocationArgs& args, absl::string_view path,
              Errors& errors) {
  const std::string resources_path = Child(path, "resources");
  absl::flat_hash_set<std::string> seen;
  for (size_t i = 0; i < args.resources.size(); ++i) {
    const ResourceSpec& r = args.resources[i];
    const std::string item = Index(resources_path, i);
    if (r.name.empty()) {
      Add(errors, Child(item, "name"), "Required value");
    } else if (!seen.insert(r.name).second) {
      Add(errors, Child(item, "name"), absl::StrCat("Duplicate value: \"", r.name, "\""));
    }
    if (r.weight != 1)
      Add(errors, Child(item, "weight"), absl::StrCat("must be 1, got ", r.weight));
  }
}

absl::Status ToStatus(const Errors& errors) {
  if (errors.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(errors, "; "));
}

}  // namespace

NodeResourcesBalancedAllocationArgs DefaultNodeResourcesBalancedAllocationArgs() {
  return NodeResourcesBalancedAllocationArgs{{{"cpu", 1}, {"memory", 1}}};
}

void SetDefaults(NodeResourcesBalancedAllocationArgs& args) {
  if (args.resources.empty())
    args.resources = DefaultNodeResourcesBalancedAllocationArgs().resources;
  for (ResourceSpec& r : args.resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

absl::Status ValidateNodeResourcesBalancedAllocationArgs(
    const NodeResourcesBalancedAllocationArgs& args, absl::string_view path) {
  Errors errors;
  Validate(args, path, errors);
  return ToStatus(errors);
}

absl::StatusOr<NodeResourcesBalancedAllocationArgs> DecodeNodeResourcesBalancedAllocationArgs(
    const PluginArgs& plugin_args) {
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  NodeResourcesBalancedAllocationArgs args;
  Errors errors;
  if (Present(node) && DecodeMap(node, path, {"apiVersion", "kind", "resources"}, errors)) {
    if (Present(node["kind"])) {
      const std::string kind_path = Child(path, "kind");
      const std::optional<std::string> kind = DecodeString(node["kind"], kind_path, errors);
      if (kind.has_value() && *kind != kKind) {
        Add(errors, kind_path, absl::StrCat("must be \"", kKind, "\", got \"", *kind, "\""));
      }
    }
    const YAML::Node resources = node["resources"];
    const std::string resources_path = Child(path, "resources");
    if (Present(resources) && !resources.IsSequence()) {
      Add(errors, resources_path, "must be a list");
    } else if (Present(resources)) {
      for (size_t i = 0; i < resources.size(); ++i) {
        const std::string item_path = Index(resources_path, i);
        const YAML::Node item = resources[i];
        if (!DecodeMap(item, item_path, {"name", "weight"}, errors)) continue;
        ResourceSpec spec;
        if (Present(item["name"])) {
          spec.name = DecodeString(item["name"], Child(item_path, "name"), errors).value_or("");
        }
        if (Present(item["weight"])) {
          spec.weight = DecodeInt(item["weight"], Child(item_path, "weight"), errors).value_or(1);
        }
        args.resources.push_back(std::move(spec));
      }
    }
  }
  SetDefaults(args);
  Validate(args, path, errors);
  if (!errors.empty()) return ToStatus(errors);
  return args;
}

}  // namespace trimaran::sched::plugins
