#include "common/read_file.h"

#include <string>

#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;

TEST(ReadFileTest, ReadsTheWholeFile) {
  trimaran::testing::TempDirForTest dir;
  const std::string content(40000, 'x');  // more than one read
  const std::string file = dir.Write("f", content + "\n");
  absl::StatusOr<std::string> read = ReadFileToString(file);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, content + "\n");
  EXPECT_EQ(ReadFileOrEmpty(file), content + "\n");
  EXPECT_TRUE(CheckReadable(file).ok());
  EXPECT_TRUE(PathExists(file));
}

TEST(ReadFileTest, MissingFile) {
  trimaran::testing::TempDirForTest dir;
  const std::string file = dir.Path("absent");
  EXPECT_THAT(ReadFileToString(file).status(),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(file)));
  EXPECT_EQ(ReadFileOrEmpty(file), "");
  EXPECT_FALSE(PathExists(file));
}

TEST(ReadFileTest, DirectoryIsNotAFile) {
  trimaran::testing::TempDirForTest dir;
  EXPECT_THAT(CheckReadable(dir.path()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a regular file")));
  EXPECT_EQ(ReadFileOrEmpty(dir.path()), "");
  EXPECT_TRUE(PathExists(dir.path()));
}

}  // namespace
}  // namespace trimaran
