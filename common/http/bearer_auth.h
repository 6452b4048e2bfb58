#pragma once
// BearerTokenChecker: checks an "Authorization: Bearer <token>" value (an HTTP header
// or the gRPC metadata "authorization") against the token in a TokenFile, which is
// re-read when it rotates. The comparison takes time that depends only on the lengths,
// never on how many leading bytes match.
//
//   Check("")                  -> Unauthenticated "no bearer token"
//   Check("Basic abc")         -> Unauthenticated "not a bearer token"
//   Check("Bearer wrong")      -> Unauthenticated "invalid bearer token"
//   token file unreadable      -> Unauthenticated "token file ...: ..." (fails closed)
//   Check("Bearer <token>")    -> OK ("bearer" in any case, as RFC 6750 allows)
//
// Thread-safety: safe for concurrent use.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/http/token_file.h"

namespace trimaran::http {

// a == b, in time that depends only on the lengths of a and b.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

class BearerTokenChecker {
 public:
  explicit BearerTokenChecker(std::string token_file) : token_(std::move(token_file)) {}

  absl::Status Check(absl::string_view authorization) const;

  const std::string& token_file() const { return token_.path(); }

 private:
  TokenFile token_;
};

}  // namespace trimaran::http
