#include "tests/e2e/harness/subprocess.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace trimaran::e2e {

absl::StatusOr<std::unique_ptr<Subprocess>> Subprocess::Start(std::vector<std::string> argv,
                                                              std::string log_path,
                                                              std::vector<std::string> env) {
  if (argv.empty()) return absl::InvalidArgumentError("empty argv");
  int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return absl::InternalError(absl::StrCat("open ", log_path, ": ", std::strerror(errno)));
  }
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log_fd);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    // Child: own process group, die with the parent, log to the file.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
    for (auto& e : env) ::putenv(e.data());
    ::execvp(cargv[0], cargv.data());
    std::fprintf(stderr, "exec %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, to avoid racing the child
  ::close(log_fd);
  return std::unique_ptr<Subprocess>(new Subprocess(pid, std::move(log_path)));
}

Subprocess::~Subprocess() { Stop(absl::Seconds(2)); }

bool Subprocess::Running() {
  if (reaped_) return false;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    exit_status_ = status;
    ::kill(-pid_, SIGKILL);  // leftovers of the group
    return false;
  }
  return true;
}

void Subprocess::Signal(int signal) {
  if (!reaped_) ::kill(-pid_, signal);
}

int Subprocess::Stop(absl::Duration grace) {
  if (reaped_) return exit_status_;
  ::kill(-pid_, SIGTERM);
  absl::Time deadline = absl::Now() + grace;
  while (absl::Now() < deadline) {
    if (!Running()) return exit_status_;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  reaped_ = true;
  exit_status_ = status;
  return status;
}

absl::StatusOr<int> Subprocess::Wait(absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (Running()) {
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("process ", pid_, " still running after ", absl::FormatDuration(timeout)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(exit_status_)) return WEXITSTATUS(exit_status_);
  if (WIFSIGNALED(exit_status_)) return 128 + WTERMSIG(exit_status_);
  return -1;
}

std::string Subprocess::LogTail(size_t max_bytes) const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string all = ss.str();
  if (all.size() <= max_bytes) return all;
  return all.substr(all.size() - max_bytes);
}

absl::StatusOr<int> PickFreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return absl::InternalError(absl::StrCat("bind 127.0.0.1:0: ", std::strerror(errno)));
  }
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace trimaran::e2e
