#pragma once
// JSON string literals for the hand-written JSON writers (JSON log lines, the config
// written by --write-config-to): quotes, backslashes and control characters escaped
// (\n, \t, \r, other bytes below 0x20 as \u00XX); every other byte is copied as is, so
// UTF-8 passes through. The load watcher's /watcher encoder has its own, allocation-free
// variant (loadwatcher/json.cc) on its hot path.
//
// Thread-safety: pure functions.

#include <string>

#include "absl/strings/string_view.h"

namespace trimaran {

// Appends `s` to `out` as a quoted JSON string.
void AppendJsonString(std::string& out, absl::string_view s);

// `s` as a quoted JSON string.
std::string JsonQuote(absl::string_view s);

}  // namespace trimaran
