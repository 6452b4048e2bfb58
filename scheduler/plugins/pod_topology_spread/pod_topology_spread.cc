#include "scheduler/plugins/pod_topology_spread/pod_topology_spread.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "scheduler/plugins/helper/default_selector.h"
#include "scheduler/plugins/helper/node_affinity.h"
#include "scheduler/plugins/helper/taints.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kPreFilterStateKey = "PreFilterPodTopologySpread";
constexpr absl::string_view kPreScoreStateKey = "PreScorePodTopologySpread";
constexpr absl::string_view kHostnameLabel = "kubernetes.io/hostname";

const std::string* LabelOf(const kube::Labels& labels, absl::string_view key) {
  const auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

// Whether the node carries every constraint's topology key.
bool HasAllKeys(const kube::Labels& labels, const std::vector<SpreadConstraint>& constraints) {
  for (const SpreadConstraint& c : constraints) {
    if (LabelOf(labels, c.topology_key) == nullptr) return false;
  }
  return true;
}

// Whether the node counts as a domain for `c` under its inclusion policies.
bool Included(const SpreadConstraint& c, const kube::Pod& pod, const kube::Node& node,
              const helper::RequiredNodeAffinity& affinity) {
  if (c.honor_node_affinity && !affinity.Matches(node)) return false;
  if (c.honor_node_taints &&
      helper::FindMatchingUntoleratedTaint(node.spec.taints, pod.spec.tolerations,
                                           helper::IsDoNotScheduleTaint) != nullptr) {
    return false;
  }
  return true;
}

// Pods on the node in `ns`, not terminating, matching the selector; 0 for a selector
// that matches everything (1.27+).
int64_t CountMatching(const NodeInfo& node_info, const helper::Selector& selector,
                      absl::string_view ns) {
  if (selector.MatchesEverything()) return 0;
  int64_t n = 0;
  for (const PodInfo& pi : node_info.pods()) {
    const kube::Pod& p = *pi.pod;
    if (kube::IsTerminating(p) || p.metadata.namespace_name != ns) continue;
    if (selector.Matches(p.metadata.labels)) ++n;
  }
  return n;
}

// The two domains with the fewest matching pods (upstream criticalPaths): the global
// minimum survives AddPod/RemovePod in O(1).
struct CriticalPaths {
  struct Path {
    std::string value;
    int64_t count = std::numeric_limits<int32_t>::max();
  };
  Path p[2];

  void Update(const std::string& value, int64_t count) {
    int i = value == p[0].value ? 0 : value == p[1].value ? 1 : -1;
    if (i >= 0) {
      p[i].count = count;
      if (p[0].count > p[1].count) std::swap(p[0], p[1]);
    } else if (count < p[0].count) {
      p[1] = p[0];
      p[0] = {value, count};
    } else if (count < p[1].count) {
      p[1] = {value, count};
    }
  }
};

class PreFilterState final : public StateData {
 public:
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
  int64_t MinMatch(size_t i, int32_t min_domains) const {
    if (static_cast<int64_t>(value_counts[i].size()) < min_domains) return 0;
    return paths[i].p[0].count;
  }

  std::vector<SpreadConstraint> constraints;
  // Per constraint: domain value -> matching pods (every eligible domain has an entry).
  std::vector<absl::flat_hash_map<std::string, int64_t>> value_counts;
  std::vector<CriticalPaths> paths;
};

class PreScoreState final : public StateData {
 public:
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }

  std::vector<SpreadConstraint> constraints;
  absl::flat_hash_set<std::string> ignored_nodes;
  // Per constraint: the candidate nodes' domain value -> matching pods (not hostname).
  std::vector<absl::flat_hash_map<std::string, int64_t>> value_counts;
  std::vector<double> weights;
};

}  // namespace

absl::StatusOr<std::vector<SpreadConstraint>> PodSpreadConstraints(
    const kube::Pod& pod, kube::UnsatisfiableConstraintAction action) {
  std::vector<SpreadConstraint> out;
  for (const kube::TopologySpreadConstraint& c : pod.spec.topology_spread_constraints) {
    if (c.when_unsatisfiable != action) continue;
    SpreadConstraint sc;
    absl::StatusOr<helper::Selector> selector = helper::Selector::FromOptional(c.label_selector);
    if (!selector.ok()) return selector.status();
    sc.selector = *std::move(selector);
    for (const std::string& key : c.match_label_keys) {
      if (const std::string* v = LabelOf(pod.metadata.labels, key)) {
        sc.selector = sc.selector.WithEquals(key, *v);
      }
    }
    sc.max_skew = c.max_skew;
    sc.topology_key = c.topology_key;
    if (c.min_domains.has_value()) sc.min_domains = *c.min_domains;
    if (c.node_affinity_policy.has_value()) {
      sc.honor_node_affinity = *c.node_affinity_policy == kube::NodeInclusionPolicy::kHonor;
    }
    if (c.node_taints_policy.has_value()) {
      sc.honor_node_taints = *c.node_taints_policy == kube::NodeInclusionPolicy::kHonor;
    }
    out.push_back(std::move(sc));
  }
  return out;
}

absl::StatusOr<std::vector<SpreadConstraint>> PodTopologySpread::ConstraintsFor(
    const kube::Pod& pod, kube::UnsatisfiableConstraintAction action) const {
  if (!pod.spec.topology_spread_constraints.empty()) return PodSpreadConstraints(pod, action);
  std::vector<SpreadConstraint> out;
  for (const DefaultSpreadConstraint& d : defaults_) {
    if (d.when_unsatisfiable != action) continue;
    SpreadConstraint sc;
    sc.max_skew = d.max_skew;
    sc.topology_key = d.topology_key;
    out.push_back(std::move(sc));
  }
  if (out.empty()) return out;
  const kube::LabelSelector selector = helper::DefaultSelector(pod, handle_.object_lister());
  if (helper::IsEmptySelector(selector)) return std::vector<SpreadConstraint>();
  absl::StatusOr<helper::Selector> compiled = helper::Selector::Compile(selector);
  if (!compiled.ok()) return compiled.status();
  for (SpreadConstraint& sc : out) sc.selector = *compiled;
  return out;
}

absl::StatusOr<std::unique_ptr<Plugin>> PodTopologySpread::New(const PluginArgs& args,
                                                               Handle& handle) {
  absl::StatusOr<PodTopologySpreadArgs> decoded = DecodePodTopologySpreadArgs(args);
  if (!decoded.ok()) return decoded.status();
  return std::make_unique<PodTopologySpread>(*decoded, handle);
}

PluginDescriptor PodTopologySpread::Descriptor() {
  PluginDescriptor d = DescriptorFor<PodTopologySpread>();
  d.validate_args = ArgsValidatorFrom(&DecodePodTopologySpreadArgs);
  return d;
}

PodTopologySpread::PodTopologySpread(PodTopologySpreadArgs args, Handle& handle)
    : args_(std::move(args)),
      defaults_(args_.defaulting_type == SpreadDefaultingType::kSystem
                    ? SystemDefaultSpreadConstraints()
                    : args_.default_constraints),
      handle_(handle),
      label_missing_(
          Status::UnschedulableAndUnresolvable(kErrReasonNodeLabelNotMatch).WithPlugin(kName)),
      skew_exceeded_(Status::Unschedulable(kErrReasonConstraintsNotMatch).WithPlugin(kName)) {}

Status PodTopologySpread::PreFilter(CycleState& state, const kube::Pod& pod,
                                    std::span<const NodeInfo* const> nodes,
                                    PreFilterResult& /*result*/) {
  absl::StatusOr<std::vector<SpreadConstraint>> constraints =
      ConstraintsFor(pod, kube::UnsatisfiableConstraintAction::kDoNotSchedule);
  if (!constraints.ok()) {
    return Status::Error(absl::StrCat("obtaining pod's hard topology spread constraints: ",
                                      constraints.status().message()));
  }
  if (constraints->empty()) return Status::Skip();
  auto s = std::make_unique<PreFilterState>();
  s->constraints = *std::move(constraints);
  s->value_counts.resize(s->constraints.size());
  s->paths.resize(s->constraints.size());
  const helper::RequiredNodeAffinity affinity(pod);
  for (const NodeInfo* node_info : nodes) {
    const kube::Node* node = node_info->node();
    if (node == nullptr || !HasAllKeys(node->metadata.labels, s->constraints)) continue;
    for (size_t i = 0; i < s->constraints.size(); ++i) {
      const SpreadConstraint& c = s->constraints[i];
      if (!Included(c, pod, *node, affinity)) continue;
      const std::string& value = *LabelOf(node->metadata.labels, c.topology_key);
      s->value_counts[i][value] +=
          CountMatching(*node_info, c.selector, pod.metadata.namespace_name);
    }
  }
  for (size_t i = 0; i < s->constraints.size(); ++i) {
    for (const auto& [value, count] : s->value_counts[i]) s->paths[i].Update(value, count);
  }
  state.Write(kPreFilterStateKey, std::move(s));
  return Status::Success();
}

Status PodTopologySpread::UpdateWithPod(CycleState& state, const kube::Pod& pod_to_schedule,
                                        const kube::Pod& pod, const NodeInfo& node_info,
                                        int64_t delta) const {
  absl::StatusOr<PreFilterState*> read = state.ReadMutable<PreFilterState>(kPreFilterStateKey);
  if (!read.ok()) return Status::FromAbsl(read.status());
  PreFilterState& s = **read;
  const kube::Node* node = node_info.node();
  if (node == nullptr || pod.metadata.namespace_name != pod_to_schedule.metadata.namespace_name ||
      !HasAllKeys(node->metadata.labels, s.constraints)) {
    return Status::Success();
  }
  const helper::RequiredNodeAffinity affinity(pod_to_schedule);
  for (size_t i = 0; i < s.constraints.size(); ++i) {
    const SpreadConstraint& c = s.constraints[i];
    if (!c.selector.Matches(pod.metadata.labels)) continue;
    if (!Included(c, pod_to_schedule, *node, affinity)) continue;
    const std::string& value = *LabelOf(node->metadata.labels, c.topology_key);
    int64_t& count = s.value_counts[i][value];
    count += delta;
    s.paths[i].Update(value, count);
  }
  return Status::Success();
}

Status PodTopologySpread::AddPod(CycleState& state, const kube::Pod& pod_to_schedule,
                                 const PodInfo& pod_to_add, const NodeInfo& node_info) const {
  return UpdateWithPod(state, pod_to_schedule, *pod_to_add.pod, node_info, 1);
}

Status PodTopologySpread::RemovePod(CycleState& state, const kube::Pod& pod_to_schedule,
                                    const PodInfo& pod_to_remove, const NodeInfo& node_info) const {
  return UpdateWithPod(state, pod_to_schedule, *pod_to_remove.pod, node_info, -1);
}

Status PodTopologySpread::Filter(const CycleState& state, const kube::Pod& pod,
                                 const NodeInfo& node_info) const {
  absl::StatusOr<const PreFilterState*> read = state.Read<PreFilterState>(kPreFilterStateKey);
  if (!read.ok()) return Status::FromAbsl(read.status());
  const PreFilterState& s = **read;
  const kube::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  for (size_t i = 0; i < s.constraints.size(); ++i) {
    const SpreadConstraint& c = s.constraints[i];
    const std::string* value = LabelOf(node->metadata.labels, c.topology_key);
    if (value == nullptr) return label_missing_;
    const int64_t min_match = s.MinMatch(i, c.min_domains);
    const int64_t self = c.selector.Matches(pod.metadata.labels) ? 1 : 0;
    const auto it = s.value_counts[i].find(*value);
    const int64_t match = it == s.value_counts[i].end() ? 0 : it->second;
    if (match + self - min_match > c.max_skew) return skew_exceeded_;
  }
  return Status::Success();
}

Status PodTopologySpread::PreScore(CycleState& state, const kube::Pod& pod,
                                   std::span<const NodeInfo* const> nodes) {
  const std::span<const NodeInfo* const> all = handle_.snapshot_lister().NodeInfos().List();
  if (all.empty()) return Status::Skip();
  absl::StatusOr<std::vector<SpreadConstraint>> constraints =
      ConstraintsFor(pod, kube::UnsatisfiableConstraintAction::kScheduleAnyway);
  if (!constraints.ok()) {
    return Status::Error(absl::StrCat("obtaining pod's soft topology spread constraints: ",
                                      constraints.status().message()));
  }
  if (constraints->empty()) return Status::Skip();
  auto s = std::make_unique<PreScoreState>();
  s->constraints = *std::move(constraints);
  const size_t n = s->constraints.size();
  s->value_counts.resize(n);
  // Every topology key is required unless these are the system defaults (1.24+): then a
  // node without a zone label still counts, in the "" zone.
  const bool require_all_topologies = !pod.spec.topology_spread_constraints.empty() ||
                                      args_.defaulting_type != SpreadDefaultingType::kSystem;
  std::vector<int64_t> domains(n, 0);
  for (const NodeInfo* node_info : nodes) {
    const kube::Node* node = node_info->node();
    if (node == nullptr) continue;
    if (require_all_topologies && !HasAllKeys(node->metadata.labels, s->constraints)) {
      s->ignored_nodes.insert(node_info->name());
      continue;
    }
    for (size_t i = 0; i < n; ++i) {
      const SpreadConstraint& c = s->constraints[i];
      if (c.topology_key == kHostnameLabel) continue;
      const std::string* v = LabelOf(node->metadata.labels, c.topology_key);
      if (s->value_counts[i].try_emplace(v == nullptr ? std::string() : *v, 0).second) {
        ++domains[i];
      }
    }
  }
  s->weights.resize(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t size = domains[i];
    if (s->constraints[i].topology_key == kHostnameLabel) {
      size = static_cast<int64_t>(nodes.size()) - static_cast<int64_t>(s->ignored_nodes.size());
    }
    s->weights[i] = std::log(static_cast<double>(size + 2));
  }
  const helper::RequiredNodeAffinity affinity(pod);
  for (const NodeInfo* node_info : all) {
    const kube::Node* node = node_info->node();
    if (node == nullptr) continue;
    if (require_all_topologies && !HasAllKeys(node->metadata.labels, s->constraints)) continue;
    for (size_t i = 0; i < n; ++i) {
      const SpreadConstraint& c = s->constraints[i];
      if (!Included(c, pod, *node, affinity)) continue;
      const std::string* v = LabelOf(node->metadata.labels, c.topology_key);
      const auto it = s->value_counts[i].find(v == nullptr ? absl::string_view() : *v);
      if (it == s->value_counts[i].end()) continue;
      it->second += CountMatching(*node_info, c.selector, pod.metadata.namespace_name);
    }
  }
  state.Write(kPreScoreStateKey, std::move(s));
  return Status::Success();
}

ScoreResult PodTopologySpread::Score(const CycleState& state, const kube::Pod& pod,
                                     const NodeInfo& node_info) const {
  absl::StatusOr<const PreScoreState*> read = state.Read<PreScoreState>(kPreScoreStateKey);
  if (!read.ok()) return ScoreResult::Failed(Status::FromAbsl(read.status()));
  const PreScoreState& s = **read;
  const kube::Node* node = node_info.node();
  if (node == nullptr) return ScoreResult::Failed(Status::Error("node not found"));
  if (s.ignored_nodes.contains(node_info.name())) return ScoreResult::Of(0);
  double score = 0;
  for (size_t i = 0; i < s.constraints.size(); ++i) {
    const SpreadConstraint& c = s.constraints[i];
    const std::string* v = LabelOf(node->metadata.labels, c.topology_key);
    if (v == nullptr) continue;
    int64_t count = 0;
    if (c.topology_key == kHostnameLabel) {
      count = CountMatching(node_info, c.selector, pod.metadata.namespace_name);
    } else if (const auto it = s.value_counts[i].find(*v); it != s.value_counts[i].end()) {
      count = it->second;
    }
    score += static_cast<double>(count) * s.weights[i] + static_cast<double>(c.max_skew - 1);
  }
  return ScoreResult::Of(static_cast<int64_t>(std::round(score)));
}

Status PodTopologySpread::NormalizeScore(const CycleState& state, const kube::Pod& /*pod*/,
                                         NodeScoreList& scores) const {
  absl::StatusOr<const PreScoreState*> read = state.Read<PreScoreState>(kPreScoreStateKey);
  if (!read.ok()) return Status::Success();
  const PreScoreState& s = **read;
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t max = 0;
  for (const NodeScore& ns : scores) {
    if (s.ignored_nodes.contains(ns.name)) continue;
    min = std::min(min, ns.score);
    max = std::max(max, ns.score);
  }
  for (NodeScore& ns : scores) {
    ns.exact.reset();
    if (s.ignored_nodes.contains(ns.name)) {
      ns.score = 0;
    } else if (max == 0) {
      ns.score = kMaxNodeScore;
    } else {
      ns.score = kMaxNodeScore * (max + min - ns.score) / max;
    }
  }
  return Status::Success();
}

std::vector<StateCount> PodTopologySpread::ExplainState(const CycleState& state) const {
  std::vector<StateCount> out;
  if (absl::StatusOr<const PreFilterState*> pre = state.Read<PreFilterState>(kPreFilterStateKey);
      pre.ok()) {
    for (size_t i = 0; i < (*pre)->constraints.size(); ++i) {
      for (const auto& [value, count] : (*pre)->value_counts[i]) {
        out.push_back(
            {absl::StrCat("filter[", i, "]"), (*pre)->constraints[i].topology_key, value, count});
      }
    }
  }
  if (absl::StatusOr<const PreScoreState*> score = state.Read<PreScoreState>(kPreScoreStateKey);
      score.ok()) {
    for (size_t i = 0; i < (*score)->constraints.size(); ++i) {
      for (const auto& [value, count] : (*score)->value_counts[i]) {
        out.push_back(
            {absl::StrCat("score[", i, "]"), (*score)->constraints[i].topology_key, value, count});
      }
    }
  }
  return out;
}

std::vector<ClusterEvent> PodTopologySpread::EventsToRegister() const {
  return {
      ClusterEvent{EventResource::kPod,
                   ActionType::kAdd | ActionType::kUpdatePodLabel | ActionType::kDelete,
                   "AssignedPodAdd|AssignedPodLabelChange|AssignedPodDelete"},
      ClusterEvent{EventResource::kNode,
                   ActionType::kAdd | ActionType::kDelete | ActionType::kUpdateNodeLabel |
                       ActionType::kUpdateNodeTaint,
                   "NodeAdd|NodeDelete|NodeLabelChange|NodeTaintChange"},
  };
}

}  // namespace trimaran::sched::plugins
