#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

extern char** environ;  // NOLINT: POSIX global, not declared by <unistd.h> in C++

namespace trimaran {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// Closes the descriptor on scope exit unless released.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

absl::Status MakePipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe2: ", ErrnoText(errno)));
  }
  read_end.Reset(fds[0]);
  write_end.Reset(fds[1]);
  return absl::OkStatus();
}

// "NAME=value" strings for the child: our environment, with `extra` replacing or
// adding variables.
std::vector<std::string> BuildEnvironment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  absl::flat_hash_set<std::string> overridden;
  for (const auto& [name, value] : extra) overridden.insert(name);
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    std::string name = eq == nullptr ? std::string(*e) : std::string(*e, eq - *e);
    if (!overridden.contains(name)) env.emplace_back(*e);
  }
  for (const auto& [name, value] : extra) env.push_back(absl::StrCat(name, "=", value));
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Owns the spawn attribute and file-action objects.
class SpawnSetup {
 public:
  SpawnSetup() {
    ::posix_spawnattr_init(&attr_);
    ::posix_spawn_file_actions_init(&actions_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  ~SpawnSetup() {
    ::posix_spawn_file_actions_destroy(&actions_);
    ::posix_spawnattr_destroy(&attr_);
  }

  absl::Status Init(int stdout_fd, int stderr_fd) {
    sigset_t empty;
    sigemptyset(&empty);
    sigset_t all;
    sigfillset(&all);
    int rc = 0;
    if ((rc = ::posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                                     POSIX_SPAWN_SETPGROUP)) != 0 ||
        (rc = ::posix_spawnattr_setsigmask(&attr_, &empty)) != 0 ||
        (rc = ::posix_spawnattr_setsigdefault(&attr_, &all)) != 0 ||
        (rc = ::posix_spawnattr_setpgroup(&attr_, 0)) != 0 ||
        (rc = ::posix_spawn_file_actions_addopen(&actions_, STDIN_FILENO, "/dev/null", O_RDONLY,
                                                 0)) != 0 ||
        (rc = ::posix_spawn_file_actions_adddup2(&actions_, stdout_fd, STDOUT_FILENO)) != 0 ||
        (rc = ::posix_spawn_file_actions_adddup2(&actions_, stderr_fd, STDERR_FILENO)) != 0) {
      return absl::InternalError(absl::StrCat("posix_spawn setup: ", ErrnoText(rc)));
    }
    return absl::OkStatus();
  }

  const posix_spawnattr_t* attr() const { return &attr_; }
  const posix_spawn_file_actions_t* actions() const { return &actions_; }

 private:
  posix_spawnattr_t attr_;
  posix_spawn_file_actions_t actions_;
};

std::string Tail(const std::string& text, size_t n) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

// Reaps `pid`, waiting no later than `deadline` (then kills its group and waits).
// Returns true when the child exited on its own before the deadline.
bool Reap(pid_t pid, absl::Time deadline, int* wait_status) {
  while (true) {
    pid_t r = ::waitpid(pid, wait_status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // ECHILD: nothing left to wait for
    if (absl::Now() >= deadline) break;
    absl::SleepFor(absl::Milliseconds(5));
  }
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, wait_status, 0) < 0 && errno == EINTR) {
  }
  return false;
}

}  // namespace

absl::StatusOr<SubprocessResult> RunSubprocess(const SubprocessSpec& spec) {
  if (spec.command.empty()) return absl::InvalidArgumentError("empty command");

  Fd out_read, out_write, err_read, err_write;
  if (absl::Status s = MakePipe(out_read, out_write); !s.ok()) return s;
  if (absl::Status s = MakePipe(err_read, err_write); !s.ok()) return s;

  SpawnSetup setup;
  if (absl::Status s = setup.Init(out_write.get(), err_write.get()); !s.ok()) return s;

  std::vector<std::string> argv_strings;
  argv_strings.push_back(spec.command);
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<char*> argv = CStrings(argv_strings);
  std::vector<std::string> env_strings = BuildEnvironment(spec.extra_env);
  std::vector<char*> envp = CStrings(env_strings);

  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, spec.command.c_str(), setup.actions(), setup.attr(), argv.data(),
                          envp.data());
  if (rc != 0) {
    if (rc == ENOENT || rc == ENOTDIR) {
      return absl::NotFoundError(absl::StrCat("executable not found: ", spec.command));
    }
    if (rc == EACCES || rc == EPERM) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot execute ", spec.command, ": ", ErrnoText(rc)));
    }
    return absl::InternalError(absl::StrCat("starting ", spec.command, ": ", ErrnoText(rc)));
  }
  out_write.Close();
  err_write.Close();

  const absl::Time deadline = absl::Now() + spec.timeout;
  SubprocessResult result;
  bool timed_out = false;
  bool too_much_output = false;
  std::array<char, 16 * 1024> buf;
  while (out_read.valid() || err_read.valid()) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      timed_out = true;
      break;
    }
    pollfd fds[2] = {{out_read.get(), POLLIN, 0}, {err_read.get(), POLLIN, 0}};
    int wait_ms = static_cast<int>(absl::ToInt64Milliseconds(left)) + 1;
    int n = ::poll(fds, 2, wait_ms);
    if (n < 0) {
      if (errno == EINTR) continue;
      timed_out = true;  // cannot watch the child any longer; kill it below
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t got = ::read(fds[i].fd, buf.data(), buf.size());
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        (i == 0 ? out_read : err_read).Close();
        continue;
      }
      if (i == 0) {
        result.stdout_text.append(buf.data(), static_cast<size_t>(got));
        if (result.stdout_text.size() > spec.max_stdout_bytes) too_much_output = true;
      } else {
        result.stderr_text.append(buf.data(), static_cast<size_t>(got));
        if (result.stderr_text.size() > 2 * SubprocessResult::kMaxStderrBytes) {
          result.stderr_text = Tail(result.stderr_text, SubprocessResult::kMaxStderrBytes);
        }
      }
    }
    if (too_much_output) break;
  }
  out_read.Close();
  err_read.Close();
  result.stderr_text = Tail(result.stderr_text, SubprocessResult::kMaxStderrBytes);

  int wait_status = 0;
  // After a timeout or overflow the deadline is "now", so Reap kills at once.
  const absl::Time reap_deadline = (timed_out || too_much_output) ? absl::Now() : deadline;
  const bool exited_in_time = Reap(pid, reap_deadline, &wait_status);
  if (!exited_in_time && !too_much_output) timed_out = true;

  if (too_much_output) {
    return absl::ResourceExhaustedError(
        absl::StrCat(spec.command, " wrote more than ", spec.max_stdout_bytes, " bytes to stdout"));
  }
  if (timed_out) {
    std::string message = absl::StrCat(spec.command, " did not finish within ",
                                       absl::FormatDuration(spec.timeout), " and was killed");
    std::string tail = Tail(result.stderr_text, 512);
    if (!tail.empty()) absl::StrAppend(&message, "; stderr: ", tail);
    return absl::DeadlineExceededError(message);
  }
  if (WIFEXITED(wait_status)) {
    result.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    result.exit_code = -1;
    result.term_signal = WTERMSIG(wait_status);
  }
  return result;
}

}  // namespace trimaran
