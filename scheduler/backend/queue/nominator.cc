#include "scheduler/backend/queue/nominator.h"

#include <algorithm>
#include <utility>

#include "scheduler/backend/queue/pod_heap.h"

namespace trimaran::sched {

void Nominator::Add(PodInfo pod_info, absl::string_view node_name) {
  const kube::Pod& pod = *pod_info.pod;
  std::string key = PodKey(pod);
  Delete(key);
  std::string node(node_name.empty() ? absl::string_view(pod.status.nominated_node_name)
                                     : node_name);
  if (node.empty() || kube::IsAssigned(pod)) return;
  node_to_pods_[node].push_back(std::move(pod_info));
  pod_to_node_.emplace(std::move(key), std::move(node));
}

void Nominator::Delete(absl::string_view key) {
  auto it = pod_to_node_.find(key);
  if (it == pod_to_node_.end()) return;
  auto node_it = node_to_pods_.find(it->second);
  if (node_it != node_to_pods_.end()) {
    std::vector<PodInfo>& pods = node_it->second;
    pods.erase(std::remove_if(pods.begin(), pods.end(),
                              [&](const PodInfo& p) { return PodKey(*p.pod) == key; }),
               pods.end());
    if (pods.empty()) node_to_pods_.erase(node_it);
  }
  pod_to_node_.erase(it);
}

void Nominator::Update(const kube::Pod& old_pod, PodInfo new_pod_info) {
  std::string keep;
  if (old_pod.status.nominated_node_name.empty() &&
      new_pod_info.pod->status.nominated_node_name.empty()) {
    keep = NodeOf(PodKey(old_pod));
  }
  Delete(PodKey(old_pod));
  Add(std::move(new_pod_info), keep);
}

std::vector<PodInfo> Nominator::PodsForNode(absl::string_view node_name) const {
  auto it = node_to_pods_.find(node_name);
  if (it == node_to_pods_.end()) return {};
  return it->second;
}

std::string Nominator::NodeOf(absl::string_view key) const {
  auto it = pod_to_node_.find(key);
  return it == pod_to_node_.end() ? std::string() : it->second;
}

}  // namespace trimaran::sched
