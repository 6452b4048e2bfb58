#pragma once
// The scheduler extender wire types (spec kube-scheduler.md §7.3; upstream's
// k8s.io/kube-scheduler/extender/v1 ExtenderArgs, ExtenderFilterResult, HostPriority,
// ExtenderBindingArgs, ExtenderBindingResult), as kube-scheduler 1.20 sends and reads
// them. The JSON form (Go field names, matched case-insensitively) is extender_codec.h's.
//
// Thread-safety: plain values.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kube/api/node.h"
#include "kube/api/pod.h"

namespace trimaran::sched::extender {

// A node of ExtenderArgs.Nodes (nodeCacheCapable false): the decoded object and its JSON
// exactly as received, so that a filter answer echoes it byte for byte.
struct WireNode {
  std::shared_ptr<const kube::Node> node;
  std::string json;
};

// The /filter and /prioritize request.
struct ExtenderArgs {
  kube::Pod pod;
  // "Nodes": set (possibly empty) when kube-scheduler sent full objects
  // (nodeCacheCapable false); nullopt for JSON null or absent.
  std::optional<std::vector<WireNode>> nodes;
  // "NodeNames": set when kube-scheduler sent names only (nodeCacheCapable true).
  std::optional<std::vector<std::string>> node_names;
};

// The /filter answer. Exactly one of `nodes` / `node_names` is set on success (the form
// of the request); both null with a non-empty `error`.
struct ExtenderFilterResult {
  std::optional<std::vector<WireNode>> nodes;
  std::optional<std::vector<std::string>> node_names;
  std::map<std::string, std::string> failed_nodes;
  std::map<std::string, std::string> failed_and_unresolvable_nodes;
  std::string error;
};

// One entry of the /prioritize answer (HostPriorityList). Score in [0, 10].
struct HostPriority {
  std::string host;
  int64_t score = 0;
  bool operator==(const HostPriority&) const = default;
};

// The extender's score range (upstream's MinExtenderPriority / MaxExtenderPriority).
inline constexpr int64_t kMinExtenderPriority = 0;
inline constexpr int64_t kMaxExtenderPriority = 10;

// The /bind request.
struct ExtenderBindingArgs {
  std::string pod_name;
  std::string pod_namespace;
  std::string pod_uid;
  std::string node;
  bool operator==(const ExtenderBindingArgs&) const = default;
};

// The /bind answer.
struct ExtenderBindingResult {
  std::string error;
};

}  // namespace trimaran::sched::extender
