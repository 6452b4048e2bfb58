#include "scheduler/testing/fake_handle.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace trimaran::sched::testing {

std::vector<std::shared_ptr<NodeInfo>> MakeNodeInfos(const std::vector<kube::Node>& nodes,
                                                     const std::vector<kube::Pod>& pods) {
  std::vector<std::shared_ptr<NodeInfo>> infos;
  absl::flat_hash_map<std::string, NodeInfo*> by_name;
  infos.reserve(nodes.size());
  for (const kube::Node& node : nodes) {
    infos.push_back(std::make_shared<NodeInfo>(std::make_shared<const kube::Node>(node)));
    by_name[node.metadata.name] = infos.back().get();
  }
  for (const kube::Pod& pod : pods) {
    const auto it = by_name.find(pod.spec.node_name);
    if (it != by_name.end()) it->second->AddPod(std::make_shared<const kube::Pod>(pod));
  }
  return infos;
}

void FakeSnapshot::SetNodeInfos(std::vector<std::shared_ptr<NodeInfo>> node_infos) {
  owned_ = std::move(node_infos);
  list_.clear();
  with_affinity_.clear();
  with_required_anti_affinity_.clear();
  by_name_.clear();
  for (const auto& info : owned_) {
    list_.push_back(info.get());
    by_name_[info->name()] = info.get();
    if (!info->pods_with_affinity().empty()) with_affinity_.push_back(info.get());
    if (!info->pods_with_required_anti_affinity().empty()) {
      with_required_anti_affinity_.push_back(info.get());
    }
  }
}

NodeInfo* FakeSnapshot::MutableNodeInfo(absl::string_view node_name) {
  const auto it = by_name_.find(node_name);
  return it == by_name_.end() ? nullptr : it->second;
}

absl::StatusOr<const NodeInfo*> FakeSnapshot::Get(absl::string_view node_name) const {
  const auto it = by_name_.find(node_name);
  if (it == by_name_.end()) {
    return absl::NotFoundError(absl::StrCat("node \"", node_name, "\" not found in snapshot"));
  }
  return it->second;
}

void FakeEventRecorder::Eventf(const kube::Pod& regarding, const kube::Pod* related, EventType type,
                               absl::string_view reason, absl::string_view action,
                               absl::string_view note) {
  RecordedEvent event{.regarding = kube::NamespacedName(regarding),
                      .related = related == nullptr ? "" : kube::NamespacedName(*related),
                      .type = type,
                      .reason = std::string(reason),
                      .action = std::string(action),
                      .note = std::string(note)};
  absl::MutexLock lock(&mu_);
  events_.push_back(std::move(event));
}

std::vector<RecordedEvent> FakeEventRecorder::Events() const {
  absl::MutexLock lock(&mu_);
  return events_;
}

void FakeEventRecorder::Clear() {
  absl::MutexLock lock(&mu_);
  events_.clear();
}

// The daemon's prefixes (cmd/scheduler/app.cc).
FakeHandle::FakeHandle()
    : client_(clock_),
      scopes_{.upstream = stats::Scope(registry_, "scheduler_"),
              .own = stats::Scope(registry_, "trimaran_")} {}

std::unique_ptr<FakeHandle> NewHandleForTest(const std::vector<kube::Node>& nodes,
                                             const std::vector<kube::Pod>& pods) {
  auto handle = std::make_unique<FakeHandle>();
  handle->snapshot().Set(nodes, pods);
  return handle;
}

}  // namespace trimaran::sched::testing
