#include "scheduler/plugins/inter_pod_affinity/inter_pod_affinity.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/plugins/inter_pod_affinity/affinity_terms.h"

namespace trimaran::sched::plugins {
namespace {

constexpr absl::string_view kPreFilterStateKey = "PreFilterInterPodAffinity";
constexpr absl::string_view kPreScoreStateKey = "PreScoreInterPodAffinity";

// (topologyKey, value) -> count. Lookups by string_view never allocate (Filter, Score).
class TopologyCounts {
 public:
  // Adds `delta`; an entry that reaches 0 is removed (Filter tests emptiness).
  void Add(absl::string_view key, absl::string_view value, int64_t delta) {
    auto& values = counts_[key];
    auto [it, inserted] = values.try_emplace(value, 0);
    if (inserted) ++size_;
    it->second += delta;
    if (it->second == 0) {
      values.erase(it);
      --size_;
      if (values.empty()) counts_.erase(key);
    }
  }
  int64_t Get(absl::string_view key, absl::string_view value) const {
    const auto k = counts_.find(key);
    if (k == counts_.end()) return 0;
    const auto v = k->second.find(value);
    return v == k->second.end() ? 0 : v->second;
  }
  bool empty() const { return size_ == 0; }
  // Appends one row per (key, value) to `out`, as table `table`.
  void AppendTo(const std::string& table, std::vector<StateCount>& out) const {
    for (const auto& [key, values] : counts_) {
      for (const auto& [value, count] : values) out.push_back({table, key, value, count});
    }
  }
  // Adds every count of `other`.
  void Merge(const TopologyCounts& other) {
    for (const auto& [key, values] : other.counts_) {
      for (const auto& [value, count] : values) Add(key, value, count);
    }
  }

 private:
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, int64_t>> counts_;
  size_t size_ = 0;
};

// The node's value of `key`, or nullptr.
const std::string* LabelOf(const kube::Labels& labels, absl::string_view key) {
  const auto it = labels.find(key);
  return it == labels.end() ? nullptr : &it->second;
}

// The labels of namespace `ns` (empty when the namespace is not known).
kube::Labels NamespaceLabels(const ObjectLister& objects, absl::string_view ns) {
  auto obj =
      objects.Get(kube::SelectorResource::kNamespaces, "", std::string_view(ns.data(), ns.size()));
  return obj == nullptr ? kube::Labels() : obj->metadata.labels;
}

// The incoming pod's term (upstream mergeAffinityTermNamespacesIfNotEmpty): a
// namespaceSelector other than {} is resolved to the names of the namespaces it matches
// now, added to `namespaces`, and then matches nothing itself; {} keeps matching all.
void ResolveNamespaceSelector(const ObjectLister& objects, AffinityTerm& t) {
  if (t.namespace_selector.MatchesEverything()) return;
  if (!t.namespace_selector.MatchesNothing()) {
    for (const auto& ns : objects.List(kube::SelectorResource::kNamespaces, "")) {
      if (t.namespace_selector.Matches(ns->metadata.labels)) {
        t.namespaces.insert(ns->metadata.name);
      }
    }
  }
  t.namespace_selector = helper::Selector::Nothing();
}
void ResolveNamespaceSelectors(const ObjectLister& objects, std::vector<AffinityTerm>& terms) {
  for (AffinityTerm& t : terms) ResolveNamespaceSelector(objects, t);
}
void ResolveNamespaceSelectors(const ObjectLister& objects,
                               std::vector<WeightedAffinityTerm>& terms) {
  for (WeightedAffinityTerm& t : terms) ResolveNamespaceSelector(objects, t.term);
}

class PreFilterState final : public StateData {
 public:
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }

  TopologyCounts existing_anti_affinity;
  TopologyCounts affinity;
  TopologyCounts anti_affinity;
  std::shared_ptr<const PodAffinityTerms> terms;
  kube::Labels ns_labels;
};

class PreScoreState final : public StateData {
 public:
  std::unique_ptr<StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
  void Add(absl::string_view key, absl::string_view value, int64_t delta) {
    scores[key][value] += delta;
  }

  // topologyKey -> value -> score; entries stay even when they sum to 0 (as upstream's
  // map, whose emptiness decides Skip and NormalizeScore).
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, int64_t>> scores;
};

// Adds `delta` at (term.topology_key, node's value) when the node has the key.
void AddAt(TopologyCounts& counts, const kube::Labels& node_labels, const AffinityTerm& term,
           int64_t delta) {
  if (const std::string* v = LabelOf(node_labels, term.topology_key)) {
    counts.Add(term.topology_key, *v, delta);
  }
}

// The existing pod's required anti-affinity terms (empty when they do not parse).
std::vector<AffinityTerm> RequiredAntiAffinityOf(const kube::Pod& pod) {
  if (!PodHasRequiredAntiAffinity(pod)) return {};
  return ParseTerms(pod, pod.spec.affinity->pod_anti_affinity->required)
      .value_or(std::vector<AffinityTerm>{});
}

}  // namespace

absl::StatusOr<std::unique_ptr<Plugin>> InterPodAffinity::New(const PluginArgs& args,
                                                              Handle& handle) {
  absl::StatusOr<InterPodAffinityArgs> decoded = DecodeInterPodAffinityArgs(args);
  if (!decoded.ok()) return decoded.status();
  return std::make_unique<InterPodAffinity>(*decoded, handle);
}

PluginDescriptor InterPodAffinity::Descriptor() {
  PluginDescriptor d = DescriptorFor<InterPodAffinity>();
  d.validate_args = ArgsValidatorFrom(&DecodeInterPodAffinityArgs);
  return d;
}

InterPodAffinity::InterPodAffinity(InterPodAffinityArgs args, Handle& handle)
    : args_(args),
      handle_(handle),
      affinity_rejected_(
          Status::UnschedulableAndUnresolvable(kErrReasonAffinityRulesNotMatch).WithPlugin(kName)),
      anti_affinity_rejected_(
          Status::Unschedulable(kErrReasonAntiAffinityRulesNotMatch).WithPlugin(kName)),
      existing_anti_affinity_rejected_(
          Status::Unschedulable(kErrReasonExistingAntiAffinityRulesNotMatch).WithPlugin(kName)) {}

const PodAffinityTerms* InterPodAffinity::CachedExistingTerms(
    const std::shared_ptr<const kube::Pod>& pod) const {
  const auto it = terms_cache_.find(pod.get());
  if (it == terms_cache_.end() || it->second.pod.expired()) return nullptr;
  return it->second.terms.get();
}

const PodAffinityTerms& InterPodAffinity::CacheExistingTerms(
    const std::shared_ptr<const kube::Pod>& pod, std::shared_ptr<const PodAffinityTerms> terms) {
  CachedTerms& entry = terms_cache_[pod.get()];
  entry.pod = pod;
  entry.terms = std::move(terms);
  const PodAffinityTerms& out = *entry.terms;
  if (terms_cache_.size() >= terms_cache_sweep_at_) {
    // Drop the entries of pods that are gone (never the one just added: it is alive).
    absl::erase_if(terms_cache_, [](const auto& e) { return e.second.pod.expired(); });
    terms_cache_sweep_at_ = std::max<size_t>(1024, 2 * terms_cache_.size());
  }
  return out;
}

const PodAffinityTerms& InterPodAffinity::ExistingTerms(
    const std::shared_ptr<const kube::Pod>& pod) {
  if (const PodAffinityTerms* cached = CachedExistingTerms(pod)) return *cached;
  return CacheExistingTerms(
      pod, std::make_shared<const PodAffinityTerms>(ParseExistingPodAffinityTerms(*pod)));
}

Status InterPodAffinity::PreFilter(CycleState& state, const kube::Pod& pod,
                                   std::span<const NodeInfo* const> nodes,
                                   PreFilterResult& /*result*/) {
  absl::StatusOr<PodAffinityTerms> parsed = ParsePodAffinityTerms(pod);
  if (!parsed.ok()) {
    return Status::UnschedulableAndUnresolvable(
               absl::StrCat("parsing pod: ", parsed.status().message()))
        .WithPlugin(kName);
  }
  const ObjectLister& objects = handle_.object_lister();
  ResolveNamespaceSelectors(objects, parsed->required_affinity);
  ResolveNamespaceSelectors(objects, parsed->required_anti_affinity);
  auto terms = std::make_shared<const PodAffinityTerms>(std::move(*parsed));
  auto s = std::make_unique<PreFilterState>();
  s->ns_labels = NamespaceLabels(objects, pod.metadata.namespace_name);

  // The walks are split over the parallelizer (as upstream): each range counts into its
  // own maps, merged at the end. Existing pods' terms come from the cache, read-only
  // here; a pod not cached yet is parsed by its range and cached after the walks.
  using ParsedTerms = std::vector<
      std::pair<std::shared_ptr<const kube::Pod>, std::shared_ptr<const PodAffinityTerms>>>;
  absl::Mutex mu;
  ParsedTerms parsed_now;
  // 1. Existing pods' required anti-affinity terms that match the incoming pod: only the
  // nodes that hold such pods, and only those pods.
  const std::span<const NodeInfo* const> with_anti =
      handle_.snapshot_lister().NodeInfos().HavePodsWithRequiredAntiAffinityList();
  handle_.parallelizer().UntilRanges(
      static_cast<int>(with_anti.size()),
      [&](int begin, int end) {
        TopologyCounts local;
        ParsedTerms local_parsed;
        for (int i = begin; i < end; ++i) {
          const NodeInfo* node_info = with_anti[static_cast<size_t>(i)];
          const kube::Node* node = node_info->node();
          if (node == nullptr) continue;
          for (const PodInfo& pi : node_info->pods_with_required_anti_affinity()) {
            const PodAffinityTerms* theirs = CachedExistingTerms(pi.pod);
            if (theirs == nullptr) {
              local_parsed.emplace_back(pi.pod, std::make_shared<const PodAffinityTerms>(
                                                    ParseExistingPodAffinityTerms(*pi.pod)));
              theirs = local_parsed.back().second.get();
            }
            for (const AffinityTerm& t : theirs->required_anti_affinity) {
              if (t.Matches(pod, &s->ns_labels)) AddAt(local, node->metadata.labels, t, 1);
            }
          }
        }
        absl::MutexLock lock(&mu);
        s->existing_anti_affinity.Merge(local);
        for (auto& entry : local_parsed) parsed_now.push_back(std::move(entry));
      },
      "InterPodAffinity");
  for (auto& [existing, parsed_terms] : parsed_now) {
    CacheExistingTerms(existing, std::move(parsed_terms));
  }
  // 2 and 3 only for a pod with required terms of its own: every pod counts.
  if (!terms->required_affinity.empty() || !terms->required_anti_affinity.empty()) {
    handle_.parallelizer().UntilRanges(
        static_cast<int>(nodes.size()),
        [&](int begin, int end) {
          TopologyCounts affinity;
          TopologyCounts anti_affinity;
          for (int i = begin; i < end; ++i) {
            const NodeInfo* node_info = nodes[static_cast<size_t>(i)];
            const kube::Node* node = node_info->node();
            if (node == nullptr) continue;
            const kube::Labels& labels = node->metadata.labels;
            for (const PodInfo& pi : node_info->pods()) {
              const kube::Pod& existing = *pi.pod;
              // 2. Existing pods matching all the incoming pod's required affinity terms.
              if (MatchesAllTerms(terms->required_affinity, existing)) {
                for (const AffinityTerm& t : terms->required_affinity) {
                  AddAt(affinity, labels, t, 1);
                }
              }
              // 3. Each of the incoming pod's required anti-affinity terms a pod matches.
              for (const AffinityTerm& t : terms->required_anti_affinity) {
                if (t.Matches(existing, nullptr)) AddAt(anti_affinity, labels, t, 1);
              }
            }
          }
          absl::MutexLock lock(&mu);
          s->affinity.Merge(affinity);
          s->anti_affinity.Merge(anti_affinity);
        },
        "InterPodAffinity");
  }
  if (s->existing_anti_affinity.empty() && terms->required_affinity.empty() &&
      terms->required_anti_affinity.empty()) {
    return Status::Skip();
  }
  s->terms = std::move(terms);
  state.Write(kPreFilterStateKey, std::move(s));
  return Status::Success();
}

Status InterPodAffinity::UpdateWithPod(CycleState& state, const kube::Pod& pod_to_schedule,
                                       const kube::Pod& pod, const NodeInfo& node_info,
                                       int64_t multiplier) const {
  absl::StatusOr<PreFilterState*> s = state.ReadMutable<PreFilterState>(kPreFilterStateKey);
  if (!s.ok()) return Status::FromAbsl(s.status());
  const kube::Node* node = node_info.node();
  if (node == nullptr) return Status::Success();
  const kube::Labels& labels = node->metadata.labels;
  PreFilterState& st = **s;
  for (const AffinityTerm& t : RequiredAntiAffinityOf(pod)) {
    if (t.Matches(pod_to_schedule, &st.ns_labels)) {
      AddAt(st.existing_anti_affinity, labels, t, multiplier);
    }
  }
  if (MatchesAllTerms(st.terms->required_affinity, pod)) {
    for (const AffinityTerm& t : st.terms->required_affinity) {
      AddAt(st.affinity, labels, t, multiplier);
    }
  }
  for (const AffinityTerm& t : st.terms->required_anti_affinity) {
    if (t.Matches(pod, nullptr)) AddAt(st.anti_affinity, labels, t, multiplier);
  }
  return Status::Success();
}

Status InterPodAffinity::AddPod(CycleState& state, const kube::Pod& pod_to_schedule,
                                const PodInfo& pod_to_add, const NodeInfo& node_info) const {
  return UpdateWithPod(state, pod_to_schedule, *pod_to_add.pod, node_info, 1);
}

Status InterPodAffinity::RemovePod(CycleState& state, const kube::Pod& pod_to_schedule,
                                   const PodInfo& pod_to_remove, const NodeInfo& node_info) const {
  return UpdateWithPod(state, pod_to_schedule, *pod_to_remove.pod, node_info, -1);
}

Status InterPodAffinity::Filter(const CycleState& state, const kube::Pod& pod,
                                const NodeInfo& node_info) const {
  absl::StatusOr<const PreFilterState*> read = state.Read<PreFilterState>(kPreFilterStateKey);
  if (!read.ok()) return Status::FromAbsl(read.status());
  const PreFilterState& s = **read;
  const kube::Node* node = node_info.node();
  if (node == nullptr) return Status::Error("node not found");
  const kube::Labels& labels = node->metadata.labels;

  // 1. The incoming pod's required affinity.
  const std::vector<AffinityTerm>& affinity = s.terms->required_affinity;
  if (!affinity.empty()) {
    bool pods_exist = true;
    for (const AffinityTerm& t : affinity) {
      const std::string* v = LabelOf(labels, t.topology_key);
      if (v == nullptr) return affinity_rejected_;  // every topology key must exist
      if (s.affinity.Get(t.topology_key, *v) <= 0) pods_exist = false;
    }
    // The first pod of a group with affinity to itself may go where no pod matches yet.
    if (!pods_exist && !(s.affinity.empty() && MatchesAllTerms(affinity, pod))) {
      return affinity_rejected_;
    }
  }
  // 2. The incoming pod's required anti-affinity.
  if (!s.anti_affinity.empty()) {
    for (const AffinityTerm& t : s.terms->required_anti_affinity) {
      const std::string* v = LabelOf(labels, t.topology_key);
      if (v != nullptr && s.anti_affinity.Get(t.topology_key, *v) > 0) {
        return anti_affinity_rejected_;
      }
    }
  }
  // 3. Existing pods' required anti-affinity (symmetry).
  if (!s.existing_anti_affinity.empty()) {
    for (const auto& [key, value] : labels) {
      if (s.existing_anti_affinity.Get(key, value) > 0) return existing_anti_affinity_rejected_;
    }
  }
  return Status::Success();
}

Status InterPodAffinity::PreScore(CycleState& state, const kube::Pod& pod,
                                  std::span<const NodeInfo* const> nodes) {
  if (nodes.empty()) return Status::Skip();
  absl::StatusOr<PodAffinityTerms> parsed = ParsePodAffinityTerms(pod);
  if (!parsed.ok()) {
    return Status::Error(absl::StrCat("parsing pod: ", parsed.status().message()));
  }
  PodAffinityTerms& terms = *parsed;
  const bool has_constraints =
      !terms.preferred_affinity.empty() || !terms.preferred_anti_affinity.empty();
  if (args_.ignore_preferred_terms_of_existing_pods && !has_constraints) return Status::Skip();
  const ObjectLister& objects = handle_.object_lister();
  ResolveNamespaceSelectors(objects, terms.preferred_affinity);
  ResolveNamespaceSelectors(objects, terms.preferred_anti_affinity);
  const kube::Labels ns_labels = NamespaceLabels(objects, pod.metadata.namespace_name);

  // Every node of the snapshot, not only the feasible ones (as upstream); without
  // preferred terms of its own only the pods with terms can score the pod. The walk is
  // split over the parallelizer (as upstream's processNode): each range sums into its own
  // map, merged at the end. Existing pods' terms come from the cache, read-only here;
  // a pod not cached yet is parsed by its range and cached after the walk.
  const NodeInfoLister& lister = handle_.snapshot_lister().NodeInfos();
  const std::span<const NodeInfo* const> walk =
      has_constraints ? lister.List() : lister.HavePodsWithAffinityList();
  auto s = std::make_unique<PreScoreState>();
  absl::Mutex mu;
  std::vector<std::pair<std::shared_ptr<const kube::Pod>, std::shared_ptr<const PodAffinityTerms>>>
      parsed_now;
  auto walk_range = [&](int begin, int end) {
    PreScoreState local;
    std::vector<
        std::pair<std::shared_ptr<const kube::Pod>, std::shared_ptr<const PodAffinityTerms>>>
        local_parsed;
    auto process = [&](const std::vector<WeightedAffinityTerm>& list, const kube::Pod& target,
                       const kube::Labels* target_ns_labels, const kube::Labels& node_labels,
                       int64_t sign) {
      for (const WeightedAffinityTerm& wt : list) {
        if (wt.term.topology_key.empty() || !wt.term.Matches(target, target_ns_labels)) continue;
        if (const std::string* v = LabelOf(node_labels, wt.term.topology_key)) {
          local.Add(wt.term.topology_key, *v, sign * wt.weight);
        }
      }
    };
    for (int i = begin; i < end; ++i) {
      const NodeInfo* node_info = walk[static_cast<size_t>(i)];
      const kube::Node* node = node_info->node();
      if (node == nullptr || node->metadata.labels.empty()) continue;
      const kube::Labels& labels = node->metadata.labels;
      for (const PodInfo& pi :
           has_constraints ? node_info->pods() : node_info->pods_with_affinity()) {
        const kube::Pod& existing = *pi.pod;
        // The incoming pod's preferred terms over the existing pod (namespaces resolved).
        process(terms.preferred_affinity, existing, nullptr, labels, 1);
        process(terms.preferred_anti_affinity, existing, nullptr, labels, -1);
        if (!PodHasAffinityTerms(existing)) continue;
        // The existing pod's terms over the incoming pod.
        const PodAffinityTerms* theirs = CachedExistingTerms(pi.pod);
        if (theirs == nullptr) {
          local_parsed.emplace_back(pi.pod, std::make_shared<const PodAffinityTerms>(
                                                ParseExistingPodAffinityTerms(existing)));
          theirs = local_parsed.back().second.get();
        }
        if (args_.hard_pod_affinity_weight > 0) {
          for (const AffinityTerm& t : theirs->required_affinity) {
            if (t.topology_key.empty() || !t.Matches(pod, &ns_labels)) continue;
            if (const std::string* v = LabelOf(labels, t.topology_key)) {
              local.Add(t.topology_key, *v, args_.hard_pod_affinity_weight);
            }
          }
        }
        process(theirs->preferred_affinity, pod, &ns_labels, labels, 1);
        process(theirs->preferred_anti_affinity, pod, &ns_labels, labels, -1);
      }
    }
    absl::MutexLock lock(&mu);
    for (auto& [key, values] : local.scores) {
      auto& into = s->scores[key];
      for (auto& [value, score] : values) into[value] += score;
    }
    for (auto& entry : local_parsed) parsed_now.push_back(std::move(entry));
  };
  handle_.parallelizer().UntilRanges(static_cast<int>(walk.size()), walk_range, "InterPodAffinity");
  for (auto& [existing, parsed_terms] : parsed_now) {
    CacheExistingTerms(existing, std::move(parsed_terms));
  }
  if (s->scores.empty()) return Status::Skip();
  state.Write(kPreScoreStateKey, std::move(s));
  return Status::Success();
}

ScoreResult InterPodAffinity::Score(const CycleState& state, const kube::Pod& /*pod*/,
                                    const NodeInfo& node_info) const {
  absl::StatusOr<const PreScoreState*> read = state.Read<PreScoreState>(kPreScoreStateKey);
  if (!read.ok()) return ScoreResult::Failed(Status::FromAbsl(read.status()));
  const kube::Node* node = node_info.node();
  if (node == nullptr) return ScoreResult::Failed(Status::Error("node not found"));
  int64_t score = 0;
  for (const auto& [key, values] : (*read)->scores) {
    const std::string* v = LabelOf(node->metadata.labels, key);
    if (v == nullptr) continue;
    if (const auto it = values.find(*v); it != values.end()) score += it->second;
  }
  return ScoreResult::Of(score);
}

Status InterPodAffinity::NormalizeScore(const CycleState& state, const kube::Pod& /*pod*/,
                                        NodeScoreList& scores) const {
  absl::StatusOr<const PreScoreState*> read = state.Read<PreScoreState>(kPreScoreStateKey);
  if (!read.ok() || (*read)->scores.empty() || scores.empty()) return Status::Success();
  int64_t min = scores[0].score;
  int64_t max = scores[0].score;
  for (const NodeScore& s : scores) {
    min = std::min(min, s.score);
    max = std::max(max, s.score);
  }
  const int64_t diff = max - min;
  for (NodeScore& s : scores) {
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(kMaxNodeScore) *
          (static_cast<double>(s.score - min) / static_cast<double>(diff));
    }
    s.score = static_cast<int64_t>(f);
    s.exact.reset();
  }
  return Status::Success();
}

std::vector<StateCount> InterPodAffinity::ExplainState(const CycleState& state) const {
  std::vector<StateCount> out;
  if (absl::StatusOr<const PreFilterState*> pre = state.Read<PreFilterState>(kPreFilterStateKey);
      pre.ok()) {
    (*pre)->existing_anti_affinity.AppendTo("existingAntiAffinity", out);
    (*pre)->affinity.AppendTo("affinity", out);
    (*pre)->anti_affinity.AppendTo("antiAffinity", out);
  }
  if (absl::StatusOr<const PreScoreState*> score = state.Read<PreScoreState>(kPreScoreStateKey);
      score.ok()) {
    for (const auto& [key, values] : (*score)->scores) {
      for (const auto& [value, sum] : values) out.push_back({"score", key, value, sum});
    }
  }
  return out;
}

std::vector<ClusterEvent> InterPodAffinity::EventsToRegister() const {
  return {
      ClusterEvent{EventResource::kPod,
                   ActionType::kAdd | ActionType::kUpdatePodLabel | ActionType::kDelete,
                   "AssignedPodAdd|AssignedPodLabelChange|AssignedPodDelete"},
      ClusterEvent{EventResource::kNode,
                   ActionType::kAdd | ActionType::kUpdateNodeLabel | ActionType::kUpdateNodeTaint,
                   "NodeAdd|NodeLabelChange|NodeTaintChange"},
  };
}

}  // namespace trimaran::sched::plugins
