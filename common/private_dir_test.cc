#include "common/private_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0);
  return st.st_mode & 07777;
}

TEST(PrivateDirTest, MakePrivateTempDirIsFreshAndPrivate) {
  testing::TempDirForTest tmp;
  setenv("TMPDIR", tmp.path().c_str(), 1);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::string a, MakePrivateTempDir("trimaran-certs-"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::string b, MakePrivateTempDir("trimaran-certs-"));
  unsetenv("TMPDIR");
  EXPECT_NE(a, b);
  EXPECT_THAT(a, HasSubstr(tmp.path() + "/trimaran-certs-"));
  EXPECT_EQ(ModeOf(a), 0700);
  EXPECT_EQ(ModeOf(b), 0700);
}

TEST(PrivateDirTest, EnsurePrivateDirCreatesOrAcceptsOnlyAPrivateDirectory) {
  testing::TempDirForTest tmp;
  const std::string fresh = tmp.path() + "/fresh";
  TRIMARAN_ASSERT_OK(EnsurePrivateDir(fresh));
  EXPECT_EQ(ModeOf(fresh), 0700);
  TRIMARAN_EXPECT_OK(EnsurePrivateDir(fresh));  // again: ours, 0700

  const std::string open = tmp.path() + "/open";
  ASSERT_EQ(mkdir(open.c_str(), 0700), 0);
  ASSERT_EQ(chmod(open.c_str(), 0755), 0);
  EXPECT_THAT(EnsurePrivateDir(open),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("mode 0755")));
  ASSERT_EQ(chmod(open.c_str(), 01777), 0);
  EXPECT_THAT(EnsurePrivateDir(open), StatusIs(absl::StatusCode::kFailedPrecondition));

  const std::string link = tmp.path() + "/link";
  std::filesystem::create_directory_symlink(fresh, link);
  EXPECT_THAT(EnsurePrivateDir(link),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not a directory")));

  if (geteuid() == 0) {
    // Another owner (only root can make one here).
    const std::string theirs = tmp.path() + "/theirs";
    ASSERT_EQ(mkdir(theirs.c_str(), 0700), 0);
    ASSERT_EQ(chown(theirs.c_str(), 12345, 12345), 0);
    EXPECT_THAT(EnsurePrivateDir(theirs),
                StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("uid 12345")));
  }
}

}  // namespace
}  // namespace trimaran
