#include "common/http/bearer_auth.h"

#include <cstdio>
#include <string>

#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::http {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

TEST(ConstantTimeEqualsTest, ComparesWholeStrings) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_TRUE(ConstantTimeEquals("secret", "secret"));
  EXPECT_FALSE(ConstantTimeEquals("secret", "secreT"));
  EXPECT_FALSE(ConstantTimeEquals("secret", "secret2"));
  EXPECT_FALSE(ConstantTimeEquals("secret", "secre"));
  EXPECT_FALSE(ConstantTimeEquals("", "x"));
  EXPECT_FALSE(ConstantTimeEquals(std::string("a\0b", 3), std::string("a\0c", 3)));
}

TEST(BearerTokenCheckerTest, AcceptsOnlyTheCurrentToken) {
  trimaran::testing::TempDirForTest dir;
  const std::string path = dir.Write("token", "s3cret\n");
  BearerTokenChecker checker(path);
  EXPECT_THAT(checker.Check("Bearer s3cret"), IsOk());
  EXPECT_THAT(checker.Check("bearer s3cret"), IsOk());
  EXPECT_THAT(checker.Check(""), StatusIs(absl::StatusCode::kUnauthenticated, "no bearer token"));
  EXPECT_THAT(checker.Check("Basic czNjcmV0"),
              StatusIs(absl::StatusCode::kUnauthenticated, "not a bearer token"));
  EXPECT_THAT(checker.Check("Bearer "),
              StatusIs(absl::StatusCode::kUnauthenticated, "not a bearer token"));
  EXPECT_THAT(checker.Check("Bearer s3cre"),
              StatusIs(absl::StatusCode::kUnauthenticated, "invalid bearer token"));
  EXPECT_THAT(checker.Check("Bearer s3cret2"),
              StatusIs(absl::StatusCode::kUnauthenticated, "invalid bearer token"));

  // Rotation: the new token works at once, the old one no longer does.
  const std::string tmp = dir.Write("token.tmp", "n3w");
  ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0);
  EXPECT_THAT(checker.Check("Bearer n3w"), IsOk());
  EXPECT_THAT(checker.Check("Bearer s3cret"),
              StatusIs(absl::StatusCode::kUnauthenticated, "invalid bearer token"));

  // No token file: everything is refused (fails closed), naming the file.
  ASSERT_EQ(std::remove(path.c_str()), 0);
  EXPECT_THAT(checker.Check("Bearer n3w"),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr(path)));
}

}  // namespace
}  // namespace trimaran::http
