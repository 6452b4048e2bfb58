#pragma once
// FileIdentity: what tells a changed file from an unchanged one without reading it:
// device, inode, size and modification time of the file a path names (symlinks
// followed, so a Kubernetes Secret or projected volume, which swaps a "..data"
// symlink atomically, shows a new identity on every update). Reloaders stat the
// path on each use and re-read only when the identity differs from the last one read.
//
// Thread-safety: plain values and a pure function (one stat(2)).

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>

namespace trimaran::http {

struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = -1;
  int64_t mtime_ns = -1;

  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

// The identity of `path`, or nullopt when it cannot be stat'ed.
inline std::optional<FileIdentity> StatFileIdentity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                      static_cast<int64_t>(st.st_size),
                      static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

}  // namespace trimaran::http
