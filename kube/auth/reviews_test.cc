#include "kube/auth/reviews.h"

#include <string>

#include "common/testing/fake_clock.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kube/testing/fake_client.h"

namespace trimaran::kube {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

class ReviewsTest : public ::testing::Test {
 protected:
  void Reply(absl::StatusOr<std::string> reply) {
    client_.SetRawHandler([this, reply](absl::string_view method, absl::string_view path,
                                        absl::string_view body) -> absl::StatusOr<std::string> {
      method_ = std::string(method);
      path_ = std::string(path);
      body_ = std::string(body);
      return reply;
    });
  }

  trimaran::testing::FakeClock clock_;
  testing::FakeClient client_{clock_};
  std::string method_, path_, body_;
};

TEST_F(ReviewsTest, TokenReviewAuthenticated) {
  Reply(R"({"kind":"TokenReview","status":{"authenticated":true,
    "user":{"username":"system:serviceaccount:monitoring:prometheus","uid":"u1",
            "groups":["system:serviceaccounts","system:authenticated"]}}})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(TokenReviewResult r, ReviewToken(client_, "tok\"en"));
  EXPECT_EQ(method_, "POST");
  EXPECT_EQ(path_, "/apis/authentication.k8s.io/v1/tokenreviews");
  EXPECT_THAT(body_, HasSubstr(R"("spec":{"token":"tok\"en"})"));
  EXPECT_TRUE(r.authenticated);
  EXPECT_EQ(r.user.username, "system:serviceaccount:monitoring:prometheus");
  EXPECT_EQ(r.user.uid, "u1");
  EXPECT_THAT(r.user.groups,
              ::testing::ElementsAre("system:serviceaccounts", "system:authenticated"));
}

TEST_F(ReviewsTest, TokenReviewUnknownTokenIsNotAnError) {
  Reply(R"({"status":{"authenticated":false,"error":"invalid bearer token"}})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(TokenReviewResult r, ReviewToken(client_, "x"));
  EXPECT_FALSE(r.authenticated);
  EXPECT_EQ(r.error, "invalid bearer token");
}

TEST_F(ReviewsTest, TokenReviewErrors) {
  Reply(absl::PermissionDeniedError("tokenreviews is forbidden"));
  EXPECT_THAT(ReviewToken(client_, "x"), StatusIs(absl::StatusCode::kPermissionDenied));
  Reply(std::string("not json"));
  EXPECT_THAT(ReviewToken(client_, "x"), StatusIs(absl::StatusCode::kInvalidArgument));
  Reply(std::string(R"({"status":{"authenticated":true,"user":{}}})"));
  EXPECT_THAT(ReviewToken(client_, "x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("without a username")));
}

TEST_F(ReviewsTest, SubjectAccessReview) {
  Reply(R"({"status":{"allowed":true,"reason":"RBAC: allowed by ClusterRoleBinding"}})");
  const UserInfo user{.username = "alice", .uid = "", .groups = {"ops"}};
  TRIMARAN_ASSERT_OK_AND_ASSIGN(AccessReviewResult r,
                                ReviewNonResourceAccess(client_, user, "get", "/metrics"));
  EXPECT_EQ(path_, "/apis/authorization.k8s.io/v1/subjectaccessreviews");
  EXPECT_THAT(body_, HasSubstr(R"("user":"alice","groups":["ops"])"));
  EXPECT_THAT(body_, HasSubstr(R"("nonResourceAttributes":{"path":"/metrics","verb":"get"})"));
  EXPECT_TRUE(r.allowed);
  EXPECT_EQ(r.reason, "RBAC: allowed by ClusterRoleBinding");

  Reply(R"({"status":{"allowed":true,"denied":true}})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(r, ReviewNonResourceAccess(client_, user, "get", "/configz"));
  EXPECT_FALSE(r.allowed);  // an explicit deny wins
  Reply(R"({"status":{"allowed":false,"evaluationError":"no RBAC policy matched"}})");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(r, ReviewNonResourceAccess(client_, user, "get", "/configz"));
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.reason, "no RBAC policy matched");
}

}  // namespace
}  // namespace trimaran::kube
