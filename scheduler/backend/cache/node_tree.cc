#include "scheduler/backend/cache/node_tree.h"

#include <algorithm>
#include <string_view>

#include "absl/strings/str_cat.h"

namespace trimaran::sched {
namespace {

constexpr std::string_view kLabelFailureDomainBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kLabelFailureDomainBetaRegion =
    "failure-domain.beta.kubernetes.io/region";

std::string_view LabelOr(const kube::Labels& labels, std::string_view key,
                         std::string_view fallback_key) {
  if (auto it = labels.find(key); it != labels.end()) return it->second;
  if (auto it = labels.find(fallback_key); it != labels.end()) return it->second;
  return {};
}

}  // namespace

std::string GetZoneKey(const kube::Node& node) {
  const kube::Labels& labels = node.metadata.labels;
  const std::string_view zone =
      LabelOr(labels, kube::kLabelTopologyZone, kLabelFailureDomainBetaZone);
  const std::string_view region =
      LabelOr(labels, kube::kLabelTopologyRegion, kLabelFailureDomainBetaRegion);
  if (zone.empty() && region.empty()) return "";
  // A separator no label value can contain (label values are [-A-Za-z0-9_.]).
  std::string key(region);
  key.append(":\x00:", 3);
  key.append(zone);
  return key;
}

void NodeTree::AddNode(const kube::Node& node) {
  const std::string zone = GetZoneKey(node);
  auto [it, inserted] = nodes_by_zone_.try_emplace(zone);
  std::vector<std::string>& names = it->second;
  if (inserted) {
    zones_.push_back(zone);
  } else if (std::find(names.begin(), names.end(), node.metadata.name) != names.end()) {
    return;
  }
  names.push_back(node.metadata.name);
  ++num_nodes_;
}

bool NodeTree::RemoveFromZone(const std::string& zone, const std::string& name) {
  const auto it = nodes_by_zone_.find(zone);
  if (it == nodes_by_zone_.end()) return false;
  std::vector<std::string>& names = it->second;
  const auto pos = std::find(names.begin(), names.end(), name);
  if (pos == names.end()) return false;
  names.erase(pos);  // keeps the order of the others
  --num_nodes_;
  if (names.empty()) {
    nodes_by_zone_.erase(it);
    zones_.erase(std::find(zones_.begin(), zones_.end(), zone));
  }
  return true;
}

absl::Status NodeTree::RemoveNode(const kube::Node& node) {
  if (!RemoveFromZone(GetZoneKey(node), node.metadata.name)) {
    return absl::NotFoundError(
        absl::StrCat("node \"", node.metadata.name, "\" not found in the node tree"));
  }
  return absl::OkStatus();
}

void NodeTree::UpdateNode(const kube::Node& old_node, const kube::Node& new_node) {
  const std::string old_zone = GetZoneKey(old_node);
  const std::string new_zone = GetZoneKey(new_node);
  if (old_zone == new_zone) return;
  RemoveFromZone(old_zone, old_node.metadata.name);
  AddNode(new_node);
}

void NodeTree::ForEach(absl::FunctionRef<void(const std::string& name)> visit) const {
  std::vector<const std::vector<std::string>*> zones;
  zones.reserve(zones_.size());
  size_t longest = 0;
  for (const std::string& zone : zones_) {
    const std::vector<std::string>& names = nodes_by_zone_.at(zone);
    zones.push_back(&names);
    longest = std::max(longest, names.size());
  }
  for (size_t round = 0; round < longest; ++round) {
    for (const std::vector<std::string>* names : zones) {
      if (round < names->size()) visit((*names)[round]);
    }
  }
}

}  // namespace trimaran::sched
