#include "kube/client.h"

#include "absl/strings/str_cat.h"

namespace trimaran::kube {
namespace {

// The defaults below have no clock: they honour only a stop requested before the call.
absl::Status CheckStop(const CallOptions& options, absl::string_view what) {
  return CheckCallOptions({.stop = options.stop}, absl::InfinitePast(), what);
}

}  // namespace

absl::Status CheckCallOptions(const CallOptions& options, absl::Time now, absl::string_view what) {
  if (options.stop.stop_requested()) return absl::CancelledError(absl::StrCat(what, ": cancelled"));
  if (now >= options.deadline) {
    return absl::DeadlineExceededError(absl::StrCat(what, ": deadline exceeded"));
  }
  return absl::OkStatus();
}

absl::Status Client::Bind(const Binding& binding, const CallOptions& options) {
  if (absl::Status s = CheckStop(options, "bind"); !s.ok()) return s;
  return Bind(binding);
}

absl::Status Client::DeletePod(absl::string_view ns, absl::string_view name,
                               const CallOptions& options) {
  if (absl::Status s = CheckStop(options, "delete pod"); !s.ok()) return s;
  return DeletePod(ns, name);
}

absl::Status Client::PatchPodStatus(absl::string_view ns, absl::string_view name,
                                    const PodStatusPatch& patch, const CallOptions& options) {
  if (absl::Status s = CheckStop(options, "patch pod status"); !s.ok()) return s;
  return PatchPodStatus(ns, name, patch);
}

absl::Status Client::PatchPodGroupStatus(absl::string_view ns, absl::string_view name,
                                         absl::string_view status_patch,
                                         const CallOptions& options) {
  if (absl::Status s = CheckStop(options, "patch podgroup status"); !s.ok()) return s;
  return Raw("PATCH", PodGroupStatusPath(ns, name), status_patch, "application/merge-patch+json")
      .status();
}

std::string PodGroupStatusPath(absl::string_view ns, absl::string_view name) {
  return absl::StrCat("/apis/scheduling.x-k8s.io/v1alpha1/namespaces/", ns, "/podgroups/", name,
                      "/status");
}

absl::StatusOr<PodGroupList> Client::ListPodGroups(const ListOptions& options) {
  (void)options;
  return absl::UnimplementedError("this client does not serve podgroups");
}

absl::Status Client::WatchPodGroups(const WatchOptions& options,
                                    const WatchHandler<PodGroup>& handler, std::stop_token stop) {
  (void)options;
  (void)handler;
  (void)stop;
  return absl::UnimplementedError("this client does not serve podgroups");
}

absl::StatusOr<Lease> Client::GetLease(absl::string_view ns, absl::string_view name,
                                       const CallOptions& options) {
  if (absl::Status s = CheckStop(options, "get lease"); !s.ok()) return s;
  return GetLease(ns, name);
}

absl::StatusOr<Lease> Client::CreateLease(const Lease& lease, const CallOptions& options) {
  if (absl::Status s = CheckStop(options, "create lease"); !s.ok()) return s;
  return CreateLease(lease);
}

absl::StatusOr<Lease> Client::UpdateLease(const Lease& lease, const CallOptions& options) {
  if (absl::Status s = CheckStop(options, "update lease"); !s.ok()) return s;
  return UpdateLease(lease);
}

}  // namespace trimaran::kube
