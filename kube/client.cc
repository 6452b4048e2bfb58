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
