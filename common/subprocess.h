#pragma once
// RunSubprocess: runs a program to completion and captures what it prints. Used by the
// exec credential plugins (kube/credentials.h: `aws eks get-token`, `kubelogin`,
// `gke-gcloud-auth-plugin`), which print an ExecCredential on stdout.
//
// Behaviour:
//   - `command` without a '/' is looked up in the PATH of *this* process (as Go's
//     exec.Command does); with a '/', it is used as given.
//   - The child's environment is this process's environment with `extra_env` added
//     (an entry there replaces a variable of the same name). stdin is /dev/null.
//     Signal mask and dispositions are reset to the defaults (so an ignored SIGPIPE in
//     the daemon does not leak into the plugin).
//   - The child runs in its own process group. When `timeout` passes, the whole group
//     is killed with SIGKILL (a shell-script plugin's children die with it) and the
//     result is DeadlineExceeded, whose message carries the tail of stderr.
//   - A run that finishes is OK whatever its exit code: the caller decides what a
//     non-zero exit means.
//
// Errors: NotFound when the executable does not exist (or is not in PATH),
// PermissionDenied when it is not executable, DeadlineExceeded on timeout,
// ResourceExhausted when stdout exceeds `max_stdout_bytes`, Internal when a system
// call fails.
//
// Thread-safety: reentrant; safe to call from many threads at once. The pipes are
// opened close-on-exec, so a child started by one thread never inherits another's.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trimaran {

struct SubprocessSpec {
  std::string command;
  std::vector<std::string> args;  // argv[1..]; argv[0] is `command`
  std::vector<std::pair<std::string, std::string>> extra_env;
  absl::Duration timeout = absl::Seconds(60);
  size_t max_stdout_bytes = size_t{1} << 20;
};

struct SubprocessResult {
  // The exit status when the program exited normally; -1 when a signal ended it.
  int exit_code = 0;
  int term_signal = 0;  // the signal that ended the program, 0 if none
  std::string stdout_text;
  // The last kMaxStderrBytes bytes of stderr (a plugin's diagnostics are at the end).
  std::string stderr_text;

  static constexpr size_t kMaxStderrBytes = 64 * 1024;
};

absl::StatusOr<SubprocessResult> RunSubprocess(const SubprocessSpec& spec);

}  // namespace trimaran
