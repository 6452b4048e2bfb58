#pragma once
// ApiStatus: metav1.Status, the apiserver's error (and some success) body, and the
// object of a watch ERROR event (e.g. code 410, reason "Expired", when the watch's
// resourceVersion is too old and the client must re-list). Named ApiStatus so that it is
// never confused with absl::Status; converting it into an absl::Status belongs to the
// HTTP status mapping, not here.
//
// Thread-safety: a plain value; externally synchronized.

#include <cstdint>
#include <string>

namespace trimaran::kube {

struct ApiStatus {
  std::string status;   // "Success" or "Failure"
  std::string message;  // human-readable
  std::string reason;   // machine-readable: "NotFound", "Conflict", "Expired", ...
  int32_t code = 0;     // the HTTP status code
  // details (subset)
  std::string details_name;
  std::string details_kind;
  int32_t retry_after_seconds = 0;

  bool operator==(const ApiStatus&) const = default;
};

}  // namespace trimaran::kube
