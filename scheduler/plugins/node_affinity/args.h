#pragma once
// NodeAffinityArgs (kubescheduler.config.k8s.io/v1, spec kube-scheduler.md §1.8):
//
//   args:
//     addedAffinity:                       # optional; ANDed with every pod's affinity
//       requiredDuringSchedulingIgnoredDuringExecution:
//         nodeSelectorTerms:
//         - matchExpressions: [{key: zone, operator: In, values: [a, b]}]
//           matchFields: [{key: metadata.name, operator: In, values: [n1]}]
//       preferredDuringSchedulingIgnoredDuringExecution:
//       - weight: 10
//         preference: {matchExpressions: [...]}
//
// Decoding is strict, as upstream's: unknown fields and wrong types are errors
// (`apiVersion` and `kind` are accepted and ignored). There is nothing to default.
// Validate follows upstream's ValidateNodeAffinityArgs: at least one node selector term
// when `requiredDuring...` is given; every requirement well formed (helper::
// ValidateNodeSelectorTerm); preferred weights in [1, 100].
//
// Errors: InvalidArgument listing *every* field error, one per line, each prefixed
// with PluginArgs::path ("profiles[0].pluginConfig[1].args.addedAffinity...").
//
// Thread-safety: plain values and pure functions.

#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/api/affinity.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::plugins {

struct NodeAffinityArgs {
  // Ignored for every pod when unset. Only node_affinity-style fields are used.
  std::optional<kube::NodeAffinity> added_affinity;
};

// The defaults (no added affinity).
NodeAffinityArgs DefaultNodeAffinityArgs();

// Decodes `args.args` (a Null node gives the defaults) and validates the result.
absl::StatusOr<NodeAffinityArgs> DecodeNodeAffinityArgs(const PluginArgs& args);

// Every field error of `args`, prefixed with `path`; OK when valid.
absl::Status ValidateNodeAffinityArgs(const NodeAffinityArgs& args, absl::string_view path);

}  // namespace trimaran::sched::plugins
