#pragma once
// Test builders for kube/api objects, in the style of kube-scheduler's `st` wrappers:
// value wrappers with chained setters, and Obj() returning the API object.
//
//   Pod pod = MakePod().Name("p").Namespace("default").UID("u")
//                 .Req({{"cpu", "500m"}, {"memory", "1Gi"}}).Priority(10).Obj();
//   Node node = MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"memory", "8Gi"}})
//                   .Label("zone", "a").Taint("k", "v", TaintEffect::kNoSchedule).Obj();
//
// Quantities are parsed with Quantity::Parse; an invalid one aborts the test binary
// with a message (these are test-only and the inputs are literals).
//
// Thread-safety: wrappers are values; use one per thread.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/check.h"
#include "kube/api/label_selector.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/quantity.h"
#include "kube/api/resource_list.h"

namespace trimaran::kube::testing {

// {{"cpu", "500m"}, {"memory", "1Gi"}}.
using ResourceMap = std::vector<std::pair<std::string, std::string>>;

inline constexpr std::string_view kPauseImage = "registry.k8s.io/pause:3.9";

inline Quantity MustParseQuantity(std::string_view text) {
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  TRIMARAN_CHECK(q.ok()) << "bad quantity in test: \"" << text << "\": " << q.status();
  return *q;
}

inline ResourceList MakeResourceList(const ResourceMap& resources) {
  ResourceList list;
  for (const auto& [name, text] : resources) list.insert_or_assign(name, MustParseQuantity(text));
  return list;
}

// Builds a metav1.LabelSelector.
class LabelSelectorWrapper {
 public:
  LabelSelectorWrapper& Label(std::string key, std::string value) {
    selector_.match_labels.insert_or_assign(std::move(key), std::move(value));
    return *this;
  }
  LabelSelectorWrapper& In(std::string key, std::vector<std::string> values) {
    return Expr(std::move(key), LabelSelectorOperator::kIn, std::move(values));
  }
  LabelSelectorWrapper& NotIn(std::string key, std::vector<std::string> values) {
    return Expr(std::move(key), LabelSelectorOperator::kNotIn, std::move(values));
  }
  LabelSelectorWrapper& Exists(std::string key) {
    return Expr(std::move(key), LabelSelectorOperator::kExists, {});
  }
  LabelSelectorWrapper& NotExist(std::string key) {
    return Expr(std::move(key), LabelSelectorOperator::kDoesNotExist, {});
  }
  LabelSelector Obj() const { return selector_; }

 private:
  LabelSelectorWrapper& Expr(std::string key, LabelSelectorOperator op,
                             std::vector<std::string> values) {
    selector_.match_expressions.push_back({std::move(key), op, std::move(values)});
    return *this;
  }
  LabelSelector selector_;
};

inline LabelSelectorWrapper MakeLabelSelector() { return LabelSelectorWrapper(); }

// Builds a Pod. Containers get unique names ("c0", "init0", "sidecar0", ...) and the
// pause image.
class PodWrapper {
 public:
  PodWrapper() = default;

  // ---- metadata ----
  PodWrapper& Name(std::string name) {
    pod_.metadata.name = std::move(name);
    return *this;
  }
  PodWrapper& Namespace(std::string ns) {
    pod_.metadata.namespace_name = std::move(ns);
    return *this;
  }
  PodWrapper& UID(std::string uid) {
    pod_.metadata.uid = std::move(uid);
    return *this;
  }
  PodWrapper& ResourceVersion(std::string rv) {
    pod_.metadata.resource_version = std::move(rv);
    return *this;
  }
  PodWrapper& Generation(int64_t generation) {
    pod_.metadata.generation = generation;
    return *this;
  }
  PodWrapper& Label(std::string key, std::string value) {
    pod_.metadata.labels.insert_or_assign(std::move(key), std::move(value));
    return *this;
  }
  PodWrapper& Labels(const StringMap& labels) {
    for (const auto& [k, v] : labels) pod_.metadata.labels.insert_or_assign(k, v);
    return *this;
  }
  PodWrapper& Annotation(std::string key, std::string value) {
    pod_.metadata.annotations.insert_or_assign(std::move(key), std::move(value));
    return *this;
  }
  PodWrapper& CreationTimestamp(absl::Time t) {
    pod_.metadata.creation_timestamp = t;
    return *this;
  }
  // Marks the pod as being deleted.
  PodWrapper& Terminating(absl::Time t = absl::UnixEpoch()) {
    pod_.metadata.deletion_timestamp = t;
    return *this;
  }
  // A controller owner reference (e.g. "ReplicaSet", "web-abc").
  PodWrapper& OwnerReference(std::string kind, std::string name, std::string uid = "") {
    kube::OwnerReference ref;
    ref.api_version = kind == "ReplicaSet" || kind == "StatefulSet" ? "apps/v1" : "v1";
    ref.kind = std::move(kind);
    ref.name = std::move(name);
    ref.uid = std::move(uid);
    ref.controller = true;
    ref.block_owner_deletion = true;
    pod_.metadata.owner_references.push_back(std::move(ref));
    return *this;
  }

  // ---- containers ----
  // Appends a container with `image` and no requests.
  PodWrapper& Container(std::string image) {
    kube::Container c = NewContainer("c", pod_.spec.containers.size());
    c.image = std::move(image);
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  // Appends a container requesting `requests`.
  PodWrapper& Req(const ResourceMap& requests) {
    kube::Container c = NewContainer("c", pod_.spec.containers.size());
    c.resources.requests = MakeResourceList(requests);
    pod_.spec.containers.push_back(std::move(c));
    return *this;
  }
  // Sets limits on the last container (adding one if there is none).
  PodWrapper& Lim(const ResourceMap& limits) {
    LastContainer().resources.limits = MakeResourceList(limits);
    return *this;
  }
  // Appends a regular init container requesting `requests`.
  PodWrapper& InitReq(const ResourceMap& requests) {
    kube::Container c = NewContainer("init", pod_.spec.init_containers.size());
    c.resources.requests = MakeResourceList(requests);
    pod_.spec.init_containers.push_back(std::move(c));
    return *this;
  }
  // Appends a sidecar (init container with restartPolicy Always) requesting `requests`.
  PodWrapper& SidecarReq(const ResourceMap& requests) {
    kube::Container c = NewContainer("sidecar", pod_.spec.init_containers.size());
    c.resources.requests = MakeResourceList(requests);
    c.restart_policy = ContainerRestartPolicy::kAlways;
    pod_.spec.init_containers.push_back(std::move(c));
    return *this;
  }
  PodWrapper& Overhead(const ResourceMap& overhead) {
    pod_.spec.overhead = MakeResourceList(overhead);
    return *this;
  }
  // Pod-level spec.resources.requests.
  PodWrapper& PodReq(const ResourceMap& requests) {
    if (!pod_.spec.resources) pod_.spec.resources.emplace();
    pod_.spec.resources->requests = MakeResourceList(requests);
    return *this;
  }
  // Adds `port` to the last container (adding one if there is none).
  PodWrapper& ContainerPort(kube::ContainerPort port) {
    LastContainer().ports.push_back(std::move(port));
    return *this;
  }
  // Adds a port with containerPort == hostPort == `port`.
  PodWrapper& HostPort(int32_t port, Protocol protocol = Protocol::kTCP, std::string host_ip = "") {
    kube::ContainerPort p;
    p.container_port = port;
    p.host_port = port;
    p.protocol = protocol;
    p.host_ip = std::move(host_ip);
    return ContainerPort(std::move(p));
  }

  // ---- placement ----
  PodWrapper& SchedulerName(std::string name) {
    pod_.spec.scheduler_name = std::move(name);
    return *this;
  }
  PodWrapper& NodeName(std::string name) {
    pod_.spec.node_name = std::move(name);
    return *this;
  }
  PodWrapper& NodeSelector(const StringMap& selector) {
    pod_.spec.node_selector = selector;
    return *this;
  }
  // Adds `key In values` to the first required node-affinity term.
  PodWrapper& NodeAffinityIn(std::string key, std::vector<std::string> values) {
    return RequiredNodeExpr({std::move(key), NodeSelectorOperator::kIn, std::move(values)});
  }
  PodWrapper& NodeAffinityNotIn(std::string key, std::vector<std::string> values) {
    return RequiredNodeExpr({std::move(key), NodeSelectorOperator::kNotIn, std::move(values)});
  }
  PodWrapper& PreferredNodeAffinity(int32_t weight, NodeSelectorTerm term) {
    MutableNodeAffinity().preferred.push_back({weight, std::move(term)});
    return *this;
  }
  PodWrapper& PodAffinity(std::string topology_key, LabelSelector selector) {
    auto& aff = MutableAffinity().pod_affinity;
    if (!aff) aff.emplace();
    aff->required.push_back(Term(std::move(topology_key), std::move(selector)));
    return *this;
  }
  PodWrapper& PodAntiAffinity(std::string topology_key, LabelSelector selector) {
    auto& anti = MutableAffinity().pod_anti_affinity;
    if (!anti) anti.emplace();
    anti->required.push_back(Term(std::move(topology_key), std::move(selector)));
    return *this;
  }
  PodWrapper& PreferredPodAffinity(int32_t weight, std::string topology_key,
                                   LabelSelector selector) {
    auto& aff = MutableAffinity().pod_affinity;
    if (!aff) aff.emplace();
    aff->preferred.push_back({weight, Term(std::move(topology_key), std::move(selector))});
    return *this;
  }
  PodWrapper& PreferredPodAntiAffinity(int32_t weight, std::string topology_key,
                                       LabelSelector selector) {
    auto& anti = MutableAffinity().pod_anti_affinity;
    if (!anti) anti.emplace();
    anti->preferred.push_back({weight, Term(std::move(topology_key), std::move(selector))});
    return *this;
  }
  // Tolerates key=value:effect (operator Equal).
  PodWrapper& Toleration(std::string key, std::string value, TaintEffect effect) {
    kube::Toleration t;
    t.key = std::move(key);
    t.value = std::move(value);
    t.effect = effect;
    pod_.spec.tolerations.push_back(std::move(t));
    return *this;
  }
  // Tolerates any value of `key` (operator Exists); an empty key tolerates everything.
  PodWrapper& TolerationExists(std::string key, TaintEffect effect = TaintEffect::kAll) {
    kube::Toleration t;
    t.key = std::move(key);
    t.op = TolerationOperator::kExists;
    t.effect = effect;
    pod_.spec.tolerations.push_back(std::move(t));
    return *this;
  }
  PodWrapper& Toleration(kube::Toleration toleration) {
    pod_.spec.tolerations.push_back(std::move(toleration));
    return *this;
  }
  PodWrapper& SpreadConstraint(int32_t max_skew, std::string topology_key,
                               UnsatisfiableConstraintAction when, LabelSelector selector,
                               std::optional<int32_t> min_domains = std::nullopt) {
    TopologySpreadConstraint c;
    c.max_skew = max_skew;
    c.topology_key = std::move(topology_key);
    c.when_unsatisfiable = when;
    c.label_selector = std::move(selector);
    c.min_domains = min_domains;
    pod_.spec.topology_spread_constraints.push_back(std::move(c));
    return *this;
  }
  PodWrapper& SchedulingGates(const std::vector<std::string>& gates) {
    for (const std::string& g : gates) pod_.spec.scheduling_gates.push_back({g});
    return *this;
  }
  PodWrapper& Priority(int32_t priority) {
    pod_.spec.priority = priority;
    return *this;
  }
  PodWrapper& PriorityClassName(std::string name) {
    pod_.spec.priority_class_name = std::move(name);
    return *this;
  }
  PodWrapper& PreemptionPolicy(kube::PreemptionPolicy policy) {
    pod_.spec.preemption_policy = policy;
    return *this;
  }
  PodWrapper& HostNetwork(bool host_network = true) {
    pod_.spec.host_network = host_network;
    return *this;
  }

  // ---- status ----
  PodWrapper& Phase(PodPhase phase) {
    pod_.status.phase = phase;
    return *this;
  }
  PodWrapper& Condition(std::string type, ConditionStatus status, std::string reason = "",
                        std::string message = "") {
    PodCondition c;
    c.type = std::move(type);
    c.status = status;
    c.reason = std::move(reason);
    c.message = std::move(message);
    pod_.status.conditions.push_back(std::move(c));
    return *this;
  }
  PodWrapper& NominatedNodeName(std::string name) {
    pod_.status.nominated_node_name = std::move(name);
    return *this;
  }
  // In-place resize status of container `name` ("c0", "sidecar1", ...): what the kubelet
  // allocated and what runs (status.containerStatuses or, for an init container,
  // status.initContainerStatuses).
  PodWrapper& AllocatedResources(std::string_view name, const ResourceMap& allocated) {
    StatusOf(name).allocated_resources = MakeResourceList(allocated);
    return *this;
  }
  PodWrapper& ActualResources(std::string_view name, const ResourceMap& actual) {
    auto& resources = StatusOf(name).resources;
    if (!resources) resources.emplace();
    resources->requests = MakeResourceList(actual);
    return *this;
  }
  // Pod-level status.allocatedResources and status.resources.requests.
  PodWrapper& PodAllocatedResources(const ResourceMap& allocated) {
    pod_.status.allocated_resources = MakeResourceList(allocated);
    return *this;
  }
  PodWrapper& PodActualResources(const ResourceMap& actual) {
    if (!pod_.status.resources) pod_.status.resources.emplace();
    pod_.status.resources->requests = MakeResourceList(actual);
    return *this;
  }
  PodWrapper& StartTime(absl::Time t) {
    pod_.status.start_time = t;
    return *this;
  }

  const Pod& Obj() const& { return pod_; }
  Pod Obj() && { return std::move(pod_); }

 private:
  static kube::Container NewContainer(std::string_view prefix, size_t index) {
    kube::Container c;
    c.name = absl::StrCat(absl::string_view(prefix.data(), prefix.size()), index);
    c.image = std::string(kPauseImage);
    return c;
  }
  kube::ContainerStatus& StatusOf(std::string_view name) {
    const bool init =
        std::any_of(pod_.spec.init_containers.begin(), pod_.spec.init_containers.end(),
                    [&](const kube::Container& c) { return c.name == name; });
    auto& statuses = init ? pod_.status.init_container_statuses : pod_.status.container_statuses;
    for (kube::ContainerStatus& cs : statuses) {
      if (cs.name == name) return cs;
    }
    statuses.emplace_back().name = std::string(name);
    return statuses.back();
  }
  kube::Container& LastContainer() {
    if (pod_.spec.containers.empty()) pod_.spec.containers.push_back(NewContainer("c", 0));
    return pod_.spec.containers.back();
  }
  Affinity& MutableAffinity() {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    return *pod_.spec.affinity;
  }
  NodeAffinity& MutableNodeAffinity() {
    auto& na = MutableAffinity().node_affinity;
    if (!na) na.emplace();
    return *na;
  }
  PodWrapper& RequiredNodeExpr(NodeSelectorRequirement req) {
    NodeAffinity& na = MutableNodeAffinity();
    if (!na.required) na.required.emplace();
    if (na.required->node_selector_terms.empty()) na.required->node_selector_terms.emplace_back();
    na.required->node_selector_terms.front().match_expressions.push_back(std::move(req));
    return *this;
  }
  static PodAffinityTerm Term(std::string topology_key, LabelSelector selector) {
    PodAffinityTerm t;
    t.topology_key = std::move(topology_key);
    t.label_selector = std::move(selector);
    return t;
  }

  Pod pod_;
};

inline PodWrapper MakePod() { return PodWrapper(); }

// Builds a Node.
class NodeWrapper {
 public:
  NodeWrapper() = default;

  NodeWrapper& Name(std::string name) {
    node_.metadata.name = std::move(name);
    return *this;
  }
  NodeWrapper& UID(std::string uid) {
    node_.metadata.uid = std::move(uid);
    return *this;
  }
  NodeWrapper& ResourceVersion(std::string rv) {
    node_.metadata.resource_version = std::move(rv);
    return *this;
  }
  NodeWrapper& Label(std::string key, std::string value) {
    node_.metadata.labels.insert_or_assign(std::move(key), std::move(value));
    return *this;
  }
  NodeWrapper& Labels(const StringMap& labels) {
    for (const auto& [k, v] : labels) node_.metadata.labels.insert_or_assign(k, v);
    return *this;
  }
  // Sets both status.capacity and status.allocatable.
  NodeWrapper& Capacity(const ResourceMap& resources) {
    node_.status.capacity = MakeResourceList(resources);
    node_.status.allocatable = node_.status.capacity;
    return *this;
  }
  // Sets status.allocatable only.
  NodeWrapper& Allocatable(const ResourceMap& resources) {
    node_.status.allocatable = MakeResourceList(resources);
    return *this;
  }
  NodeWrapper& Taint(std::string key, std::string value, TaintEffect effect) {
    kube::Taint t;
    t.key = std::move(key);
    t.value = std::move(value);
    t.effect = effect;
    node_.spec.taints.push_back(std::move(t));
    return *this;
  }
  NodeWrapper& Taints(const std::vector<kube::Taint>& taints) {
    node_.spec.taints = taints;
    return *this;
  }
  NodeWrapper& Unschedulable(bool unschedulable) {
    node_.spec.unschedulable = unschedulable;
    return *this;
  }
  NodeWrapper& Condition(std::string type, ConditionStatus status) {
    NodeCondition c;
    c.type = std::move(type);
    c.status = status;
    node_.status.conditions.push_back(std::move(c));
    return *this;
  }
  NodeWrapper& Address(std::string type, std::string address) {
    node_.status.addresses.push_back({std::move(type), std::move(address)});
    return *this;
  }
  NodeWrapper& Image(std::string name, int64_t size_bytes) {
    node_.status.images.push_back({{std::move(name)}, size_bytes});
    return *this;
  }

  const Node& Obj() const& { return node_; }
  Node Obj() && { return std::move(node_); }

 private:
  Node node_;
};

inline NodeWrapper MakeNode() { return NodeWrapper(); }

}  // namespace trimaran::kube::testing
