#pragma once
// TokenFile: a bearer token kept in a file that rotates (a Kubernetes Secret or a
// projected ServiceAccount token, which the kubelet replaces atomically). Get() stats
// the file on every call and re-reads it only when its FileIdentity changed, so a
// rotated token is used from the next call on, with no restart and no polling thread.
//
// The token is the file's content with surrounding ASCII whitespace removed (a trailing
// newline from `echo` is not part of it). A file that cannot be read, or that holds no
// token, is an error on every call until it is fixed: the last good token is NOT kept,
// so deleting the file revokes it (callers fail closed).
//
// Thread-safety: safe for concurrent use.

#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/http/file_identity.h"

namespace trimaran::http {

// Tokens are short; a larger file is refused rather than read whole.
inline constexpr size_t kMaxTokenFileBytes = 64 << 10;

class TokenFile {
 public:
  explicit TokenFile(std::string path) : path_(std::move(path)) {}

  // The current token. FailedPrecondition naming the file when it cannot be read, is
  // empty or is larger than kMaxTokenFileBytes.
  absl::StatusOr<std::string> Get() const ABSL_LOCKS_EXCLUDED(mu_);

  const std::string& path() const { return path_; }

 private:
  const std::string path_;
  mutable absl::Mutex mu_;
  mutable std::optional<FileIdentity> identity_ ABSL_GUARDED_BY(mu_);
  mutable std::string token_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::http
