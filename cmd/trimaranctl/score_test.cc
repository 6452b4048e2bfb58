#include "cmd/trimaranctl/score.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/decisions/testing/golden.h"

namespace trimaran::cmd::trimaranctl {
namespace {

using sched::decisions::testing::ExpectGolden;
using sched::decisions::testing::TestData;
using ::testing::HasSubstr;

TEST(ScoreTest, GoldenTable) {
  std::string out;
  std::string err;
  ASSERT_EQ(RunTrimaranctl({"score", TestData("most_allocated.json")}, out, err), 0) << err;
  EXPECT_EQ(err, "");
  ExpectGolden(out, "most_allocated.table.golden");
}

TEST(ScoreTest, GoldenJson) {
  std::string out;
  std::string err;
  ASSERT_EQ(RunTrimaranctl({"score", "-o", "json", TestData("most_allocated.json")}, out, err), 0)
      << err;
  ExpectGolden(out, "most_allocated.json.golden");
}

// ---- The CLI ----

TEST(CliTest, HelpVersionAndUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    int want_code;
    std::string want_out;  // substring
    std::string want_err;  // substring
  };
  const std::string file = TestData("most_allocated.json");
  const std::vector<Case> cases = {
      {{"--help"}, 0, "trimaranctl score [flags] FILE", ""},
      {{"score", "--help"}, 0, "-o, --output FORMAT", ""},
      {{"--version"}, 0, absl::StrCat("trimaranctl ", kVersion, "\n"), ""},
      {{}, 1, "", "no command given"},
      {{"scroe"}, 1, "", "unknown command \"scroe\""},
      {{"score"}, 1, "", "FILE is required"},
      {{"score", "--bogus", file}, 1, "", "unknown flag \"--bogus\""},
      {{"score", "-o", "yaml", file}, 1, "", "must be table or json, got \"yaml\""},
      {{"score", "-o"}, 1, "", "-o: needs a value"},
      {{"score", file, file}, 1, "", "more than one FILE"},
      {{"score", "/nonexistent/in.json"}, 1, "", "/nonexistent/in.json: cannot open file"},
      {{"score", "--profile", "nope", file}, 1, "", "no profile named \"nope\""},
      {{"score", "-ojson", file}, 0, R"("schemaVersion":1)", ""},
      {{"score", "--output=json", file}, 0, R"("chosen":"node-a")", ""},
      {{"score", "--profile=binpack", file}, 0, "Chosen: node-a (highest total 375)", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrJoin(c.args, " "));
    std::string out;
    std::string err;
    EXPECT_EQ(RunTrimaranctl(c.args, out, err), c.want_code);
    EXPECT_THAT(out, HasSubstr(c.want_out));
    EXPECT_THAT(err, HasSubstr(c.want_err));
  }
  // --version prints exactly one line.
  std::string out;
  std::string err;
  ASSERT_EQ(RunTrimaranctl({"--version"}, out, err), 0);
  EXPECT_EQ(out, absl::StrCat("trimaranctl ", kVersion, "\n"));
}

TEST(CliTest, BadFileIsExitOneWithThePath) {
  const std::string path = ::testing::TempDir() + "/trimaranctl_bad.json";
  std::ofstream(path)
      << R"({"nodes":[{"metadata":{"name":"n"},"status":{"allocatable":{"memory":"lots"}}}],"pod":{"metadata":{"name":"p"}}})";
  std::string out;
  std::string err;
  EXPECT_EQ(RunTrimaranctl({"score", path}, out, err), 1);
  EXPECT_EQ(out, "");
  EXPECT_THAT(err, HasSubstr(absl::StrCat("trimaranctl: error: ", path,
                                          ": nodes[0].status.allocatable.memory")));
}

}  // namespace
}  // namespace trimaran::cmd::trimaranctl
