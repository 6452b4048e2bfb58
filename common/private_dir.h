#pragma once
// Private directories for secrets on disk (the scheduler's self-signed serving key): a
// directory that only the effective user can list, read or write (issue 30 point 9).
//
//   MakePrivateTempDir   a fresh directory under $TMPDIR (or /tmp), made by mkdtemp(3):
//                        mode 0700, a name nobody can predict, created by this call
//                        (never a directory someone else prepared), then checked.
//   EnsurePrivateDir     `path` itself: created with mode 0700 when absent; when it
//                        exists it must be a real directory (not a symlink) owned by the
//                        effective user with no group or other permission bits,
//                        otherwise FailedPrecondition naming the owner and mode found.
//
// Thread-safety: free functions over the file system; safe to call concurrently.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trimaran {

absl::StatusOr<std::string> MakePrivateTempDir(absl::string_view prefix);

absl::Status EnsurePrivateDir(const std::string& path);

}  // namespace trimaran
