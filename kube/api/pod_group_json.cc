// JSON of PodGroup (scheduling.x-k8s.io/v1alpha1) and of its status patch.
#include <string>

#include "kube/api/internal/json_codec_internal.h"
#include "kube/api/pod_group.h"

namespace trimaran::kube::json_internal {

absl::Status Read(const Value& v, const Path& path, PodGroupPhase& out) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsString()) return TypeError(path, "string", v);
  out = ParsePodGroupPhase(View(v));
  return absl::OkStatus();
}

absl::Status Read(const Value& v, const Path& path, PodGroupSpec& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "minMember") return Read(fv, fp, out.min_member);
                        if (k == "minResources") return Read(fv, fp, out.min_resources);
                        if (k == "scheduleTimeoutSeconds") {
                          return Read(fv, fp, out.schedule_timeout_seconds);
                        }
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PodGroupStatus& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "phase") return Read(fv, fp, out.phase);
                        if (k == "occupiedBy") return Read(fv, fp, out.occupied_by);
                        if (k == "scheduled") return Read(fv, fp, out.scheduled);
                        if (k == "running") return Read(fv, fp, out.running);
                        if (k == "succeeded") return Read(fv, fp, out.succeeded);
                        if (k == "failed") return Read(fv, fp, out.failed);
                        if (k == "scheduleStartTime") {
                          return Read(fv, fp, out.schedule_start_time);
                        }
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, PodGroup& out) {
  if (v.IsObject()) TRIMARAN_RETURN_IF_ERROR(CheckKind(v, path, "PodGroup"));
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "metadata") return Read(fv, fp, out.metadata);
                        if (k == "spec") return Read(fv, fp, out.spec);
                        if (k == "status") return Read(fv, fp, out.status);
                        return absl::OkStatus();
                      });
}

void Write(Writer& w, const PodGroupStatus& v) {
  w.StartObject();
  StringField(w, "phase", PodGroupPhaseName(v.phase));
  // occupiedBy is omitempty upstream; null clears it in a merge patch.
  Key(w, "occupiedBy");
  if (v.occupied_by.empty()) {
    w.Null();
  } else {
    String(w, v.occupied_by);
  }
  Key(w, "scheduled");
  w.Int(v.scheduled);
  Key(w, "running");
  w.Int(v.running);
  Key(w, "succeeded");
  w.Int(v.succeeded);
  Key(w, "failed");
  w.Int(v.failed);
  if (v.schedule_start_time.has_value()) {
    TimeField(w, "scheduleStartTime", *v.schedule_start_time);
  }
  w.EndObject();
}

void Write(Writer& w, const PodGroup& v) {
  w.StartObject();
  StringField(w, "apiVersion", kPodGroupApiVersion);
  StringField(w, "kind", "PodGroup");
  Key(w, "metadata");
  Write(w, v.metadata);
  Key(w, "spec");
  w.StartObject();
  Key(w, "minMember");
  w.Int(v.spec.min_member);
  if (v.spec.min_resources.has_value()) ResourceListField(w, "minResources", *v.spec.min_resources);
  if (v.spec.schedule_timeout_seconds.has_value()) {
    Key(w, "scheduleTimeoutSeconds");
    w.Int(*v.spec.schedule_timeout_seconds);
  }
  w.EndObject();
  Key(w, "status");
  Write(w, v.status);
  w.EndObject();
}

}  // namespace trimaran::kube::json_internal
