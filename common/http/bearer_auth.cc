#include "common/http/bearer_auth.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace trimaran::http {

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  // Walk the longer input whole, so the time does not depend on where they differ.
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  uint8_t diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t x = i < a.size() ? static_cast<uint8_t>(a[i]) : 0;
    const uint8_t y = i < b.size() ? static_cast<uint8_t>(b[i]) : 0;
    diff |= static_cast<uint8_t>(x ^ y);
  }
  return diff == 0;
}

absl::Status BearerTokenChecker::Check(absl::string_view authorization) const {
  authorization = absl::StripAsciiWhitespace(authorization);
  if (authorization.empty()) return absl::UnauthenticatedError("no bearer token");
  constexpr absl::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size() ||
      !absl::StartsWithIgnoreCase(authorization, kScheme)) {
    return absl::UnauthenticatedError("not a bearer token");
  }
  const absl::string_view presented =
      absl::StripLeadingAsciiWhitespace(authorization.substr(kScheme.size()));
  absl::StatusOr<std::string> expected = token_.Get();
  if (!expected.ok()) return absl::UnauthenticatedError(expected.status().message());
  if (!ConstantTimeEquals(presented, *expected)) {
    return absl::UnauthenticatedError("invalid bearer token");
  }
  return absl::OkStatus();
}

}  // namespace trimaran::http
