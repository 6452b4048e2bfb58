#include "common/subprocess.h"

#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/testing/status_matchers.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::StatusIs;
using ::trimaran::testing::TempDirForTest;

SubprocessSpec Shell(std::string script) {
  SubprocessSpec spec;
  spec.command = "sh";
  spec.args = {"-c", std::move(script)};
  spec.timeout = absl::Seconds(20);
  return spec;
}

TEST(RunSubprocessTest, CapturesOutputAndExitStatus) {
  struct Case {
    std::string name;
    SubprocessSpec spec;
    int exit_code;
    int term_signal;
    std::string out;
    std::string err;
  };
  SubprocessSpec env = Shell("echo \"$TRIMARAN_A/$TRIMARAN_B\"");
  env.extra_env = {{"TRIMARAN_A", "one"}, {"TRIMARAN_B", "two"}, {"TRIMARAN_A", "three"}};
  SubprocessSpec overrides_path = Shell("echo \"$PATH\"");
  overrides_path.extra_env = {{"PATH", "/nowhere"}};
  SubprocessSpec big = Shell("head -c 300000 /dev/zero | tr '\\0' 'a'; echo done >&2");
  const std::vector<Case> cases = {
      {"stdout and stderr", Shell("echo out; echo err >&2"), 0, 0, "out\n", "err\n"},
      {"exit code", Shell("echo bye; exit 3"), 3, 0, "bye\n", ""},
      {"extra env added; the last entry for a name wins", env, 0, 0, "three/two\n", ""},
      {"extra env can replace PATH for the child", overrides_path, 0, 0, "/nowhere\n", ""},
      {"stdin is /dev/null", Shell("cat; echo end"), 0, 0, "end\n", ""},
      {"killed by a signal", Shell("kill -9 $$"), -1, 9, "", ""},
      {"large output", big, 0, 0, std::string(300000, 'a'), "done\n"},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(SubprocessResult r, RunSubprocess(tc.spec));
    EXPECT_EQ(r.exit_code, tc.exit_code);
    EXPECT_EQ(r.term_signal, tc.term_signal);
    EXPECT_EQ(r.stdout_text, tc.out);
    EXPECT_EQ(r.stderr_text, tc.err);
  }
}

TEST(RunSubprocessTest, Errors) {
  TempDirForTest dir;
  const std::string not_executable = dir.Write("plugin", "#!/bin/sh\necho hi\n", 0644);
  SubprocessSpec missing;
  missing.command = dir.Path("missing");
  SubprocessSpec not_in_path;
  not_in_path.command = "trimaran-no-such-command";
  SubprocessSpec no_exec;
  no_exec.command = not_executable;
  SubprocessSpec too_big = Shell("head -c 100000 /dev/zero");
  too_big.max_stdout_bytes = 1000;

  EXPECT_THAT(RunSubprocess(missing),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(dir.Path("missing"))));
  EXPECT_THAT(RunSubprocess(not_in_path), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(RunSubprocess(no_exec), StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(RunSubprocess(too_big),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("more than 1000 bytes")));
  EXPECT_THAT(RunSubprocess(SubprocessSpec{}), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(RunSubprocessTest, TimeoutKillsTheWholeProcessGroup) {
  // The shell's `sleep` child holds the pipes open; it must die with the shell.
  SubprocessSpec spec = Shell("echo waiting for the network >&2; sleep 30; echo late");
  spec.timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  EXPECT_THAT(RunSubprocess(spec),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("sh did not finish within 300ms and was killed; stderr: waiting "
                                 "for the network")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

TEST(RunSubprocessTest, TimeoutAppliesAfterTheOutputIsClosed) {
  SubprocessSpec spec = Shell("exec >/dev/null 2>&1; sleep 30");
  spec.timeout = absl::Milliseconds(300);
  const absl::Time start = absl::Now();
  EXPECT_THAT(RunSubprocess(spec), StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

}  // namespace
}  // namespace trimaran
