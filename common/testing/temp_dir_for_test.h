#pragma once
// TempDirForTest: a fresh directory under gtest's TempDir(), removed with its content
// when the object dies, plus helpers to write files into it. Test-only, header-only.
//
// Thread-safety: externally synchronized.

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace trimaran::testing {

class TempDirForTest {
 public:
  TempDirForTest() {
    std::string base = ::testing::TempDir();
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    std::string pattern = absl::StrCat(base, "/trimaran_XXXXXX");
    char* made = ::mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr) << "mkdtemp " << pattern;
    path_ = pattern;
  }
  TempDirForTest(const TempDirForTest&) = delete;
  TempDirForTest& operator=(const TempDirForTest&) = delete;
  ~TempDirForTest() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  const std::string& path() const { return path_; }

  // The absolute path of `relative` inside the directory.
  std::string Path(absl::string_view relative) const { return absl::StrCat(path_, "/", relative); }

  // Writes `content` to `relative` (creating parent directories); returns its path.
  std::string Write(absl::string_view relative, absl::string_view content,
                    mode_t mode = 0600) const {
    const std::string file = Path(relative);
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    {
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      out.write(content.data(), static_cast<std::streamsize>(content.size()));
      EXPECT_TRUE(out.good()) << "writing " << file;
    }
    ::chmod(file.c_str(), mode);
    return file;
  }

 private:
  std::string path_;
};

}  // namespace trimaran::testing
