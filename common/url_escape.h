#pragma once
// QueryEscape: the one URL percent-encoder (RFC 3986): the unreserved characters
// (ALPHA, DIGIT, '-', '.', '_', '~') are kept, every other byte becomes "%XX" with
// upper-case hex digits. Safe for a query parameter's value, a path segment and an
// application/x-www-form-urlencoded body (where it writes a space as "%20", which
// every decoder accepts). Used by the kube REST client, trimaranctl and the providers.
//
// Thread-safety: a pure function.

#include <string>

#include "absl/strings/string_view.h"

namespace trimaran {

// "a=b c" -> "a%3Db%20c".
std::string QueryEscape(absl::string_view s);

}  // namespace trimaran
