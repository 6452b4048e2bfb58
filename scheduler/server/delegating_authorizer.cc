#include "scheduler/server/delegating_authorizer.h"

#include <algorithm>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/logging.h"

namespace trimaran::sched {
namespace {

// The bearer token of the request, or "".
std::string BearerToken(const http::ServerRequest& request) {
  const std::optional<absl::string_view> header = request.headers.Get("Authorization");
  if (!header.has_value()) return "";
  absl::string_view v = absl::StripAsciiWhitespace(*header);
  if (v.size() < 7 || !absl::EqualsIgnoreCase(v.substr(0, 7), "bearer ")) return "";
  return std::string(absl::StripAsciiWhitespace(v.substr(7)));
}

AuthDecision Unauthorized() { return {.status = 401, .message = "Unauthorized\n", .user = ""}; }

AuthDecision TooManyReviews() {
  return {.status = 429,
          .message = "Too Many Requests: too many unknown tokens to review, retry later\n",
          .user = ""};
}

}  // namespace

bool PathMatches(const std::vector<std::string>& patterns, const std::string& path) {
  for (const std::string& p : patterns) {
    if (!p.empty() && p.back() == '*') {
      if (absl::StartsWith(path, absl::string_view(p).substr(0, p.size() - 1))) return true;
    } else if (p == path) {
      return true;
    }
  }
  return false;
}

DelegatingAuthorizer::DelegatingAuthorizer(kube::Client* authentication,
                                           kube::Client* authorization, const Clock& clock,
                                           DelegatingAuthorizerOptions options)
    : authentication_(authentication),
      authorization_(authorization),
      clock_(clock),
      options_(std::move(options)),
      review_tokens_(options_.token_review_burst) {}

bool DelegatingAuthorizer::AdmitTokenReview(absl::Time now) const {
  absl::MutexLock lock(&mu_);
  if (review_refill_ != absl::InfinitePast() && now > review_refill_) {
    review_tokens_ = std::min<double>(options_.token_review_burst,
                                      review_tokens_ + absl::ToDoubleSeconds(now - review_refill_) *
                                                           options_.token_reviews_per_second);
  }
  review_refill_ = now;
  if (review_tokens_ < 1 || reviews_in_flight_ >= options_.max_token_reviews_in_flight) {
    return false;
  }
  review_tokens_ -= 1;
  ++reviews_in_flight_;
  return true;
}

void DelegatingAuthorizer::FinishTokenReview() const {
  absl::MutexLock lock(&mu_);
  --reviews_in_flight_;
}

template <typename V>
void DelegatingAuthorizer::Prune(absl::flat_hash_map<std::string, V>& cache, size_t max,
                                 absl::Time now) {
  if (cache.size() < max) return;
  absl::erase_if(cache, [now](const auto& kv) { return kv.second.expiry <= now; });
  if (cache.size() < max) return;
  // Still full of live entries: drop the half that expires first.
  std::vector<absl::Time> expiries;
  expiries.reserve(cache.size());
  for (const auto& [k, v] : cache) expiries.push_back(v.expiry);
  auto mid = expiries.begin() + static_cast<std::ptrdiff_t>(expiries.size() / 2);
  std::nth_element(expiries.begin(), mid, expiries.end());
  const absl::Time cut = *mid;
  absl::erase_if(cache, [cut](const auto& kv) { return kv.second.expiry <= cut; });
}

AuthDecision DelegatingAuthorizer::Check(const http::ServerRequest& request) const {
  if (PathMatches(options_.always_allow_paths, request.path)) {
    return {.status = 200, .message = "", .user = ""};
  }
  const std::string token = BearerToken(request);
  if (token.empty() || authentication_ == nullptr || token.size() > options_.max_token_bytes) {
    return Unauthorized();
  }

  // Authentication.
  kube::UserInfo user;
  {
    const absl::Time now = clock_.Now();
    std::optional<CachedUser> cached;
    {
      absl::MutexLock lock(&mu_);
      if (auto it = tokens_.find(token); it != tokens_.end() && it->second.expiry > now) {
        cached = it->second;
      }
    }
    if (!cached.has_value()) {
      if (!AdmitTokenReview(now)) return TooManyReviews();
      absl::StatusOr<kube::TokenReviewResult> review = kube::ReviewToken(*authentication_, token);
      FinishTokenReview();
      if (!review.ok()) {
        Log(Component::kAdmin)
            .warn("authentication: TokenReview failed, refusing {} {}: {}", request.method,
                  request.path, review.status().ToString());
        return Unauthorized();
      }
      cached = CachedUser{.authenticated = review->authenticated,
                          .user = review->user,
                          .expiry = now + options_.token_ttl};
      absl::MutexLock lock(&mu_);
      Prune(tokens_, options_.max_cache_entries, now);
      tokens_[token] = *cached;
    }
    if (!cached->authenticated) return Unauthorized();
    user = cached->user;
  }

  // Authorization.
  const std::string verb = absl::AsciiStrToLower(request.method);
  auto forbidden = [&] {
    return AuthDecision{.status = 403,
                        .message = absl::StrCat("forbidden: User \"", user.username, "\" cannot ",
                                                verb, " path \"", request.path, "\"\n"),
                        .user = user.username};
  };
  if (authorization_ == nullptr) return forbidden();
  const std::string key =
      absl::StrCat(user.username, "\x1f", user.uid, "\x1f", absl::StrJoin(user.groups, ","), "\x1f",
                   verb, "\x1f", request.path);
  const absl::Time now = clock_.Now();
  std::optional<bool> allowed;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = access_.find(key); it != access_.end() && it->second.expiry > now) {
      allowed = it->second.allowed;
    }
  }
  if (!allowed.has_value()) {
    absl::StatusOr<kube::AccessReviewResult> review =
        kube::ReviewNonResourceAccess(*authorization_, user, verb, request.path);
    if (!review.ok()) {
      Log(Component::kAdmin)
          .warn("authorization: SubjectAccessReview failed for user={} {} {}: {}", user.username,
                request.method, request.path, review.status().ToString());
      return {.status = 500,
              .message = "Internal Server Error: authorization could not be checked\n",
              .user = user.username};
    }
    allowed = review->allowed;
    absl::MutexLock lock(&mu_);
    Prune(access_, options_.max_cache_entries, now);
    access_[key] = CachedAccess{
        .allowed = review->allowed,
        .expiry = now + (review->allowed ? options_.allowed_ttl : options_.denied_ttl)};
  }
  if (!*allowed) return forbidden();
  return {.status = 200, .message = "", .user = user.username};
}

}  // namespace trimaran::sched
