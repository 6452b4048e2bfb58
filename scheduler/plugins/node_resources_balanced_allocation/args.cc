#include "scheduler/plugins/node_resources_balanced_allocation/args.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "scheduler/plugins/helper/args_decoding.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kKind = "NodeResourcesBalancedAllocationArgs";

using helper::ChildPath;
using helper::FieldErrors;
using helper::Present;

void Validate(const NodeResourcesBalancedAllocationArgs& args, absl::string_view path,
              FieldErrors& errors) {
  const std::string resources_path = ChildPath(path, "resources");
  absl::flat_hash_set<std::string> seen;
  for (size_t i = 0; i < args.resources.size(); ++i) {
    const ResourceSpec& r = args.resources[i];
    const std::string item = helper::IndexPath(resources_path, i);
    if (r.name.empty()) {
      errors.Add(ChildPath(item, "name"), "Required value");
    } else if (!seen.insert(r.name).second) {
      errors.Add(ChildPath(item, "name"), absl::StrCat("Duplicate value: \"", r.name, "\""));
    }
    if (r.weight != 1)
      errors.Add(ChildPath(item, "weight"), absl::StrCat("must be 1, got ", r.weight));
  }
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
  FieldErrors errors;
  Validate(args, path, errors);
  return errors.ToStatus();
}

absl::StatusOr<NodeResourcesBalancedAllocationArgs> DecodeNodeResourcesBalancedAllocationArgs(
    const PluginArgs& plugin_args) {
  const YAML::Node& node = plugin_args.args;
  const absl::string_view path = plugin_args.path;
  NodeResourcesBalancedAllocationArgs args;
  FieldErrors errors;
  if (Present(node) &&
      helper::DecodeMapKeys(node, path, {"apiVersion", "kind", "resources"}, errors)) {
    helper::CheckKind(node, path, kKind, errors);
    if (const YAML::Node resources = node["resources"]; Present(resources)) {
      helper::DecodeList(
          resources, ChildPath(path, "resources"), errors,
          [&](const YAML::Node& item, const std::string& item_path) {
            if (!helper::DecodeMapKeys(item, item_path, {"name", "weight"}, errors)) return;
            ResourceSpec spec;
            if (Present(item["name"])) {
              spec.name = helper::DecodeString(item["name"], ChildPath(item_path, "name"), errors)
                              .value_or("");
            }
            if (Present(item["weight"])) {
              spec.weight =
                  helper::DecodeInt(item["weight"], ChildPath(item_path, "weight"), errors)
                      .value_or(1);
            }
            args.resources.push_back(std::move(spec));
          });
    }
  }
  SetDefaults(args);
  Validate(args, path, errors);
  if (!errors.empty()) return errors.ToStatus();
  return args;
}

}  // namespace trimaran::sched::plugins
