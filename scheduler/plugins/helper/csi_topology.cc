#include "scheduler/plugins/helper/csi_topology.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "kube/api/node.h"

namespace trimaran::sched::plugins::helper {
namespace {

constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegion = "failure-domain.beta.kubernetes.io/region";

bool AffinityUses(const kube::PersistentVolume& pv, std::string_view key) {
  if (!pv.spec.node_affinity) return false;
  for (const kube::NodeSelectorTerm& term : pv.spec.node_affinity->node_selector_terms) {
    for (const kube::NodeSelectorRequirement& r : term.match_expressions) {
      if (r.key == key) return true;
    }
  }
  return false;
}

// Upstream's getTopologyLabel: which zone/region label pair the PV speaks.
std::pair<std::string_view, std::string_view> ZoneAndRegionKeys(const kube::PersistentVolume& pv) {
  if (AffinityUses(pv, kube::kLabelTopologyZone)) {
    return {kube::kLabelTopologyZone, kube::kLabelTopologyRegion};
  }
  if (AffinityUses(pv, kBetaZone)) return {kBetaZone, kBetaRegion};
  if (pv.metadata.labels.contains(kube::kLabelTopologyZone)) {
    return {kube::kLabelTopologyZone, kube::kLabelTopologyRegion};
  }
  if (pv.metadata.labels.contains(kBetaZone)) return {kBetaZone, kBetaRegion};
  return {kube::kLabelTopologyZone, kube::kLabelTopologyRegion};
}

// Whether some requirement on `key` carries a value (upstream's getTopologyValues is
// non-empty).
bool AffinityHasValuesFor(const kube::PersistentVolume& pv, std::string_view key) {
  if (!pv.spec.node_affinity) return false;
  for (const kube::NodeSelectorTerm& term : pv.spec.node_affinity->node_selector_terms) {
    for (const kube::NodeSelectorRequirement& r : term.match_expressions) {
      if (r.key == key && !r.values.empty()) return true;
    }
  }
  return false;
}

void RenameKey(kube::NodeSelector& selector, std::string_view from, std::string_view to) {
  for (kube::NodeSelectorTerm& term : selector.node_selector_terms) {
    for (kube::NodeSelectorRequirement& r : term.match_expressions) {
      if (r.key == from) r.key = std::string(to);
    }
  }
}

}  // namespace

std::string_view InTreePluginOf(const kube::PersistentVolume& pv) {
  if (pv.spec.csi) return "";
  if (pv.spec.aws_elastic_block_store) return "kubernetes.io/aws-ebs";
  if (pv.spec.gce_persistent_disk) return "kubernetes.io/gce-pd";
  if (pv.spec.azure_disk) return "kubernetes.io/azure-disk";
  if (pv.spec.cinder) return "kubernetes.io/cinder";
  return "";
}

bool PluginMigratedOnNode(std::string_view plugin, const kube::CSINode* csi_node) {
  if (csi_node == nullptr || plugin.empty()) return false;
  auto it = csi_node->metadata.annotations.find(kube::kAnnMigratedPlugins);
  if (it == csi_node->metadata.annotations.end()) return false;
  for (absl::string_view p : absl::StrSplit(it->second, ',')) {
    if (std::string_view(p.data(), p.size()) == plugin) return true;
  }
  return false;
}

std::string_view CsiTopologyKey(std::string_view plugin) {
  if (plugin == "kubernetes.io/aws-ebs") return "topology.ebs.csi.aws.com/zone";
  if (plugin == "kubernetes.io/gce-pd") return "topology.gke.io/zone";
  if (plugin == "kubernetes.io/azure-disk") return "topology.disk.csi.azure.com/zone";
  if (plugin == "kubernetes.io/cinder") return "topology.cinder.csi.openstack.org/zone";
  return "";
}

kube::PersistentVolume TranslateInTreeTopology(const kube::PersistentVolume& pv,
                                               std::string_view csi_key) {
  kube::PersistentVolume out = pv;
  const auto [zone_key, region_key] = ZoneAndRegionKeys(pv);
  if (AffinityHasValuesFor(pv, zone_key)) {
    RenameKey(*out.spec.node_affinity, zone_key, csi_key);
  } else if (auto label = pv.metadata.labels.find(zone_key); label != pv.metadata.labels.end()) {
    std::set<std::string> zones;  // sorted and unique, as upstream's sets.String.List()
    for (absl::string_view z : absl::StrSplit(label->second, "__")) {
      z = absl::StripAsciiWhitespace(z);
      if (!z.empty()) zones.emplace(z);
    }
    if (!zones.empty()) {
      if (!out.spec.node_affinity) out.spec.node_affinity.emplace();
      auto& terms = out.spec.node_affinity->node_selector_terms;
      if (terms.empty()) terms.emplace_back();
      kube::NodeSelectorRequirement requirement;
      requirement.key = std::string(csi_key);
      requirement.op = kube::NodeSelectorOperator::kIn;
      requirement.values.assign(zones.begin(), zones.end());
      for (kube::NodeSelectorTerm& term : terms) term.match_expressions.push_back(requirement);
    }
  }
  if (region_key == kBetaRegion && AffinityHasValuesFor(pv, kBetaRegion)) {
    RenameKey(*out.spec.node_affinity, kBetaRegion, kube::kLabelTopologyRegion);
  }
  return out;
}

}  // namespace trimaran::sched::plugins::helper
