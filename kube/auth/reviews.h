#pragma once
// Delegated authentication and authorization against the apiserver, as kube-scheduler's
// secure port does it (k8s.io/apiserver's delegating authenticator and authorizer):
//
//   ReviewToken             POST /apis/authentication.k8s.io/v1/tokenreviews
//                           {"spec":{"token":...}} -> status.authenticated, status.user
//   ReviewNonResourceAccess POST /apis/authorization.k8s.io/v1/subjectaccessreviews
//                           {"spec":{"user","uid","groups","nonResourceAttributes":
//                           {"path","verb"}}} -> status.allowed, status.reason
//
// Both are served by kube-apiserver 1.20+ (v1). The caller needs `create` on
// tokenreviews and subjectaccessreviews (the ClusterRole system:auth-delegator).
// Errors: the call's status (Unavailable, PermissionDenied, ...) or InvalidArgument for a
// reply that does not decode. A token the apiserver does not know is not an error:
// authenticated = false, with status.error as `error`.
//
// Thread-safety: stateless functions; safe for concurrent use when `client` is.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kube/client.h"

namespace trimaran::kube {

struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
};

struct TokenReviewResult {
  bool authenticated = false;
  UserInfo user;
  std::string error;  // status.error, when the apiserver gives one
};

absl::StatusOr<TokenReviewResult> ReviewToken(Client& client, absl::string_view token);

struct AccessReviewResult {
  bool allowed = false;
  bool denied = false;  // an explicit deny (status.denied)
  std::string reason;   // status.reason / status.evaluationError
};

// Whether `user` may `verb` ("get", "post", ...) the non-resource URL `path`.
absl::StatusOr<AccessReviewResult> ReviewNonResourceAccess(Client& client, const UserInfo& user,
                                                           absl::string_view verb,
                                                           absl::string_view path);

}  // namespace trimaran::kube
