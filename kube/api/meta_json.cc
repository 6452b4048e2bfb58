// JSON codec: metadata, references, selectors and metav1.Status.

#include "kube/api/internal/json_codec_internal.h"

namespace trimaran::kube::json_internal {

absl::Status Read(const Value& v, const Path& path, OwnerReference& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "apiVersion") return Read(fv, fp, out.api_version);
                        if (k == "kind") return Read(fv, fp, out.kind);
                        if (k == "name") return Read(fv, fp, out.name);
                        if (k == "uid") return Read(fv, fp, out.uid);
                        if (k == "controller") return Read(fv, fp, out.controller);
                        if (k == "blockOwnerDeletion")
                          return Read(fv, fp, out.block_owner_deletion);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, ObjectMeta& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "name") return Read(fv, fp, out.name);
                        if (k == "namespace") return Read(fv, fp, out.namespace_name);
                        if (k == "uid") return Read(fv, fp, out.uid);
                        if (k == "resourceVersion") return Read(fv, fp, out.resource_version);
                        if (k == "generation") return Read(fv, fp, out.generation);
                        if (k == "creationTimestamp") return Read(fv, fp, out.creation_timestamp);
                        if (k == "deletionTimestamp") return Read(fv, fp, out.deletion_timestamp);
                        if (k == "labels") return Read(fv, fp, out.labels);
                        if (k == "annotations") return Read(fv, fp, out.annotations);
                        if (k == "ownerReferences") return Read(fv, fp, out.owner_references);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, ObjectReference& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "apiVersion") return Read(fv, fp, out.api_version);
                        if (k == "kind") return Read(fv, fp, out.kind);
                        if (k == "namespace") return Read(fv, fp, out.namespace_name);
                        if (k == "name") return Read(fv, fp, out.name);
                        if (k == "uid") return Read(fv, fp, out.uid);
                        if (k == "resourceVersion") return Read(fv, fp, out.resource_version);
                        if (k == "fieldPath") return Read(fv, fp, out.field_path);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, ListMeta& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "resourceVersion") return Read(fv, fp, out.resource_version);
                        if (k == "continue") return Read(fv, fp, out.continue_token);
                        if (k == "remainingItemCount")
                          return Read(fv, fp, out.remaining_item_count);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, LabelSelectorRequirement& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "key") return Read(fv, fp, out.key);
                        if (k == "operator") return Read(fv, fp, out.op);
                        if (k == "values") return Read(fv, fp, out.values);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, LabelSelector& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "matchLabels") return Read(fv, fp, out.match_labels);
                        if (k == "matchExpressions") return Read(fv, fp, out.match_expressions);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, ApiStatus& out) {
  if (v.IsObject()) TRIMARAN_RETURN_IF_ERROR(CheckKind(v, path, "Status"));
  return ForEachField(
      v, path, [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
        if (k == "status") return Read(fv, fp, out.status);
        if (k == "message") return Read(fv, fp, out.message);
        if (k == "reason") return Read(fv, fp, out.reason);
        if (k == "code") return Read(fv, fp, out.code);
        if (k == "details") {
          return ForEachField(
              fv, fp, [&](std::string_view dk, const Value& dv, const Path& dp) -> absl::Status {
                if (dk == "name") return Read(dv, dp, out.details_name);
                if (dk == "kind") return Read(dv, dp, out.details_kind);
                if (dk == "retryAfterSeconds") return Read(dv, dp, out.retry_after_seconds);
                return absl::OkStatus();
              });
        }
        return absl::OkStatus();
      });
}

void Write(Writer& w, const OwnerReference& v) {
  w.StartObject();
  StringField(w, "apiVersion", v.api_version);
  StringField(w, "kind", v.kind);
  StringField(w, "name", v.name);
  StringField(w, "uid", v.uid);
  if (v.controller) {
    Key(w, "controller");
    w.Bool(true);
  }
  if (v.block_owner_deletion) {
    Key(w, "blockOwnerDeletion");
    w.Bool(true);
  }
  w.EndObject();
}

void Write(Writer& w, const ObjectMeta& v) {
  w.StartObject();
  OptStringField(w, "name", v.name);
  OptStringField(w, "namespace", v.namespace_name);
  OptStringField(w, "uid", v.uid);
  OptStringField(w, "resourceVersion", v.resource_version);
  if (v.generation != 0) {
    Key(w, "generation");
    w.Int64(v.generation);
  }
  if (v.creation_timestamp) TimeField(w, "creationTimestamp", *v.creation_timestamp);
  if (v.deletion_timestamp) TimeField(w, "deletionTimestamp", *v.deletion_timestamp);
  StringMapField(w, "labels", v.labels);
  StringMapField(w, "annotations", v.annotations);
  ArrayField(w, "ownerReferences", v.owner_references);
  w.EndObject();
}

void Write(Writer& w, const ObjectReference& v) {
  w.StartObject();
  OptStringField(w, "apiVersion", v.api_version);
  OptStringField(w, "kind", v.kind);
  OptStringField(w, "namespace", v.namespace_name);
  OptStringField(w, "name", v.name);
  OptStringField(w, "uid", v.uid);
  OptStringField(w, "resourceVersion", v.resource_version);
  OptStringField(w, "fieldPath", v.field_path);
  w.EndObject();
}

void Write(Writer& w, const ListMeta& v) {
  w.StartObject();
  OptStringField(w, "resourceVersion", v.resource_version);
  OptStringField(w, "continue", v.continue_token);
  if (v.remaining_item_count) {
    Key(w, "remainingItemCount");
    w.Int64(*v.remaining_item_count);
  }
  w.EndObject();
}

void Write(Writer& w, const LabelSelectorRequirement& v) {
  w.StartObject();
  StringField(w, "key", v.key);
  StringField(w, "operator", ToString(v.op));
  StringArrayField(w, "values", v.values);
  w.EndObject();
}

void Write(Writer& w, const LabelSelector& v) {
  w.StartObject();
  StringMapField(w, "matchLabels", v.match_labels);
  ArrayField(w, "matchExpressions", v.match_expressions);
  w.EndObject();
}

void Write(Writer& w, const ApiStatus& v) {
  w.StartObject();
  StringField(w, "kind", "Status");
  StringField(w, "apiVersion", "v1");
  Key(w, "metadata");
  w.StartObject();
  w.EndObject();
  OptStringField(w, "status", v.status);
  OptStringField(w, "message", v.message);
  OptStringField(w, "reason", v.reason);
  if (!v.details_name.empty() || !v.details_kind.empty() || v.retry_after_seconds != 0) {
    Key(w, "details");
    w.StartObject();
    OptStringField(w, "name", v.details_name);
    OptStringField(w, "kind", v.details_kind);
    if (v.retry_after_seconds != 0) {
      Key(w, "retryAfterSeconds");
      w.Int(v.retry_after_seconds);
    }
    w.EndObject();
  }
  if (v.code != 0) {
    Key(w, "code");
    w.Int(v.code);
  }
  w.EndObject();
}

}  // namespace trimaran::kube::json_internal
