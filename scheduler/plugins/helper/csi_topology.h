#pragma once
// The topology half of upstream's csi-translation-lib, as the volume binder uses it
// (spec kube-scheduler-constraints.md §4.4 step 1): when a bound PV is of an in-tree
// type whose migration to CSI is on for a node (the node's CSINode lists the plugin in
// `storage.alpha.kubernetes.io/migrated-plugins`), the binder checks the PV's node
// affinity *after* translating its zone to the CSI driver's topology key, as the CSI
// driver (and the attach/detach controller) will see it:
//
//   in-tree plugin            CSI topology key
//   kubernetes.io/aws-ebs     topology.ebs.csi.aws.com/zone
//   kubernetes.io/gce-pd      topology.gke.io/zone
//   kubernetes.io/azure-disk  topology.disk.csi.azure.com/zone
//   kubernetes.io/cinder      topology.cinder.csi.openstack.org/zone
//
// Translation rule (upstream's translateTopologyFromInTreeToCSI): the zone key in use is
// the GA `topology.kubernetes.io/zone` when the affinity (else the PV's labels) uses it,
// else the beta `failure-domain.beta.kubernetes.io/zone`. If the affinity names that
// key, every such requirement's key becomes the CSI key; otherwise the PV's zone label
// (`__`-joined for regional disks) is split, trimmed and de-duplicated into one
// `<csi key> In [zones]` requirement appended to every term (a new term when there is
// none). A beta region key in the affinity becomes `topology.kubernetes.io/region`.
//
// Thread-safety: pure functions.

#include <string_view>

#include "kube/api/storage.h"

namespace trimaran::sched::plugins::helper {

// "kubernetes.io/gce-pd", ... for a PV of one of the four migratable in-tree types;
// "" otherwise (CSI, local, hostPath, NFS, ...).
std::string_view InTreePluginOf(const kube::PersistentVolume& pv);

// Whether `csi_node` (nullptr: the node has none) lists `plugin` in its
// migrated-plugins annotation (comma-separated).
bool PluginMigratedOnNode(std::string_view plugin, const kube::CSINode* csi_node);

// The CSI topology key of an in-tree plugin ("" for other plugins).
std::string_view CsiTopologyKey(std::string_view plugin);

// `pv` with its node affinity translated to `csi_key` (the rule above).
kube::PersistentVolume TranslateInTreeTopology(const kube::PersistentVolume& pv,
                                               std::string_view csi_key);

}  // namespace trimaran::sched::plugins::helper
