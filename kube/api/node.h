#pragma once
// Node (core/v1), reduced to what a scheduler reads: labels (topology, affinity),
// unschedulable and taints (filters), allocatable/capacity (resource fit), conditions,
// addresses and cached images (ImageLocality).
//
// Thread-safety: plain values; const access is safe for concurrent use, mutation is
// externally synchronized.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "kube/api/condition_status.h"
#include "kube/api/object_meta.h"
#include "kube/api/resource_list.h"
#include "kube/api/taint.h"

namespace trimaran::kube {

// Well-known node labels.
inline constexpr std::string_view kLabelHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kLabelTopologyZone = "topology.kubernetes.io/zone";
inline constexpr std::string_view kLabelTopologyRegion = "topology.kubernetes.io/region";
// Taint the node controller puts on spec.unschedulable nodes.
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";

struct NodeSpec {
  std::string pod_cidr;  // JSON "podCIDR"
  std::vector<std::string> pod_cidrs;
  std::string provider_id;  // JSON "providerID"
  // Cordoned: NodeUnschedulable rejects pods unless they tolerate the unschedulable taint.
  bool unschedulable = false;
  std::vector<Taint> taints;

  bool operator==(const NodeSpec&) const = default;
};

struct NodeCondition {
  std::string type;  // "Ready", "MemoryPressure", "DiskPressure", "PIDPressure", ...
  ConditionStatus status = ConditionStatus::kUnknown;
  std::optional<absl::Time> last_heartbeat_time;
  std::optional<absl::Time> last_transition_time;
  std::string reason;
  std::string message;

  bool operator==(const NodeCondition&) const = default;
};

struct NodeAddress {
  std::string type;  // "InternalIP", "ExternalIP", "Hostname", "InternalDNS", "ExternalDNS"
  std::string address;

  bool operator==(const NodeAddress&) const = default;
};

struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;

  bool operator==(const ContainerImage&) const = default;
};

struct NodeStatus {
  ResourceList capacity;
  // What the scheduler may hand out; capacity minus system reservations.
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  std::vector<NodeAddress> addresses;
  std::vector<ContainerImage> images;

  bool operator==(const NodeStatus&) const = default;
};

struct Node {
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;

  bool operator==(const Node&) const = default;
};

// The condition of `type`, or nullptr.
const NodeCondition* FindCondition(const NodeStatus& status, std::string_view type);

}  // namespace trimaran::kube
