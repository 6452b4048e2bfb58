#pragma once
// Builders for tests of the volume plugins: pods with volumes, PersistentVolumes,
// PersistentVolumeClaims, StorageClasses and CSINodes (kube/api/storage.h), in the style
// of wrappers.h:
//
//   kube::Pod pod = WithClaims(MakePod().Name("p").Namespace("ns").Obj(), {"data"});
//   kube::PersistentVolumeClaim c = MakeClaim("ns", "data").Class("wait").Request("5Gi").Obj();
//   kube::PersistentVolume pv = MakePv("pv-a").Capacity("10Gi").Label("zone", "a").Obj();
//
// Thread-safety: plain values; not for concurrent use.

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "kube/api/pod.h"
#include "kube/api/quantity.h"
#include "kube/api/storage.h"

namespace trimaran::kube::testing {

// `pod` with one persistentVolumeClaim volume per claim name (volume "vol-<i>").
inline Pod WithClaims(Pod pod, std::initializer_list<std::string> claims) {
  int i = static_cast<int>(pod.spec.volumes.size());
  for (const std::string& claim : claims) {
    Volume v;
    v.name = "vol-" + std::to_string(i++);
    v.persistent_volume_claim = PersistentVolumeClaimVolumeSource{.claim_name = claim};
    pod.spec.volumes.push_back(std::move(v));
  }
  return pod;
}

// `pod` with `volume` added.
inline Pod WithVolume(Pod pod, Volume volume) {
  pod.spec.volumes.push_back(std::move(volume));
  return pod;
}

class ClaimWrapper {
 public:
  explicit ClaimWrapper(PersistentVolumeClaim claim) : c_(std::move(claim)) {}
  ClaimWrapper(std::string ns, std::string name) {
    c_.metadata.namespace_name = std::move(ns);
    c_.metadata.name = std::move(name);
    c_.metadata.uid = c_.metadata.namespace_name + "/" + c_.metadata.name;
    c_.metadata.resource_version = "1";
    c_.spec.access_modes = {std::string(kReadWriteOnce)};
  }
  ClaimWrapper& Class(std::string name) {
    c_.spec.storage_class_name = std::move(name);
    return *this;
  }
  ClaimWrapper& Request(std::string_view quantity) {
    c_.spec.request = Quantity::Parse(quantity).value();
    return *this;
  }
  ClaimWrapper& AccessModes(std::vector<std::string> modes) {
    c_.spec.access_modes = std::move(modes);
    return *this;
  }
  // spec.volumeName + the bind-completed annotation ("fully bound").
  ClaimWrapper& BoundTo(std::string pv) {
    c_.spec.volume_name = std::move(pv);
    c_.metadata.annotations[std::string(kAnnBindCompleted)] = "yes";
    c_.phase = std::string(kPhaseBound);
    return *this;
  }
  // spec.volumeName only (the PV controller has not finished).
  ClaimWrapper& VolumeName(std::string pv) {
    c_.spec.volume_name = std::move(pv);
    return *this;
  }
  ClaimWrapper& Annotation(std::string key, std::string value) {
    c_.metadata.annotations[std::move(key)] = std::move(value);
    return *this;
  }
  ClaimWrapper& Phase(std::string phase) {
    c_.phase = std::move(phase);
    return *this;
  }
  ClaimWrapper& Deleting() {
    c_.metadata.deletion_timestamp = absl::UnixEpoch();
    return *this;
  }
  PersistentVolumeClaim Obj() && { return std::move(c_); }
  PersistentVolumeClaim Obj() const& { return c_; }

 private:
  PersistentVolumeClaim c_;
};

inline ClaimWrapper MakeClaim(std::string ns, std::string name) {
  return ClaimWrapper(std::move(ns), std::move(name));
}

class PvWrapper {
 public:
  explicit PvWrapper(std::string name) {
    pv_.metadata.name = std::move(name);
    pv_.metadata.resource_version = "1";
    pv_.spec.access_modes = {std::string(kReadWriteOnce)};
    pv_.phase = std::string(kPhaseAvailable);
  }
  PvWrapper& Capacity(std::string_view quantity) {
    pv_.spec.capacity = Quantity::Parse(quantity).value();
    return *this;
  }
  PvWrapper& Class(std::string name) {
    pv_.spec.storage_class_name = std::move(name);
    return *this;
  }
  PvWrapper& Label(std::string key, std::string value) {
    pv_.metadata.labels[std::move(key)] = std::move(value);
    return *this;
  }
  PvWrapper& AccessModes(std::vector<std::string> modes) {
    pv_.spec.access_modes = std::move(modes);
    return *this;
  }
  // A required node affinity of one term: `key` In `values`.
  PvWrapper& NodeAffinityIn(std::string key, std::vector<std::string> values) {
    NodeSelectorTerm term;
    term.match_expressions.push_back(NodeSelectorRequirement{
        .key = std::move(key), .op = NodeSelectorOperator::kIn, .values = std::move(values)});
    pv_.spec.node_affinity.emplace().node_selector_terms.push_back(std::move(term));
    return *this;
  }
  PvWrapper& ClaimRef(const PersistentVolumeClaim& claim) {
    pv_.spec.claim_ref = ObjectReference{.kind = "PersistentVolumeClaim",
                                         .namespace_name = claim.metadata.namespace_name,
                                         .name = claim.metadata.name,
                                         .uid = claim.metadata.uid};
    pv_.phase = std::string(kPhaseBound);
    return *this;
  }
  PvWrapper& Csi(std::string driver, std::string handle) {
    pv_.spec.csi = CSIVolumeSource{.driver = std::move(driver), .volume_handle = std::move(handle)};
    return *this;
  }
  PvWrapper& Ebs(std::string volume_id) {
    pv_.spec.aws_elastic_block_store = AWSElasticBlockStoreVolumeSource{.volume_id = volume_id};
    return *this;
  }
  PvWrapper& Gce(std::string pd_name) {
    pv_.spec.gce_persistent_disk = GCEPersistentDiskVolumeSource{.pd_name = std::move(pd_name)};
    return *this;
  }
  PvWrapper& Phase(std::string phase) {
    pv_.phase = std::move(phase);
    return *this;
  }
  PersistentVolume Obj() && { return std::move(pv_); }
  PersistentVolume Obj() const& { return pv_; }

 private:
  PersistentVolume pv_;
};

inline PvWrapper MakePv(std::string name) { return PvWrapper(std::move(name)); }

// A StorageClass; `mode` "" leaves volumeBindingMode unset.
inline StorageClass MakeStorageClass(std::string name, std::string provisioner,
                                     std::string mode = std::string(kBindingImmediate)) {
  StorageClass sc;
  sc.metadata.name = std::move(name);
  sc.provisioner = std::move(provisioner);
  if (!mode.empty()) sc.volume_binding_mode = std::move(mode);
  return sc;
}

// A CSINode with one driver per (name, allocatable count; < 0 = no count).
inline CSINode MakeCsiNode(std::string node, std::vector<std::pair<std::string, int32_t>> drivers) {
  CSINode n;
  n.metadata.name = std::move(node);
  for (auto& [name, count] : drivers) {
    CSINodeDriver d;
    d.name = name;
    d.node_id = n.metadata.name;
    if (count >= 0) d.allocatable_count = count;
    n.drivers.push_back(std::move(d));
  }
  return n;
}

}  // namespace trimaran::kube::testing
