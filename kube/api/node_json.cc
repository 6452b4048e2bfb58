// JSON codec: Node and its parts.

#include "kube/api/internal/json_codec_internal.h"

namespace trimaran::kube::json_internal {

absl::Status Read(const Value& v, const Path& path, Taint& out) {
  if (v.IsNull()) return absl::OkStatus();
  out.effect = TaintEffect::kAll;  // "unset", to detect a missing effect below
  TRIMARAN_RETURN_IF_ERROR(ForEachField(
      v, path, [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
        if (k == "key") return Read(fv, fp, out.key);
        if (k == "value") return Read(fv, fp, out.value);
        if (k == "effect") return Read(fv, fp, out.effect);
        if (k == "timeAdded") return Read(fv, fp, out.time_added);
        return absl::OkStatus();
      }));
  // Only tolerations may leave the effect empty.
  if (out.effect == TaintEffect::kAll) {
    return FieldError(path.Field("effect"), "required");
  }
  return absl::OkStatus();
}

absl::Status Read(const Value& v, const Path& path, NodeSpec& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "podCIDR") return Read(fv, fp, out.pod_cidr);
                        if (k == "podCIDRs") return Read(fv, fp, out.pod_cidrs);
                        if (k == "providerID") return Read(fv, fp, out.provider_id);
                        if (k == "unschedulable") return Read(fv, fp, out.unschedulable);
                        if (k == "taints") return Read(fv, fp, out.taints);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, NodeCondition& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "type") return Read(fv, fp, out.type);
                        if (k == "status") return Read(fv, fp, out.status);
                        if (k == "lastHeartbeatTime") return Read(fv, fp, out.last_heartbeat_time);
                        if (k == "lastTransitionTime") {
                          return Read(fv, fp, out.last_transition_time);
                        }
                        if (k == "reason") return Read(fv, fp, out.reason);
                        if (k == "message") return Read(fv, fp, out.message);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, NodeAddress& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "type") return Read(fv, fp, out.type);
                        if (k == "address") return Read(fv, fp, out.address);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, ContainerImage& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "names") return Read(fv, fp, out.names);
                        if (k == "sizeBytes") return Read(fv, fp, out.size_bytes);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, NodeStatus& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "capacity") return Read(fv, fp, out.capacity);
                        if (k == "allocatable") return Read(fv, fp, out.allocatable);
                        if (k == "conditions") return Read(fv, fp, out.conditions);
                        if (k == "addresses") return Read(fv, fp, out.addresses);
                        if (k == "images") return Read(fv, fp, out.images);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, Node& out) {
  if (v.IsObject()) TRIMARAN_RETURN_IF_ERROR(CheckKind(v, path, "Node"));
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "metadata") return Read(fv, fp, out.metadata);
                        if (k == "spec") return Read(fv, fp, out.spec);
                        if (k == "status") return Read(fv, fp, out.status);
                        return absl::OkStatus();
                      });
}

void Write(Writer& w, const Taint& v) {
  w.StartObject();
  StringField(w, "key", v.key);
  OptStringField(w, "value", v.value);
  StringField(w, "effect", ToString(v.effect));
  if (v.time_added) TimeField(w, "timeAdded", *v.time_added);
  w.EndObject();
}

void Write(Writer& w, const NodeSpec& v) {
  w.StartObject();
  OptStringField(w, "podCIDR", v.pod_cidr);
  StringArrayField(w, "podCIDRs", v.pod_cidrs);
  OptStringField(w, "providerID", v.provider_id);
  if (v.unschedulable) {
    Key(w, "unschedulable");
    w.Bool(true);
  }
  ArrayField(w, "taints", v.taints);
  w.EndObject();
}

void Write(Writer& w, const NodeCondition& v) {
  w.StartObject();
  StringField(w, "type", v.type);
  StringField(w, "status", ToString(v.status));
  if (v.last_heartbeat_time) TimeField(w, "lastHeartbeatTime", *v.last_heartbeat_time);
  if (v.last_transition_time) TimeField(w, "lastTransitionTime", *v.last_transition_time);
  OptStringField(w, "reason", v.reason);
  OptStringField(w, "message", v.message);
  w.EndObject();
}

void Write(Writer& w, const NodeAddress& v) {
  w.StartObject();
  StringField(w, "type", v.type);
  StringField(w, "address", v.address);
  w.EndObject();
}

void Write(Writer& w, const ContainerImage& v) {
  w.StartObject();
  StringArrayField(w, "names", v.names);
  Key(w, "sizeBytes");
  w.Int64(v.size_bytes);
  w.EndObject();
}

void Write(Writer& w, const NodeStatus& v) {
  w.StartObject();
  ResourceListField(w, "capacity", v.capacity);
  ResourceListField(w, "allocatable", v.allocatable);
  ArrayField(w, "conditions", v.conditions);
  ArrayField(w, "addresses", v.addresses);
  ArrayField(w, "images", v.images);
  w.EndObject();
}

void Write(Writer& w, const Node& v) {
  w.StartObject();
  StringField(w, "kind", "Node");
  StringField(w, "apiVersion", "v1");
  Key(w, "metadata");
  Write(w, v.metadata);
  Key(w, "spec");
  Write(w, v.spec);
  Key(w, "status");
  Write(w, v.status);
  w.EndObject();
}

}  // namespace trimaran::kube::json_internal
