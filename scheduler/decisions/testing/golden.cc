#include "scheduler/decisions/testing/golden.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace trimaran::sched::decisions::testing {

std::string TestData(const std::string& name) {
  return absl::StrCat(TRIMARANCTL_TESTDATA, "/", name);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void ExpectGolden(const std::string& actual, const std::string& golden_name) {
  const std::string path = TestData(golden_name);
  if (std::getenv("TRIMARANCTL_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  EXPECT_EQ(actual, ReadFile(path)) << "golden " << path;
}

}  // namespace trimaran::sched::decisions::testing
