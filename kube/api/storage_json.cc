// JSON codec: pod volumes (kube/api/volume.h) and the storage objects
// (PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver,
// CSIStorageCapacity; kube/api/storage.h).
// Lenient as the rest of the codec: unknown fields are ignored, enum-like strings are
// kept as written; only a field of the wrong JSON type fails the object.

#include "absl/strings/str_cat.h"
#include "kube/api/internal/json_codec_internal.h"
#include "kube/api/storage.h"
#include "kube/api/volume.h"

namespace trimaran::kube::json_internal {
namespace {

absl::Status ReadSource(const Value& v, const Path& path, PersistentVolumeClaimVolumeSource& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "claimName") return Read(fv, fp, out.claim_name);
    if (k == "readOnly") return Read(fv, fp, out.read_only);
    return absl::OkStatus();
  });
}

absl::Status ReadSource(const Value& v, const Path& path, GCEPersistentDiskVolumeSource& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "pdName") return Read(fv, fp, out.pd_name);
    if (k == "readOnly") return Read(fv, fp, out.read_only);
    return absl::OkStatus();
  });
}

absl::Status ReadSource(const Value& v, const Path& path, AWSElasticBlockStoreVolumeSource& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "volumeID") return Read(fv, fp, out.volume_id);
    if (k == "readOnly") return Read(fv, fp, out.read_only);
    return absl::OkStatus();
  });
}

absl::Status ReadSource(const Value& v, const Path& path, AzureDiskVolumeSource& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "diskName") return Read(fv, fp, out.disk_name);
    if (k == "diskURI") return Read(fv, fp, out.data_disk_uri);
    if (k == "readOnly") return Read(fv, fp, out.read_only);
    return absl::OkStatus();
  });
}

absl::Status ReadSource(const Value& v, const Path& path, CinderVolumeSource& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "volumeID") return Read(fv, fp, out.volume_id);
    if (k == "readOnly") return Read(fv, fp, out.read_only);
    return absl::OkStatus();
  });
}

absl::Status ReadSource(const Value& v, const Path& path, ISCSIVolumeSource& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "targetPortal") return Read(fv, fp, out.target_portal);
    if (k == "iqn") return Read(fv, fp, out.iqn);
    if (k == "lun") return Read(fv, fp, out.lun);
    if (k == "readOnly") return Read(fv, fp, out.read_only);
    return absl::OkStatus();
  });
}

absl::Status ReadSource(const Value& v, const Path& path, RBDVolumeSource& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "monitors") return Read(fv, fp, out.monitors);
    if (k == "image") return Read(fv, fp, out.image);
    if (k == "pool") return Read(fv, fp, out.pool);
    if (k == "readOnly") return Read(fv, fp, out.read_only);
    return absl::OkStatus();
  });
}

absl::Status ReadSource(const Value& v, const Path& path, CSIVolumeSource& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "driver") return Read(fv, fp, out.driver);
    if (k == "volumeHandle") return Read(fv, fp, out.volume_handle);
    if (k == "readOnly") return Read(fv, fp, out.read_only);
    return absl::OkStatus();
  });
}

template <typename T>
absl::Status ReadOptSource(const Value& v, const Path& path, std::optional<T>& out) {
  if (v.IsNull()) return absl::OkStatus();
  return ReadSource(v, path, out.emplace());
}

// The in-tree sources a pod volume and a PV share; false when `k` is none of them.
template <typename S>
bool ReadSharedSource(std::string_view k, const Value& fv, const Path& fp, S& out,
                      absl::Status& status) {
  if (k == "gcePersistentDisk") {
    status = ReadOptSource(fv, fp, out.gce_persistent_disk);
  } else if (k == "awsElasticBlockStore") {
    status = ReadOptSource(fv, fp, out.aws_elastic_block_store);
  } else if (k == "azureDisk") {
    status = ReadOptSource(fv, fp, out.azure_disk);
  } else if (k == "cinder") {
    status = ReadOptSource(fv, fp, out.cinder);
  } else if (k == "csi") {
    status = ReadOptSource(fv, fp, out.csi);
  } else {
    return false;
  }
  return true;
}

// capacity / requests: the "storage" entry of a resource map.
absl::Status ReadStorageQuantity(const Value& v, const Path& path, std::optional<Quantity>& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "storage") return Read(fv, fp, out);
    return absl::OkStatus();
  });
}

absl::Status ReadPhase(const Value& v, const Path& path, std::string& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "phase") return Read(fv, fp, out);
    return absl::OkStatus();
  });
}

absl::Status ReadPv(const Value& v, const Path& path, PersistentVolume& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "metadata") return Read(fv, fp, out.metadata);
    if (k == "status") return ReadPhase(fv, fp, out.phase);
    if (k != "spec") return absl::OkStatus();
    PersistentVolumeSpec& spec = out.spec;
    return ForEachField(fv, fp, [&](std::string_view sk, const Value& sv, const Path& sp) {
      if (sk == "capacity") return ReadStorageQuantity(sv, sp, spec.capacity);
      if (sk == "accessModes") return Read(sv, sp, spec.access_modes);
      if (sk == "claimRef") return Read(sv, sp, spec.claim_ref);
      if (sk == "storageClassName") return Read(sv, sp, spec.storage_class_name);
      if (sk == "volumeMode") return Read(sv, sp, spec.volume_mode);
      if (sk == "nodeAffinity") {
        return ForEachField(sv, sp, [&](std::string_view ak, const Value& av, const Path& ap) {
          if (ak == "required") return Read(av, ap, spec.node_affinity);
          return absl::OkStatus();
        });
      }
      absl::Status s;
      ReadSharedSource(sk, sv, sp, spec, s);
      return s;
    });
  });
}

absl::Status ReadPvc(const Value& v, const Path& path, PersistentVolumeClaim& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "metadata") return Read(fv, fp, out.metadata);
    if (k == "status") return ReadPhase(fv, fp, out.phase);
    if (k != "spec") return absl::OkStatus();
    PersistentVolumeClaimSpec& spec = out.spec;
    return ForEachField(fv, fp, [&](std::string_view sk, const Value& sv, const Path& sp) {
      if (sk == "accessModes") return Read(sv, sp, spec.access_modes);
      if (sk == "selector") return Read(sv, sp, spec.selector);
      if (sk == "volumeName") return Read(sv, sp, spec.volume_name);
      if (sk == "storageClassName") return Read(sv, sp, spec.storage_class_name);
      if (sk == "volumeMode") return Read(sv, sp, spec.volume_mode);
      if (sk == "resources") {
        return ForEachField(sv, sp, [&](std::string_view rk, const Value& rv, const Path& rp) {
          if (rk == "requests") return ReadStorageQuantity(rv, rp, spec.request);
          return absl::OkStatus();
        });
      }
      return absl::OkStatus();
    });
  });
}

absl::Status ReadTopologyTerm(const Value& v, const Path& path, TopologySelectorTerm& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k != "matchLabelExpressions") return absl::OkStatus();
    if (fv.IsNull()) return absl::OkStatus();
    if (!fv.IsArray()) return TypeError(fp, "array", fv);
    for (rapidjson::SizeType i = 0; i < fv.Size(); ++i) {
      TopologySelectorLabelRequirement& r = out.match_label_expressions.emplace_back();
      TRIMARAN_RETURN_IF_ERROR(ForEachField(
          fv[i], fp.Index(i), [&](std::string_view rk, const Value& rv, const Path& rp) {
            if (rk == "key") return Read(rv, rp, r.key);
            if (rk == "values") return Read(rv, rp, r.values);
            return absl::OkStatus();
          }));
    }
    return absl::OkStatus();
  });
}

absl::Status ReadStorageClass(const Value& v, const Path& path, StorageClass& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "metadata") return Read(fv, fp, out.metadata);
    if (k == "provisioner") return Read(fv, fp, out.provisioner);
    if (k == "volumeBindingMode") return Read(fv, fp, out.volume_binding_mode);
    if (k == "allowedTopologies") {
      if (fv.IsNull()) return absl::OkStatus();
      if (!fv.IsArray()) return TypeError(fp, "array", fv);
      out.allowed_topologies.clear();
      for (rapidjson::SizeType i = 0; i < fv.Size(); ++i) {
        TRIMARAN_RETURN_IF_ERROR(
            ReadTopologyTerm(fv[i], fp.Index(i), out.allowed_topologies.emplace_back()));
      }
    }
    return absl::OkStatus();
  });
}

absl::Status ReadCsiNode(const Value& v, const Path& path, CSINode& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "metadata") return Read(fv, fp, out.metadata);
    if (k != "spec") return absl::OkStatus();
    return ForEachField(fv, fp, [&](std::string_view sk, const Value& sv, const Path& sp) {
      if (sk != "drivers") return absl::OkStatus();
      if (sv.IsNull()) return absl::OkStatus();
      if (!sv.IsArray()) return TypeError(sp, "array", sv);
      out.drivers.clear();
      for (rapidjson::SizeType i = 0; i < sv.Size(); ++i) {
        CSINodeDriver& d = out.drivers.emplace_back();
        TRIMARAN_RETURN_IF_ERROR(ForEachField(
            sv[i], sp.Index(i), [&](std::string_view dk, const Value& dv, const Path& dp) {
              if (dk == "name") return Read(dv, dp, d.name);
              if (dk == "nodeID") return Read(dv, dp, d.node_id);
              if (dk == "allocatable") {
                return ForEachField(dv, dp,
                                    [&](std::string_view ak, const Value& av, const Path& ap) {
                                      if (ak == "count") return Read(av, ap, d.allocatable_count);
                                      return absl::OkStatus();
                                    });
              }
              return absl::OkStatus();
            }));
      }
      return absl::OkStatus();
    });
  });
}

absl::Status ReadCsiDriver(const Value& v, const Path& path, CSIDriver& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "metadata") return Read(fv, fp, out.metadata);
    if (k != "spec") return absl::OkStatus();
    return ForEachField(fv, fp, [&](std::string_view sk, const Value& sv, const Path& sp) {
      if (sk == "storageCapacity") return Read(sv, sp, out.storage_capacity);
      return absl::OkStatus();
    });
  });
}

absl::Status ReadCapacity(const Value& v, const Path& path, CSIStorageCapacity& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "metadata") return Read(fv, fp, out.metadata);
    if (k == "storageClassName") return Read(fv, fp, out.storage_class_name);
    if (k == "nodeTopology") return Read(fv, fp, out.node_topology);
    if (k == "capacity") return Read(fv, fp, out.capacity);
    if (k == "maximumVolumeSize") return Read(fv, fp, out.maximum_volume_size);
    return absl::OkStatus();
  });
}

}  // namespace

absl::Status Read(const Value& v, const Path& path, Volume& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (k == "name") return Read(fv, fp, out.name);
    if (k == "persistentVolumeClaim") return ReadOptSource(fv, fp, out.persistent_volume_claim);
    if (k == "ephemeral") {
      if (!fv.IsNull() && !fv.IsObject()) return TypeError(fp, "object", fv);
      out.ephemeral = fv.IsObject();
      return absl::OkStatus();
    }
    if (k == "iscsi") return ReadOptSource(fv, fp, out.iscsi);
    if (k == "rbd") return ReadOptSource(fv, fp, out.rbd);
    absl::Status s;
    ReadSharedSource(k, fv, fp, out, s);
    return s;
  });
}

absl::Status Read(const Value& v, const Path& path, StorageObject& out) {
  if (!v.IsObject()) return TypeError(path, "object", v);
  if (const auto kind = v.FindMember("kind"); kind != v.MemberEnd() && !kind->value.IsNull()) {
    bool known = false;
    if (kind->value.IsString()) {
      for (StorageResource r : kAllStorageResources) {
        if (View(kind->value) == KindName(r)) {
          if (out.resource() != r) out = StorageObject::Empty(r);
          known = true;
        }
      }
    }
    if (!known) {
      return FieldError(path.Field("kind"),
                        "expected PersistentVolume, PersistentVolumeClaim, StorageClass, "
                        "CSINode, CSIDriver or CSIStorageCapacity");
    }
  }
  absl::Status s = std::visit(
      [&](auto& o) -> absl::Status {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, PersistentVolume>) {
          return ReadPv(v, path, o);
        } else if constexpr (std::is_same_v<T, PersistentVolumeClaim>) {
          return ReadPvc(v, path, o);
        } else if constexpr (std::is_same_v<T, StorageClass>) {
          return ReadStorageClass(v, path, o);
        } else if constexpr (std::is_same_v<T, CSINode>) {
          return ReadCsiNode(v, path, o);
        } else if constexpr (std::is_same_v<T, CSIDriver>) {
          return ReadCsiDriver(v, path, o);
        } else {
          return ReadCapacity(v, path, o);
        }
      },
      out.object);
  TRIMARAN_RETURN_IF_ERROR(s);
  out.metadata = std::visit([](const auto& o) { return o.metadata; }, out.object);
  return absl::OkStatus();
}

namespace {

void WriteReadOnly(Writer& w, bool read_only) {
  if (!read_only) return;
  Key(w, "readOnly");
  w.Bool(true);
}

}  // namespace

void Write(Writer& w, const Volume& v) {
  w.StartObject();
  StringField(w, "name", v.name);
  if (v.persistent_volume_claim) {
    Key(w, "persistentVolumeClaim");
    w.StartObject();
    StringField(w, "claimName", v.persistent_volume_claim->claim_name);
    WriteReadOnly(w, v.persistent_volume_claim->read_only);
    w.EndObject();
  }
  if (v.ephemeral) {
    // Only the presence is kept; the claim template is not (the scheduler never
    // creates pods with ephemeral volumes, tests write the JSON themselves).
    Key(w, "ephemeral");
    w.StartObject();
    w.EndObject();
  }
  if (v.gce_persistent_disk) {
    Key(w, "gcePersistentDisk");
    w.StartObject();
    StringField(w, "pdName", v.gce_persistent_disk->pd_name);
    WriteReadOnly(w, v.gce_persistent_disk->read_only);
    w.EndObject();
  }
  if (v.aws_elastic_block_store) {
    Key(w, "awsElasticBlockStore");
    w.StartObject();
    StringField(w, "volumeID", v.aws_elastic_block_store->volume_id);
    WriteReadOnly(w, v.aws_elastic_block_store->read_only);
    w.EndObject();
  }
  if (v.azure_disk) {
    Key(w, "azureDisk");
    w.StartObject();
    StringField(w, "diskName", v.azure_disk->disk_name);
    StringField(w, "diskURI", v.azure_disk->data_disk_uri);
    WriteReadOnly(w, v.azure_disk->read_only);
    w.EndObject();
  }
  if (v.cinder) {
    Key(w, "cinder");
    w.StartObject();
    StringField(w, "volumeID", v.cinder->volume_id);
    WriteReadOnly(w, v.cinder->read_only);
    w.EndObject();
  }
  if (v.iscsi) {
    Key(w, "iscsi");
    w.StartObject();
    StringField(w, "targetPortal", v.iscsi->target_portal);
    StringField(w, "iqn", v.iscsi->iqn);
    Key(w, "lun");
    w.Int(v.iscsi->lun);
    WriteReadOnly(w, v.iscsi->read_only);
    w.EndObject();
  }
  if (v.rbd) {
    Key(w, "rbd");
    w.StartObject();
    StringArrayField(w, "monitors", v.rbd->monitors);
    StringField(w, "image", v.rbd->image);
    StringField(w, "pool", v.rbd->pool);
    WriteReadOnly(w, v.rbd->read_only);
    w.EndObject();
  }
  if (v.csi) {
    Key(w, "csi");
    w.StartObject();
    StringField(w, "driver", v.csi->driver);
    WriteReadOnly(w, v.csi->read_only);
    w.EndObject();
  }
  w.EndObject();
}

}  // namespace trimaran::kube::json_internal
