// JSON codec: SelectorObject (namespaces, services, replication controllers, replica sets,
// stateful sets; kube/api/selector_object.h).

#include "absl/strings/str_cat.h"
#include "kube/api/internal/json_codec_internal.h"
#include "kube/api/selector_object.h"

namespace trimaran::kube::json_internal {
namespace {

// True when `v` is a map of labels (Service, ReplicationController): every member a
// string or null. A metav1.LabelSelector has an object and/or an array instead; `{}` is
// read as an empty LabelSelector, which selects the same pods as an empty map.
bool IsLabelMap(const Value& v) {
  if (v.MemberCount() == 0) return false;
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    if (!it->value.IsString() && !it->value.IsNull()) return false;
  }
  return true;
}

absl::Status ReadSelector(const Value& v, const Path& path, std::optional<LabelSelector>& out) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsObject()) return TypeError(path, "object", v);
  LabelSelector& selector = out.emplace();
  if (IsLabelMap(v)) return Read(v, path, selector.match_labels);
  return Read(v, path, selector);
}

}  // namespace

absl::Status Read(const Value& v, const Path& path, SelectorObject& out) {
  if (!v.IsObject()) return TypeError(path, "object", v);
  if (const auto kind = v.FindMember("kind"); kind != v.MemberEnd() && !kind->value.IsNull()) {
    bool known = false;
    if (kind->value.IsString()) {
      for (SelectorResource r : kAllSelectorResources) known |= View(kind->value) == KindName(r);
    }
    if (!known) {
      return FieldError(path.Field("kind"),
                        "expected Namespace, Service, ReplicationController, ReplicaSet, "
                        "StatefulSet or PodDisruptionBudget");
    }
  }
  return ForEachField(
      v, path, [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
        if (k == "metadata") return Read(fv, fp, out.metadata);
        if (k == "status") {
          // PodDisruptionBudget status; other kinds' status fields are ignored.
          return ForEachField(
              fv, fp, [&](std::string_view sk, const Value& sv, const Path& sp) -> absl::Status {
                if (sk == "disruptionsAllowed") {
                  if (sv.IsNull()) return absl::OkStatus();
                  if (!sv.IsInt()) return TypeError(sp, "int32", sv);
                  out.disruptions_allowed = sv.GetInt();
                  return absl::OkStatus();
                }
                if (sk == "disruptedPods") {
                  if (sv.IsNull()) return absl::OkStatus();
                  if (!sv.IsObject()) return TypeError(sp, "object", sv);
                  for (auto it = sv.MemberBegin(); it != sv.MemberEnd(); ++it) {
                    out.disrupted_pods.emplace_back(View(it->name));
                  }
                  return absl::OkStatus();
                }
                return absl::OkStatus();
              });
        }
        if (k != "spec") return absl::OkStatus();
        return ForEachField(
            fv, fp, [&](std::string_view sk, const Value& sv, const Path& sp) -> absl::Status {
              if (sk == "selector") return ReadSelector(sv, sp, out.selector);
              return absl::OkStatus();
            });
      });
}

}  // namespace trimaran::kube::json_internal
