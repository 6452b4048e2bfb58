#pragma once
// DelegatingAuthorizer: a RequestAuthorizer that asks the apiserver, as kube-scheduler's
// secure port does (k8s.io/apiserver's DelegatingAuthenticationOptions and
// DelegatingAuthorizationOptions):
//
//   1. A path in always_allow_paths (--authorization-always-allow-paths; default
//      /healthz, /readyz, /livez; a trailing "*" matches a prefix) is served without
//      credentials, so that probes need no token.
//   2. Authentication: the "Authorization: Bearer <token>" header, checked with a
//      TokenReview. No token, an unknown token, or no authentication client -> 401
//      "Unauthorized" (there is no anonymous user). A failing review -> 401 too, logged
//      (the apiserver is unreachable: refuse, never serve unchecked).
//   3. Authorization: a SubjectAccessReview of the non-resource URL (the path) with the
//      lower-cased method as verb ("get"). Denied, or no authorization client -> 403
//      `forbidden: User "<name>" cannot get path "<path>"`; a failing review -> 500.
//
// Results are cached as kube's webhooks do: TokenReviews for token_ttl (10 s,
// --authentication-token-webhook-cache-ttl), allowed and denied SubjectAccessReviews for
// allowed_ttl / denied_ttl (10 s each); failures are not cached. Each cache holds at
// most max_cache_entries entries (the oldest-expiring half is dropped when full).
//
// Bogus tokens (issue 30 point 5): a token missing from the cache costs a TokenReview,
// a round trip to the apiserver on the worker thread. Those reviews are admitted by a
// token bucket (token_reviews_per_second, burst token_review_burst) and at most
// max_token_reviews_in_flight run at once; a request over either answers 429 with
// "Retry-After: 1" at once instead of holding a worker, so a flood of unknown tokens
// cannot starve the probes or the callers whose tokens are cached. A token longer than
// max_token_bytes is refused (401) without a review.
//
// Thread-safety: safe for concurrent use; the clients must be too (RestClient is). The
// clients (either may be null, see above) and the clock are borrowed.

#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kube/auth/reviews.h"
#include "kube/client.h"
#include "scheduler/server/request_authorizer.h"

namespace trimaran::sched {

struct DelegatingAuthorizerOptions {
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
  absl::Duration token_ttl = absl::Seconds(10);
  absl::Duration allowed_ttl = absl::Seconds(10);
  absl::Duration denied_ttl = absl::Seconds(10);
  size_t max_cache_entries = 4096;
  double token_reviews_per_second = 50;
  int token_review_burst = 100;
  int max_token_reviews_in_flight = 4;
  size_t max_token_bytes = 8 << 10;
};

// Whether `path` matches one of `patterns` (exact, or a prefix for a trailing "*").
bool PathMatches(const std::vector<std::string>& patterns, const std::string& path);

class DelegatingAuthorizer final : public RequestAuthorizer {
 public:
  DelegatingAuthorizer(kube::Client* authentication, kube::Client* authorization,
                       const Clock& clock, DelegatingAuthorizerOptions options = {});

  AuthDecision Check(const http::ServerRequest& request) const override;

 private:
  struct CachedUser {
    bool authenticated = false;
    kube::UserInfo user;
    absl::Time expiry;
  };
  struct CachedAccess {
    bool allowed = false;
    absl::Time expiry;
  };
  // Takes a TokenReview slot (bucket token + in-flight slot); false when over a limit.
  bool AdmitTokenReview(absl::Time now) const ABSL_LOCKS_EXCLUDED(mu_);
  void FinishTokenReview() const ABSL_LOCKS_EXCLUDED(mu_);
  template <typename V>
  static void Prune(absl::flat_hash_map<std::string, V>& cache, size_t max, absl::Time now);

  kube::Client* const authentication_;
  kube::Client* const authorization_;
  const Clock& clock_;
  const DelegatingAuthorizerOptions options_;
  mutable absl::Mutex mu_;
  mutable absl::flat_hash_map<std::string, CachedUser> tokens_ ABSL_GUARDED_BY(mu_);
  mutable absl::flat_hash_map<std::string, CachedAccess> access_ ABSL_GUARDED_BY(mu_);
  mutable double review_tokens_ ABSL_GUARDED_BY(mu_);
  mutable absl::Time review_refill_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  mutable int reviews_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace trimaran::sched
