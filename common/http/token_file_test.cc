#include "common/http/token_file.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::http {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

// Replaces `path` atomically, as the kubelet updates a Secret volume.
void Rotate(const trimaran::testing::TempDirForTest& dir, const std::string& path,
            const std::string& content) {
  const std::string tmp = dir.Write("rotate.tmp", content);
  ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0);
}

TEST(TokenFileTest, ReadsTrimsAndFollowsRotation) {
  trimaran::testing::TempDirForTest dir;
  const std::string path = dir.Write("token", "first-token\n");
  TokenFile file(path);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::string token, file.Get());
  EXPECT_EQ(token, "first-token");
  ASSERT_NO_FATAL_FAILURE(Rotate(dir, path, "  second-token  \n"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(token, file.Get());
  EXPECT_EQ(token, "second-token");
  // Unchanged file: the same token again.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(token, file.Get());
  EXPECT_EQ(token, "second-token");
}

TEST(TokenFileTest, MissingEmptyAndHugeFilesFailAndDoNotKeepTheOldToken) {
  trimaran::testing::TempDirForTest dir;
  const std::string path = dir.Write("token", "good");
  TokenFile file(path);
  TRIMARAN_ASSERT_OK(file.Get().status());
  ASSERT_NO_FATAL_FAILURE(Rotate(dir, path, " \n"));
  EXPECT_THAT(file.Get(), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("empty")));
  ASSERT_EQ(std::remove(path.c_str()), 0);
  EXPECT_THAT(file.Get(), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(path)));
  ASSERT_NO_FATAL_FAILURE(Rotate(dir, path, std::string(kMaxTokenFileBytes + 1, 'x')));
  EXPECT_THAT(file.Get(), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("max")));
  ASSERT_NO_FATAL_FAILURE(Rotate(dir, path, "back"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::string token, file.Get());
  EXPECT_EQ(token, "back");
}

}  // namespace
}  // namespace trimaran::http
