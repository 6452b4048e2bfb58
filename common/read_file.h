#pragma once
// Reading a whole file: the one implementation (the kube config loaders and credential
// sources, the self-signed serving pair, the trimaranctl front ends' optional files, /proc
// for the process metrics).
//
// Thread-safety: reentrant.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trimaran {

// The whole content of `path`. NotFound when it does not exist, PermissionDenied when it
// cannot be opened for reading, Internal for other I/O errors. Messages are
// "<path>: <strerror>".
absl::StatusOr<std::string> ReadFileToString(absl::string_view path);

// ReadFileToString, or "" on any error: for optional files (a defaults file, a token
// file that may be absent), where a missing file means "nothing given".
std::string ReadFileOrEmpty(absl::string_view path);

// OK when `path` is a regular file (or a symlink to one) that can be opened for
// reading; otherwise the error ReadFileToString would return.
absl::Status CheckReadable(absl::string_view path);

// True when something exists at `path` (any type; permissions not checked).
bool PathExists(absl::string_view path);

}  // namespace trimaran
