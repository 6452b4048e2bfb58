#include "scheduler/framework/node_info.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/check.h"

namespace trimaran::sched {
namespace {

absl::string_view SanitizeIP(absl::string_view ip) {
  return ip.empty() ? kDefaultBindAllHostIP : ip;
}

// One pod identity for the cache: the UID when both sides have one (upstream keys the
// cache by UID), else namespace/name (pods built by tests or other tools without UIDs).
bool SamePod(const kube::Pod& a, const kube::Pod& b) {
  if (!a.metadata.uid.empty() && !b.metadata.uid.empty()) return a.metadata.uid == b.metadata.uid;
  return a.metadata.name == b.metadata.name &&
         a.metadata.namespace_name == b.metadata.namespace_name;
}

const std::string& EmptyString() {
  static const auto* const kEmpty = new std::string();
  return *kEmpty;
}

}  // namespace

NonZeroRequest ComputeNonZeroRequest(const kube::Pod& pod) {
  const kube::Resource r = kube::ComputePodRequests(pod, {.non_zero = true});
  return {.milli_cpu = r.milli_cpu, .memory = r.memory};
}

std::vector<kube::ContainerPort> GetHostPorts(const kube::Pod& pod) {
  std::vector<kube::ContainerPort> ports;
  for (const auto* containers : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const kube::Container& c : *containers) {
      for (const kube::ContainerPort& p : c.ports) {
        if (p.host_port > 0) ports.push_back(p);
      }
    }
  }
  return ports;
}

PodInfo PodInfo::Create(std::shared_ptr<const kube::Pod> pod) {
  TRIMARAN_CHECK(pod != nullptr) << "PodInfo::Create with a null pod";
  PodInfo info;
  info.request = kube::ComputePodRequests(*pod);
  info.non_zero_request = ComputeNonZeroRequest(*pod);
  info.pod = std::move(pod);
  return info;
}

// ---- HostPortInfo ----

void HostPortInfo::Add(absl::string_view ip, kube::Protocol protocol, int32_t port) {
  if (port <= 0) return;
  ip = SanitizeIP(ip);
  for (Entry& e : entries_) {
    if (e.port == port && e.protocol == protocol && e.ip == ip) {
      ++e.uses;
      return;
    }
  }
  entries_.push_back(Entry{std::string(ip), protocol, port, 1});
}

void HostPortInfo::Remove(absl::string_view ip, kube::Protocol protocol, int32_t port) {
  if (port <= 0) return;
  ip = SanitizeIP(ip);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->port == port && it->protocol == protocol && it->ip == ip) {
      if (--it->uses == 0) {
        *it = std::move(entries_.back());
        entries_.pop_back();
      }
      return;
    }
  }
}

bool HostPortInfo::CheckConflict(absl::string_view ip, kube::Protocol protocol,
                                 int32_t port) const {
  if (port <= 0) return false;
  ip = SanitizeIP(ip);
  const bool wildcard = ip == kDefaultBindAllHostIP;
  for (const Entry& e : entries_) {
    if (e.port != port || e.protocol != protocol) continue;
    // 0.0.0.0 on either side overlaps every IP.
    if (wildcard || e.ip == kDefaultBindAllHostIP || e.ip == ip) return true;
  }
  return false;
}

// ---- NodeInfo ----

int64_t NextGeneration() {
  static std::atomic<int64_t> generation{0};
  return generation.fetch_add(1, std::memory_order_relaxed) + 1;
}

NodeInfo::NodeInfo(std::shared_ptr<const kube::Node> node) { SetNode(std::move(node)); }

const std::string& NodeInfo::name() const { return node_ ? node_->metadata.name : EmptyString(); }

void NodeInfo::SetNode(std::shared_ptr<const kube::Node> node) {
  TRIMARAN_CHECK(node != nullptr) << "NodeInfo::SetNode with a null node";
  allocatable_ = kube::Resource::FromResourceList(node->status.allocatable);
  node_ = std::move(node);
  generation_ = NextGeneration();
}

void NodeInfo::RemoveNode() {
  node_.reset();
  allocatable_ = kube::Resource();
  generation_ = NextGeneration();
}

bool PodHasAffinityTerms(const kube::Pod& pod) {
  return pod.spec.affinity.has_value() && (pod.spec.affinity->pod_affinity.has_value() ||
                                           pod.spec.affinity->pod_anti_affinity.has_value());
}

bool PodHasRequiredAntiAffinity(const kube::Pod& pod) {
  return pod.spec.affinity.has_value() && pod.spec.affinity->pod_anti_affinity.has_value() &&
         !pod.spec.affinity->pod_anti_affinity->required.empty();
}

namespace {

// Removes the entry for `pod` from `list` (order not kept); false when absent.
bool RemoveFrom(std::vector<PodInfo>& list, const kube::Pod& pod) {
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (SamePod(*it->pod, pod)) {
      if (it != list.end() - 1) *it = std::move(list.back());
      list.pop_back();
      return true;
    }
  }
  return false;
}

}  // namespace

void NodeInfo::AddPod(std::shared_ptr<const kube::Pod> pod) {
  AddPodInfo(PodInfo::Create(std::move(pod)));
}

void NodeInfo::AddPodInfo(PodInfo pod_info) {
  TRIMARAN_CHECK(pod_info.pod != nullptr) << "NodeInfo::AddPodInfo with a null pod";
  requested_.Add(pod_info.request);
  non_zero_requested_.milli_cpu += pod_info.non_zero_request.milli_cpu;
  non_zero_requested_.memory += pod_info.non_zero_request.memory;
  UpdatePorts(*pod_info.pod, /*add=*/true);
  if (PodHasAffinityTerms(*pod_info.pod)) {
    pods_with_affinity_.push_back(pod_info);
    if (PodHasRequiredAntiAffinity(*pod_info.pod)) {
      pods_with_required_anti_affinity_.push_back(pod_info);
    }
  }
  pods_.push_back(std::move(pod_info));
  generation_ = NextGeneration();
}

absl::Status NodeInfo::RemovePod(const kube::Pod& pod) {
  const auto it = std::find_if(pods_.begin(), pods_.end(),
                               [&](const PodInfo& p) { return SamePod(*p.pod, pod); });
  if (it == pods_.end()) {
    return absl::NotFoundError(
        absl::StrCat("no pod ", kube::NamespacedName(pod), " on node \"", name(), "\""));
  }
  // Subtract what was added (the stored requests), not a recomputation from `pod`,
  // which may be a newer version of the object.
  requested_.Sub(it->request);
  non_zero_requested_.milli_cpu -= it->non_zero_request.milli_cpu;
  non_zero_requested_.memory -= it->non_zero_request.memory;
  UpdatePorts(*it->pod, /*add=*/false);
  if (PodHasAffinityTerms(*it->pod)) {
    RemoveFrom(pods_with_affinity_, *it->pod);
    RemoveFrom(pods_with_required_anti_affinity_, *it->pod);
  }
  if (it != pods_.end() - 1) *it = std::move(pods_.back());
  pods_.pop_back();
  generation_ = NextGeneration();
  return absl::OkStatus();
}

void NodeInfo::UpdatePorts(const kube::Pod& pod, bool add) {
  for (const auto* containers : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const kube::Container& c : *containers) {
      for (const kube::ContainerPort& p : c.ports) {
        if (p.host_port <= 0) continue;
        if (add) {
          used_ports_.Add(p.host_ip, p.protocol, p.host_port);
        } else {
          used_ports_.Remove(p.host_ip, p.protocol, p.host_port);
        }
      }
    }
  }
}

std::string NodeInfo::DebugString() const {
  std::string out = absl::StrCat("node=", node_ ? name() : "<none>", " generation=", generation_,
                                 " pods=", pods_.size(), " requested={", requested_.DebugString(),
                                 "} non_zero_requested={cpu=", non_zero_requested_.milli_cpu,
                                 "m memory=", non_zero_requested_.memory, "} allocatable={",
                                 allocatable_.DebugString(), "} used_ports=", used_ports_.size());
  return out;
}

}  // namespace trimaran::sched
