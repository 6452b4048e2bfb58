#include "scheduler/server/delegating_authorizer.h"

#include <string>

#include "absl/strings/match.h"
#include "common/testing/fake_clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"

namespace trimaran::sched {
namespace {

using ::testing::HasSubstr;

http::ServerRequest Request(const std::string& path, const std::string& token = "",
                            const std::string& method = "GET") {
  http::ServerRequest r;
  r.method = method;
  r.path = path;
  if (!token.empty()) r.headers.Add("Authorization", "Bearer " + token);
  return r;
}

// An apiserver that knows token "reader" (user prom, allowed /metrics) and token
// "nobody" (user nobody, allowed nothing); counts the reviews.
class DelegatingAuthorizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    client_.SetRawHandler([this](absl::string_view, absl::string_view path,
                                 absl::string_view body) -> absl::StatusOr<std::string> {
      if (!up_) return absl::UnavailableError("connection refused");
      if (absl::EndsWith(path, "/tokenreviews")) {
        ++token_reviews_;
        if (absl::StrContains(body, "\"reader\"")) {
          return std::string(
              R"({"status":{"authenticated":true,"user":{"username":"prom","groups":["mon"]}}})");
        }
        if (absl::StrContains(body, "\"nobody\"")) {
          return std::string(R"({"status":{"authenticated":true,"user":{"username":"nobody"}}})");
        }
        return std::string(R"({"status":{"authenticated":false}})");
      }
      ++access_reviews_;
      const bool allowed = absl::StrContains(body, R"("user":"prom")") &&
                           absl::StrContains(body, R"("path":"/metrics","verb":"get")");
      return std::string(allowed ? R"({"status":{"allowed":true}})"
                                 : R"({"status":{"allowed":false}})");
    });
  }

  trimaran::testing::FakeClock clock_;
  kube::testing::FakeClient client_{clock_};
  bool up_ = true;
  int token_reviews_ = 0;
  int access_reviews_ = 0;
};

TEST_F(DelegatingAuthorizerTest, ProbesOpenEverythingElseChecked) {
  DelegatingAuthorizer auth(&client_, &client_, clock_);
  EXPECT_EQ(auth.Check(Request("/healthz")).status, 200);
  EXPECT_EQ(auth.Check(Request("/readyz")).status, 200);
  EXPECT_EQ(auth.Check(Request("/livez")).status, 200);
  EXPECT_EQ(token_reviews_, 0);
  // Not a prefix match without "*".
  EXPECT_EQ(auth.Check(Request("/healthz/leaderElection")).status, 401);

  const AuthDecision none = auth.Check(Request("/metrics"));
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.message, "Unauthorized\n");
  EXPECT_EQ(auth.Check(Request("/metrics", "stolen")).status, 401);
  const AuthDecision nobody = auth.Check(Request("/metrics", "nobody"));
  EXPECT_EQ(nobody.status, 403);
  EXPECT_EQ(nobody.message, "forbidden: User \"nobody\" cannot get path \"/metrics\"\n");
  const AuthDecision reader = auth.Check(Request("/metrics", "reader"));
  EXPECT_EQ(reader.status, 200);
  EXPECT_EQ(reader.user, "prom");
  EXPECT_EQ(auth.Check(Request("/configz", "reader")).status, 403);
  EXPECT_EQ(auth.Check(Request("/metrics", "reader", "POST")).status, 403);  // verb "post"
}

TEST_F(DelegatingAuthorizerTest, ReviewsAreCachedForTheirTtl) {
  DelegatingAuthorizer auth(&client_, &client_, clock_);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(auth.Check(Request("/metrics", "reader")).status, 200);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(auth.Check(Request("/configz", "reader")).status, 403);
  EXPECT_EQ(token_reviews_, 1);
  EXPECT_EQ(access_reviews_, 2);
  clock_.Advance(absl::Seconds(11));
  EXPECT_EQ(auth.Check(Request("/metrics", "reader")).status, 200);
  EXPECT_EQ(token_reviews_, 2);
  EXPECT_EQ(access_reviews_, 3);
}

TEST_F(DelegatingAuthorizerTest, ApiserverDownRefusesAndIsNotCached) {
  DelegatingAuthorizer auth(&client_, &client_, clock_);
  up_ = false;
  EXPECT_EQ(auth.Check(Request("/metrics", "reader")).status, 401);
  EXPECT_EQ(auth.Check(Request("/healthz")).status, 200);  // probes never need it
  up_ = true;
  EXPECT_EQ(auth.Check(Request("/metrics", "reader")).status, 200);
  // Authenticated (cached), then the SubjectAccessReview fails: 500.
  up_ = false;
  const AuthDecision d = auth.Check(Request("/debug/cache", "reader"));
  EXPECT_EQ(d.status, 500);
  EXPECT_THAT(d.message, HasSubstr("authorization could not be checked"));
}

TEST_F(DelegatingAuthorizerTest, WithoutClientsOnlyAlwaysAllowedPaths) {
  DelegatingAuthorizer no_authn(nullptr, &client_, clock_);
  EXPECT_EQ(no_authn.Check(Request("/metrics", "reader")).status, 401);
  DelegatingAuthorizer no_authz(&client_, nullptr, clock_);
  EXPECT_EQ(no_authz.Check(Request("/metrics", "reader")).status, 403);
  DelegatingAuthorizer open_metrics(
      nullptr, nullptr, clock_,
      DelegatingAuthorizerOptions{.always_allow_paths = {"/healthz", "/metrics", "/debug/*"}});
  EXPECT_EQ(open_metrics.Check(Request("/metrics")).status, 200);
  EXPECT_EQ(open_metrics.Check(Request("/debug/cache")).status, 200);
  EXPECT_EQ(open_metrics.Check(Request("/configz")).status, 401);
}

TEST_F(DelegatingAuthorizerTest, CacheStaysBounded) {
  DelegatingAuthorizer auth(&client_, &client_, clock_,
                            DelegatingAuthorizerOptions{.max_cache_entries = 8});
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(auth.Check(Request("/metrics", "unknown-" + std::to_string(i))).status, 401);
  }
  EXPECT_EQ(token_reviews_, 100);
  // Entries were dropped to make room, not the process's memory: a repeat is reviewed
  // again only if it was dropped; the newest ones are still cached.
  EXPECT_EQ(auth.Check(Request("/metrics", "unknown-99")).status, 401);
  EXPECT_EQ(token_reviews_, 100);
}

// Issue 30 point 5: unknown tokens are reviewed at most at the bucket's rate; over it
// the answer is 429 at once (no review, no wait); cached tokens are not affected.
TEST_F(DelegatingAuthorizerTest, BogusTokensAreRateLimited) {
  DelegatingAuthorizer auth(
      &client_, &client_, clock_,
      DelegatingAuthorizerOptions{.token_reviews_per_second = 2, .token_review_burst = 5});
  EXPECT_EQ(auth.Check(Request("/metrics", "reader")).status, 200);  // cached from now on
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(auth.Check(Request("/metrics", "bogus-" + std::to_string(i))).status, 401);
  }
  const int reviews = token_reviews_;
  for (int i = 4; i < 500; ++i) {
    EXPECT_EQ(auth.Check(Request("/metrics", "bogus-" + std::to_string(i))).status, 429);
  }
  EXPECT_EQ(token_reviews_, reviews);
  EXPECT_EQ(auth.Check(Request("/metrics", "reader")).status, 200);
  EXPECT_EQ(auth.Check(Request("/healthz")).status, 200);
  clock_.Advance(absl::Seconds(1));  // two more reviews
  EXPECT_EQ(auth.Check(Request("/metrics", "bogus-a")).status, 401);
  EXPECT_EQ(auth.Check(Request("/metrics", "bogus-b")).status, 401);
  EXPECT_EQ(auth.Check(Request("/metrics", "bogus-c")).status, 429);
  EXPECT_EQ(auth.Check(Request("/metrics", std::string(10'000, 'x'))).status, 401);
  EXPECT_EQ(token_reviews_, reviews + 2);
}

}  // namespace
}  // namespace trimaran::sched
