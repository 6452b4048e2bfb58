#pragma once
// A child process for e2e tests (etcd, kube-apiserver, our own daemons).
//
// Every child runs in its own process group and gets PR_SET_PDEATHSIG(SIGKILL), so it
// dies with the test process even when a test crashes or is killed by ctest's timeout:
// no stray processes. The destructor kills the whole group and reaps it.
// stdout and stderr go to `log_path` (appended), which tests print on failure.
//
// Thread-safety: externally synchronized (one owner).

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trimaran::e2e {

class Subprocess {
 public:
  // Starts `argv[0]` (searched in PATH when it has no '/') with `argv`, extra
  // environment entries `env` ("K=V", added to the current environment).
  static absl::StatusOr<std::unique_ptr<Subprocess>> Start(std::vector<std::string> argv,
                                                           std::string log_path,
                                                           std::vector<std::string> env = {});
  ~Subprocess();
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& log_path() const { return log_path_; }

  // True while the child has not exited (reaps it if it has).
  bool Running();
  // Sends `signal` to the child's process group.
  void Signal(int signal);
  // SIGTERM, then SIGKILL after `grace`; waits for the exit. Returns the exit status as
  // from waitpid (or -1 if it was already reaped).
  int Stop(absl::Duration grace = absl::Seconds(5));
  // Waits up to `timeout` for the child to exit by itself; returns its exit code
  // (128+signal when killed) or DeadlineExceeded.
  absl::StatusOr<int> Wait(absl::Duration timeout);
  // The last `max_bytes` of the log.
  std::string LogTail(size_t max_bytes = 4000) const;

 private:
  Subprocess(pid_t pid, std::string log_path) : pid_(pid), log_path_(std::move(log_path)) {}
  pid_t pid_;
  std::string log_path_;
  bool reaped_ = false;
  int exit_status_ = -1;
};

// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read, close).
absl::StatusOr<int> PickFreePort();

}  // namespace trimaran::e2e
