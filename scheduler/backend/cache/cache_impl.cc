#include "scheduler/backend/cache/cache_impl.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/check.h"
#include "common/logging.h"

namespace trimaran::sched {
namespace {

// The pod's identity in the cache: its UID (as upstream), or namespace/name for pods
// without one (built by tests or tools). Matches NodeInfo::RemovePod's identity rule
// for pods that consistently have, or lack, a UID.
std::string PodKey(const kube::Pod& pod) {
  if (!pod.metadata.uid.empty()) return pod.metadata.uid;
  return kube::NamespacedName(pod);
}

// Whether the images of a snapshot NodeInfo (with a node) differ from those of the
// cache's newer copy (with a node): a pod change keeps the node object, a node update
// usually keeps its images.
bool ImagesChanged(const NodeInfo& snapshot_copy, const NodeInfo& cached) {
  if (snapshot_copy.shared_node() == cached.shared_node()) return false;
  return snapshot_copy.node()->status.images != cached.node()->status.images;
}

std::string Describe(const kube::Pod& pod) {
  return absl::StrCat("pod ", kube::NamespacedName(pod));
}

stats::Family<stats::Gauge>& CacheSizeFamily(const stats::Scope& scope) {
  return scope.GaugeFamily("cache_size",
                           "Number of nodes, pods, and assumed (bound) pods in the scheduler "
                           "cache.",
                           {"type"});
}

}  // namespace

// ---- CacheDump ----

std::string CacheDump::DebugString() const {
  std::string out = absl::StrCat("nodes: ", nodes.size(), "\n");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeInfo& info = nodes[i];
    absl::StrAppend(&out, "node ", node_names[i], info.node() == nullptr ? " (placeholder)" : "",
                    ": ", info.DebugString(), "\n");
    for (const PodInfo& p : info.pods()) {
      absl::StrAppend(&out, "  pod ", kube::NamespacedName(*p.pod), " requests={",
                      p.request.DebugString(), "}\n");
    }
  }
  absl::StrAppend(&out, "assumed pods: ", assumed_pods.size(), "\n");
  for (const std::string& pod : assumed_pods) absl::StrAppend(&out, "  ", pod, "\n");
  return out;
}

// ---- CacheImpl ----

CacheImpl::CacheImpl(const Clock& clock, const StatsScopes& scopes, CacheOptions options)
    : clock_(clock),
      options_(options),
      invalid_operations_(scopes.own.CounterFamily(
          "cache_invalid_operations_total",
          "Cache operations rejected as invalid state transitions (e.g. ForgetPod of a pod "
          "that is not assumed), by operation.",
          {"operation"})),
      nodes_gauge_(CacheSizeFamily(scopes.upstream).WithLabels({"nodes"})),
      pods_gauge_(CacheSizeFamily(scopes.upstream).WithLabels({"pods"})),
      assumed_pods_gauge_(CacheSizeFamily(scopes.upstream).WithLabels({"assumed_pods"})),
      tree_version_(NextGeneration()) {}

absl::Status CacheImpl::Invalid(absl::string_view operation, absl::Status status) {
  ++invalid_operations_total_;
  invalid_operations_.WithLabels({operation}).Inc();
  Log(Component::kCache).warn("{} rejected: {}", operation, status.message());
  return status;
}

void CacheImpl::UpdateGauges() {
  nodes_gauge_.Set(static_cast<double>(nodes_.size()));
  pods_gauge_.Set(static_cast<double>(pod_states_.size()));
  assumed_pods_gauge_.Set(static_cast<double>(assumed_pods_.size()));
}

void CacheImpl::MoveToFront(NodeList::iterator it) {
  if (it != node_list_.begin()) node_list_.splice(node_list_.begin(), node_list_, it);
}

void CacheImpl::AddPodToNode(std::shared_ptr<const kube::Pod> pod) {
  const std::string& node_name = pod->spec.node_name;
  auto it = nodes_.find(node_name);
  if (it == nodes_.end()) {
    // The pod's node is not known (yet): a placeholder holds the accounting.
    node_list_.emplace_front();
    it = nodes_.emplace(node_name, node_list_.begin()).first;
  }
  it->second->AddPod(std::move(pod));
  MoveToFront(it->second);
}

void CacheImpl::RemovePodFromNode(const kube::Pod& pod) {
  const auto it = nodes_.find(pod.spec.node_name);
  if (it == nodes_.end()) {
    TRIMARAN_BUG(absl::StrCat("cache: node \"", pod.spec.node_name, "\" of ", Describe(pod),
                              " is not in the cache"));
    return;
  }
  NodeInfo& info = *it->second;
  if (absl::Status s = info.RemovePod(pod); !s.ok()) {
    TRIMARAN_BUG(absl::StrCat("cache: ", s.message()));
    return;
  }
  if (info.pods().empty() && info.node() == nullptr) {
    // The last pod of a removed (or never seen) node: drop the placeholder.
    node_list_.erase(it->second);
    nodes_.erase(it);
    return;
  }
  MoveToFront(it->second);
}

void CacheImpl::ErasePodState(const std::string& key) {
  assumed_pods_.erase(key);
  pod_states_.erase(key);
}

// ---- Pods ----

absl::Status CacheImpl::AssumePod(std::shared_ptr<const kube::Pod> pod) {
  absl::MutexLock lock(&mu_);
  if (pod == nullptr) return Invalid("AssumePod", absl::InvalidArgumentError("null pod"));
  if (pod->spec.node_name.empty()) {
    return Invalid("AssumePod",
                   absl::InvalidArgumentError(absl::StrCat(
                       Describe(*pod), " has no spec.nodeName, so it can't be assumed")));
  }
  std::string key = PodKey(*pod);
  if (const auto it = pod_states_.find(key); it != pod_states_.end()) {
    return Invalid("AssumePod",
                   absl::AlreadyExistsError(absl::StrCat(
                       Describe(*pod), " is already in the cache (",
                       assumed_pods_.contains(key) ? "assumed" : "added", " on node \"",
                       it->second.pod->spec.node_name, "\"), so it can't be assumed")));
  }
  AddPodToNode(pod);
  pod_states_.emplace(key, PodState{.pod = std::move(pod)});
  assumed_pods_.insert(std::move(key));
  UpdateGauges();
  return absl::OkStatus();
}

absl::Status CacheImpl::FinishBinding(const kube::Pod& pod) {
  const absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  const std::string key = PodKey(pod);
  const auto it = pod_states_.find(key);
  if (it == pod_states_.end()) {
    return Invalid("FinishBinding",
                   absl::NotFoundError(absl::StrCat(Describe(pod),
                                                    " is not in the cache, so its binding "
                                                    "can't be finished")));
  }
  // Added already: the informer's Add beat the binding goroutine. Nothing to do.
  if (!assumed_pods_.contains(key)) return absl::OkStatus();
  it->second.binding_finished = true;
  it->second.deadline = now + options_.assumed_pod_ttl;
  return absl::OkStatus();
}

absl::Status CacheImpl::ForgetPod(const kube::Pod& pod) {
  absl::MutexLock lock(&mu_);
  const std::string key = PodKey(pod);
  const auto it = pod_states_.find(key);
  if (it == pod_states_.end()) {
    return Invalid("ForgetPod",
                   absl::NotFoundError(absl::StrCat(
                       Describe(pod), " is not in the cache, so it can't be forgotten")));
  }
  if (!assumed_pods_.contains(key)) {
    return Invalid("ForgetPod", absl::FailedPreconditionError(
                                    absl::StrCat(Describe(pod),
                                                 " is added, not assumed, so it can't be "
                                                 "forgotten")));
  }
  const kube::Pod& cached = *it->second.pod;
  if (cached.spec.node_name != pod.spec.node_name) {
    return Invalid("ForgetPod", absl::InvalidArgumentError(absl::StrCat(
                                    Describe(pod), " was assumed on node \"", cached.spec.node_name,
                                    "\" but is forgotten for node \"", pod.spec.node_name, "\"")));
  }
  RemovePodFromNode(cached);
  ErasePodState(key);
  UpdateGauges();
  return absl::OkStatus();
}

absl::Status CacheImpl::AddPod(std::shared_ptr<const kube::Pod> pod) {
  absl::MutexLock lock(&mu_);
  if (pod == nullptr) return Invalid("AddPod", absl::InvalidArgumentError("null pod"));
  if (pod->spec.node_name.empty()) {
    return Invalid("AddPod", absl::InvalidArgumentError(absl::StrCat(
                                 Describe(*pod), " has no spec.nodeName, so it can't be added")));
  }
  std::string key = PodKey(*pod);
  const auto it = pod_states_.find(key);
  if (it == pod_states_.end()) {
    // A pod bound by anyone (or an assumed pod that expired before its Add arrived).
    AddPodToNode(pod);
    pod_states_.emplace(std::move(key), PodState{.pod = std::move(pod)});
    UpdateGauges();
    return absl::OkStatus();
  }
  if (!assumed_pods_.contains(key)) {
    return Invalid("AddPod", absl::AlreadyExistsError(
                                 absl::StrCat(Describe(*pod), " is already added on node \"",
                                              it->second.pod->spec.node_name, "\"")));
  }
  // Confirmation of an assumed pod. The informer's copy replaces ours; when it names
  // another node (the binding raced with something else), the real node wins.
  PodState& state = it->second;
  if (state.pod->spec.node_name != pod->spec.node_name) {
    Log(Component::kCache)
        .warn("assumed pod landed on another node pod={} assumed_node={} node={}",
              kube::NamespacedName(*pod), state.pod->spec.node_name, pod->spec.node_name);
  }
  RemovePodFromNode(*state.pod);
  AddPodToNode(pod);
  state = PodState{.pod = std::move(pod)};
  assumed_pods_.erase(key);
  UpdateGauges();
  return absl::OkStatus();
}

absl::Status CacheImpl::UpdatePod(const kube::Pod& old_pod,
                                  std::shared_ptr<const kube::Pod> new_pod) {
  absl::MutexLock lock(&mu_);
  if (new_pod == nullptr) return Invalid("UpdatePod", absl::InvalidArgumentError("null pod"));
  const std::string key = PodKey(old_pod);
  if (PodKey(*new_pod) != key) {
    return Invalid("UpdatePod", absl::InvalidArgumentError(absl::StrCat(
                                    "update of ", Describe(old_pod), " to a different pod (",
                                    Describe(*new_pod), ", uid ", new_pod->metadata.uid, ")")));
  }
  if (new_pod->spec.node_name.empty()) {
    return Invalid("UpdatePod",
                   absl::InvalidArgumentError(absl::StrCat(
                       Describe(*new_pod), " has no spec.nodeName, so it can't be updated")));
  }
  const auto it = pod_states_.find(key);
  if (it == pod_states_.end()) {
    return Invalid("UpdatePod",
                   absl::NotFoundError(absl::StrCat(Describe(old_pod),
                                                    " is not in the cache, so it can't be "
                                                    "updated")));
  }
  if (assumed_pods_.contains(key)) {
    return Invalid("UpdatePod",
                   absl::FailedPreconditionError(absl::StrCat(Describe(old_pod),
                                                              " is assumed, not added, so it can't "
                                                              "be updated")));
  }
  PodState& state = it->second;
  if (state.pod->spec.node_name != old_pod.spec.node_name) {
    // Upstream treats this as a corrupted cache and exits; the recorded copy is what
    // the accounting holds, so remove that one and carry on.
    TRIMARAN_BUG(absl::StrCat("cache: ", Describe(old_pod), " is recorded on node \"",
                              state.pod->spec.node_name, "\" but updated from node \"",
                              old_pod.spec.node_name, "\""));
  }
  RemovePodFromNode(*state.pod);
  AddPodToNode(new_pod);
  state.pod = std::move(new_pod);
  UpdateGauges();
  return absl::OkStatus();
}

absl::Status CacheImpl::RemovePod(const kube::Pod& pod) {
  absl::MutexLock lock(&mu_);
  const std::string key = PodKey(pod);
  const auto it = pod_states_.find(key);
  if (it == pod_states_.end()) {
    return Invalid("RemovePod",
                   absl::NotFoundError(absl::StrCat(
                       Describe(pod), " is not in the cache, so it can't be removed")));
  }
  const kube::Pod& cached = *it->second.pod;
  if (!pod.spec.node_name.empty() && cached.spec.node_name != pod.spec.node_name) {
    Log(Component::kCache)
        .warn("removed pod is recorded on another node pod={} recorded_node={} node={}",
              kube::NamespacedName(pod), cached.spec.node_name, pod.spec.node_name);
  }
  RemovePodFromNode(cached);
  ErasePodState(key);
  UpdateGauges();
  return absl::OkStatus();
}

bool CacheImpl::IsAssumedPod(const kube::Pod& pod) const {
  absl::MutexLock lock(&mu_);
  return assumed_pods_.contains(PodKey(pod));
}

absl::StatusOr<std::shared_ptr<const kube::Pod>> CacheImpl::GetPod(const kube::Pod& pod) const {
  absl::MutexLock lock(&mu_);
  const auto it = pod_states_.find(PodKey(pod));
  if (it == pod_states_.end()) {
    return absl::NotFoundError(absl::StrCat(Describe(pod), " is not in the cache"));
  }
  return it->second.pod;
}

int CacheImpl::CleanupAssumedPods(absl::Time now) {
  if (options_.assumed_pod_ttl == absl::ZeroDuration()) return 0;
  absl::MutexLock lock(&mu_);
  std::vector<std::string> expired;
  for (const std::string& key : assumed_pods_) {
    const PodState& state = pod_states_.at(key);
    // Binding still in flight: the binding cycle will Forget or FinishBinding it.
    if (!state.binding_finished) continue;
    if (now > state.deadline) expired.push_back(key);
  }
  for (const std::string& key : expired) {
    const std::shared_ptr<const kube::Pod> pod = pod_states_.at(key).pod;
    Log(Component::kCache)
        .warn("assumed pod expired without the informer's add pod={} node={}",
              kube::NamespacedName(*pod), pod->spec.node_name);
    RemovePodFromNode(*pod);
    ErasePodState(key);
  }
  UpdateGauges();
  return static_cast<int>(expired.size());
}

// ---- Nodes ----

absl::Status CacheImpl::SetNode(std::shared_ptr<const kube::Node> node,
                                absl::string_view operation) {
  if (node == nullptr) return Invalid(operation, absl::InvalidArgumentError("null node"));
  if (node->metadata.name.empty()) {
    return Invalid(operation, absl::InvalidArgumentError("node without a name"));
  }
  const auto it = nodes_.find(node->metadata.name);
  if (it == nodes_.end()) {
    node_tree_.AddNode(*node);
    tree_version_ = NextGeneration();
    node_list_.emplace_front(node);
    nodes_.emplace(node->metadata.name, node_list_.begin());
    UpdateGauges();
    return absl::OkStatus();
  }
  NodeInfo& info = *it->second;
  const std::shared_ptr<const kube::Node> old = info.shared_node();
  if (old == nullptr) {
    // A placeholder (pods arrived first, or the node was removed and came back).
    node_tree_.AddNode(*node);
    tree_version_ = NextGeneration();
  } else if (GetZoneKey(*old) != GetZoneKey(*node)) {
    node_tree_.UpdateNode(*old, *node);
    tree_version_ = NextGeneration();
  }
  info.SetNode(std::move(node));
  MoveToFront(it->second);
  UpdateGauges();
  return absl::OkStatus();
}

absl::Status CacheImpl::AddNode(std::shared_ptr<const kube::Node> node) {
  absl::MutexLock lock(&mu_);
  return SetNode(std::move(node), "AddNode");
}

absl::Status CacheImpl::UpdateNode(std::shared_ptr<const kube::Node> node) {
  absl::MutexLock lock(&mu_);
  return SetNode(std::move(node), "UpdateNode");
}

absl::Status CacheImpl::RemoveNode(const kube::Node& node) {
  absl::MutexLock lock(&mu_);
  const auto it = nodes_.find(node.metadata.name);
  if (it == nodes_.end() || it->second->node() == nullptr) {
    return Invalid("RemoveNode",
                   absl::NotFoundError(absl::StrCat("node \"", node.metadata.name,
                                                    "\" is not in the cache, so it can't be "
                                                    "removed")));
  }
  NodeInfo& info = *it->second;
  // The recorded node's labels place it in the tree (the caller's copy may differ).
  if (absl::Status s = node_tree_.RemoveNode(*info.node()); !s.ok()) {
    TRIMARAN_BUG(absl::StrCat("cache: ", s.message()));
  }
  tree_version_ = NextGeneration();
  if (info.pods().empty()) {
    node_list_.erase(it->second);
    nodes_.erase(it);
  } else {
    // Pods still point at it: keep their accounting until they go (as upstream).
    info.RemoveNode();
    MoveToFront(it->second);
  }
  UpdateGauges();
  return absl::OkStatus();
}

// ---- Snapshot ----

void CacheImpl::RebuildSnapshotList(Snapshot& snapshot) {
  // Drop the snapshot's nodes that are gone from the cache (or are placeholders now).
  for (auto it = snapshot.node_info_map_.begin(); it != snapshot.node_info_map_.end();) {
    const auto node = nodes_.find(it->first);
    if (node == nodes_.end() || node->second->node() == nullptr) {
      snapshot.images_.RemoveNode(it->second.get(), *it->second->node());
      snapshot.node_info_map_.erase(it++);
    } else {
      ++it;
    }
  }
  snapshot.node_info_list_.clear();
  snapshot.node_info_list_.reserve(node_tree_.NumNodes());
  node_tree_.ForEach([&](const std::string& name) {
    const auto it = snapshot.node_info_map_.find(name);
    if (it == snapshot.node_info_map_.end()) {
      TRIMARAN_BUG(absl::StrCat("cache: node \"", name, "\" is in the tree but not the snapshot"));
      return;
    }
    snapshot.node_info_list_.push_back(it->second.get());
  });
  snapshot.list_version_ = tree_version_;
}

void CacheImpl::RebuildAffinityLists(Snapshot& snapshot) {
  snapshot.have_pods_with_affinity_.clear();
  snapshot.have_pods_with_required_anti_affinity_.clear();
  for (const NodeInfo* info : snapshot.node_info_list_) {
    if (!info->pods_with_affinity().empty()) snapshot.have_pods_with_affinity_.push_back(info);
    if (!info->pods_with_required_anti_affinity().empty()) {
      snapshot.have_pods_with_required_anti_affinity_.push_back(info);
    }
  }
}

absl::Status CacheImpl::UpdateSnapshot(Snapshot& snapshot) {
  absl::MutexLock lock(&mu_);
  int64_t copied = 0;
  bool rebuild = snapshot.list_version_ != tree_version_;
  bool affinity_lists_changed = false;
  // Newest first: stop at the first NodeInfo the snapshot already has.
  for (const NodeInfo& info : node_list_) {
    if (info.generation() <= snapshot.generation_) break;
    if (info.node() == nullptr) continue;  // placeholders are not scheduled on
    std::unique_ptr<NodeInfo>& slot = snapshot.node_info_map_[info.name()];
    if (slot == nullptr) {
      slot = std::make_unique<NodeInfo>(info);
      snapshot.images_.AddNode(slot.get(), *slot->node());
      rebuild = true;
    } else {
      affinity_lists_changed |=
          slot->pods_with_affinity().empty() != info.pods_with_affinity().empty() ||
          slot->pods_with_required_anti_affinity().empty() !=
              info.pods_with_required_anti_affinity().empty();
      const bool images_changed = ImagesChanged(*slot, info);
      if (images_changed) snapshot.images_.RemoveNode(slot.get(), *slot->node());
      *slot = info;  // copy-assign: reuses the pods vector's capacity
      if (images_changed) snapshot.images_.AddNode(slot.get(), *slot->node());
    }
    ++copied;
  }
  // Every NodeInfo at or below the new mark is now in the snapshot (or a placeholder):
  // generations are process-wide, so anything changed later gets a larger one.
  if (!node_list_.empty()) {
    snapshot.generation_ = std::max(snapshot.generation_, node_list_.front().generation());
  }
  if (rebuild) RebuildSnapshotList(snapshot);

  if (snapshot.node_info_list_.size() != node_tree_.NumNodes() ||
      snapshot.node_info_map_.size() != node_tree_.NumNodes()) {
    // Cannot happen while the invariants hold; repair by copying everything.
    TRIMARAN_BUG(absl::StrCat("cache: snapshot has ", snapshot.node_info_map_.size(),
                              " NodeInfos and ", snapshot.node_info_list_.size(),
                              " list entries but the cache has ", node_tree_.NumNodes(),
                              " nodes; rebuilding it"));
    snapshot.node_info_map_.clear();
    snapshot.images_.Clear();
    for (const NodeInfo& info : node_list_) {
      if (info.node() == nullptr) continue;
      std::unique_ptr<NodeInfo>& slot = snapshot.node_info_map_[info.name()];
      slot = std::make_unique<NodeInfo>(info);
      snapshot.images_.AddNode(slot.get(), *slot->node());
      ++copied;
    }
    RebuildSnapshotList(snapshot);
    rebuild = true;
  }
  if (rebuild || affinity_lists_changed) RebuildAffinityLists(snapshot);
  snapshot.last_update_copied_nodes_ = copied;
  snapshot.last_update_rebuilt_list_ = rebuild;
  return absl::OkStatus();
}

int CacheImpl::NodeCount() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(nodes_.size());
}

int CacheImpl::PodCount() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(pod_states_.size());
}

CacheDump CacheImpl::Dump() const {
  absl::MutexLock lock(&mu_);
  CacheDump dump;
  std::vector<std::pair<std::string, const NodeInfo*>> nodes;
  nodes.reserve(nodes_.size());
  for (const auto& [name, it] : nodes_) nodes.emplace_back(name, &*it);
  std::sort(nodes.begin(), nodes.end());
  dump.node_names.reserve(nodes.size());
  dump.nodes.reserve(nodes.size());
  for (const auto& [name, info] : nodes) {
    dump.node_names.push_back(name);
    dump.nodes.push_back(*info);
  }
  for (const std::string& key : assumed_pods_) {
    dump.assumed_pods.push_back(kube::NamespacedName(*pod_states_.at(key).pod));
  }
  std::sort(dump.assumed_pods.begin(), dump.assumed_pods.end());
  return dump;
}

int64_t CacheImpl::InvalidOperationsForTest() const {
  absl::MutexLock lock(&mu_);
  return invalid_operations_total_;
}

}  // namespace trimaran::sched
