#pragma once
// NodeResourcesFitArgs (kubescheduler.config.k8s.io/v1, spec §1.8): what Filter may
// ignore and how Score rates a node. Decoded from a pluginConfig entry's `args`
// (PluginArgs), defaulted and validated here, so the plugin only ever sees valid args.
//
//   args:
//     ignoredResources: [example.com/foo]        # extended resources Filter ignores
//     ignoredResourceGroups: [example.com]       # ... by domain (no '/')
//     scoringStrategy:
//       type: MostAllocated                      # LeastAllocated | MostAllocated |
//                                                # RequestedToCapacityRatio
//       resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
//       requestedToCapacityRatio:                # RequestedToCapacityRatio only
//         shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
//
// Defaults (upstream SetDefaults_NodeResourcesFitArgs): no scoringStrategy ->
// {LeastAllocated, [cpu:1, memory:1]}; empty resources -> [cpu:1, memory:1]; weight 0
// -> 1. A scoringStrategy without `type` is invalid, as upstream.
//
// Validation (every error is reported, each prefixed with its field path):
// ignored names are qualified names, groups contain no '/'; type is supported;
// weights in (0, 100]; RequestedToCapacityRatio needs requestedToCapacityRatio with at
// least one shape point, utilizations strictly increasing within [0, 100], scores
// within [0, 10]; requestedToCapacityRatio is forbidden with the other types.
//
// Thread-safety: plain values and pure functions.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

enum class ScoringStrategyType {
  kLeastAllocated,
  kMostAllocated,
  kRequestedToCapacityRatio,
};

// "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio".
absl::string_view ScoringStrategyTypeName(ScoringStrategyType type);

// A resource to score and its weight.
struct ResourceSpec {
  std::string name;
  int64_t weight = 0;

  friend bool operator==(const ResourceSpec&, const ResourceSpec&) = default;
};

// One point of the RequestedToCapacityRatio shape: utilization in [0, 100] (percent),
// score in [0, 10] (MaxCustomPriorityScore; scaled ×10 to the 0..100 node score).
struct UtilizationShapePoint {
  int32_t utilization = 0;
  int32_t score = 0;

  friend bool operator==(const UtilizationShapePoint&, const UtilizationShapePoint&) = default;
};

struct RequestedToCapacityRatioParam {
  std::vector<UtilizationShapePoint> shape;

  friend bool operator==(const RequestedToCapacityRatioParam&,
                         const RequestedToCapacityRatioParam&) = default;
};

struct ScoringStrategy {
  ScoringStrategyType type = ScoringStrategyType::kLeastAllocated;
  std::vector<ResourceSpec> resources;
  // Set iff type is kRequestedToCapacityRatio (after validation).
  std::optional<RequestedToCapacityRatioParam> requested_to_capacity_ratio;

  friend bool operator==(const ScoringStrategy&, const ScoringStrategy&) = default;
};

struct NodeResourcesFitArgs {
  // Extended resources (exact names) Filter does not check.
  std::vector<std::string> ignored_resources;
  // Domains (the part of an extended resource's name before '/') Filter does not check.
  std::vector<std::string> ignored_resource_groups;
  ScoringStrategy scoring_strategy;

  friend bool operator==(const NodeResourcesFitArgs&, const NodeResourcesFitArgs&) = default;
};

// The defaults: no ignored resources, {LeastAllocated, [cpu:1, memory:1]}.
NodeResourcesFitArgs DefaultNodeResourcesFitArgs();

// Applies upstream's defaulting in place (empty resources, zero weights).
void SetDefaults(NodeResourcesFitArgs& args);

// OK, or InvalidArgument listing every field error ("<path>.scoringStrategy.resources[0]
// .weight: must be in (0, 100], got 0"), joined with "; ". `path` is
// PluginArgs::path ("" for none).
absl::Status ValidateNodeResourcesFitArgs(const NodeResourcesFitArgs& args, absl::string_view path);

// Decodes `args.args` (a Null node means "all defaults"), applies SetDefaults and
// validates. Unknown fields and wrongly typed values are field errors too (decoding is
// strict, as upstream's); `apiVersion` is accepted and `kind`, when present, must be
// "NodeResourcesFitArgs". All errors are reported together as InvalidArgument.
absl::StatusOr<NodeResourcesFitArgs> DecodeNodeResourcesFitArgs(const PluginArgs& args);

}  // namespace trimaran::sched::plugins
