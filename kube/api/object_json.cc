// JSON codec: the objects the scheduler writes (Binding, Event, Lease).

#include "kube/api/internal/json_codec_internal.h"

namespace trimaran::kube::json_internal {

absl::Status Read(const Value& v, const Path& path, Binding& out) {
  if (v.IsObject()) TRIMARAN_RETURN_IF_ERROR(CheckKind(v, path, "Binding"));
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "metadata") return Read(fv, fp, out.metadata);
                        if (k == "target") return Read(fv, fp, out.target);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, EventSeries& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "count") return Read(fv, fp, out.count);
                        if (k == "lastObservedTime") return Read(fv, fp, out.last_observed_time);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, Event& out) {
  if (v.IsObject()) TRIMARAN_RETURN_IF_ERROR(CheckKind(v, path, "Event"));
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "metadata") return Read(fv, fp, out.metadata);
                        if (k == "eventTime") return Read(fv, fp, out.event_time);
                        if (k == "series") return Read(fv, fp, out.series);
                        if (k == "reportingController") {
                          return Read(fv, fp, out.reporting_controller);
                        }
                        if (k == "reportingInstance") return Read(fv, fp, out.reporting_instance);
                        if (k == "action") return Read(fv, fp, out.action);
                        if (k == "reason") return Read(fv, fp, out.reason);
                        if (k == "regarding") return Read(fv, fp, out.regarding);
                        if (k == "related") return Read(fv, fp, out.related);
                        if (k == "note") return Read(fv, fp, out.note);
                        if (k == "type") return Read(fv, fp, out.type);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, LeaseSpec& out) {
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "holderIdentity") return Read(fv, fp, out.holder_identity);
                        if (k == "leaseDurationSeconds") {
                          return Read(fv, fp, out.lease_duration_seconds);
                        }
                        if (k == "acquireTime") return Read(fv, fp, out.acquire_time);
                        if (k == "renewTime") return Read(fv, fp, out.renew_time);
                        if (k == "leaseTransitions") return Read(fv, fp, out.lease_transitions);
                        return absl::OkStatus();
                      });
}

absl::Status Read(const Value& v, const Path& path, Lease& out) {
  if (v.IsObject()) TRIMARAN_RETURN_IF_ERROR(CheckKind(v, path, "Lease"));
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "metadata") return Read(fv, fp, out.metadata);
                        if (k == "spec") return Read(fv, fp, out.spec);
                        return absl::OkStatus();
                      });
}

}  // namespace trimaran::kube::json_internal
