#include "common/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace trimaran {
namespace {

absl::Status ErrnoStatus(int err, absl::string_view path) {
  std::string message = absl::StrCat(path, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::InternalError(message);
  }
}

class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::StatusOr<int> OpenRegularFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus(err, path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a regular file"));
  }
  return fd;
}

}  // namespace

absl::StatusOr<std::string> ReadFileToString(absl::string_view path) {
  const std::string p(path);
  absl::StatusOr<int> fd_or = OpenRegularFile(p);
  if (!fd_or.ok()) return fd_or.status();
  ScopedFd fd(*fd_or);
  std::string content;
  char buf[16 * 1024];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, p);
    }
    if (n == 0) break;
    content.append(buf, static_cast<size_t>(n));
  }
  return content;
}

std::string ReadFileOrEmpty(absl::string_view path) {
  absl::StatusOr<std::string> content = ReadFileToString(path);
  return content.ok() ? *std::move(content) : std::string();
}

absl::Status CheckReadable(absl::string_view path) {
  absl::StatusOr<int> fd = OpenRegularFile(std::string(path));
  if (!fd.ok()) return fd.status();
  ::close(*fd);
  return absl::OkStatus();
}

bool PathExists(absl::string_view path) {
  struct stat st;
  return ::stat(std::string(path).c_str(), &st) == 0;
}

}  // namespace trimaran
