#include "common/private_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trimaran {
namespace {

absl::Status Errno(absl::string_view what, const std::string& path, int err) {
  return absl::Status(err == ENOENT ? absl::StatusCode::kNotFound : absl::StatusCode::kInternal,
                      absl::StrCat(what, " ", path, ": ", std::strerror(err)));
}

// A directory, not a symlink, of the effective user, mode 0700 (or stricter).
absl::Status CheckPrivate(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return Errno("stat", path, errno);
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is not a directory (a symlink or a file): refusing it"));
  }
  const mode_t perms = st.st_mode & 07777;
  if (st.st_uid != geteuid() || (perms & 077) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s is owned by uid %d with mode %04o; it must be owned by uid %d (this process) "
        "with mode 0700, since private keys are kept there: refusing it",
        path, st.st_uid, perms, geteuid()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> MakePrivateTempDir(absl::string_view prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/", prefix, "XXXXXX");
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) return Errno("mkdtemp", pattern, errno);
  std::string dir(buf.data());
  if (absl::Status s = CheckPrivate(dir); !s.ok()) return s;
  return dir;
}

absl::Status EnsurePrivateDir(const std::string& path) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return Errno("mkdir", path, errno);
  return CheckPrivate(path);
}

}  // namespace trimaran
