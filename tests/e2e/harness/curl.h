#pragma once
// Curl: a GET with the curl program, for e2e tests that read a daemon's HTTPS admin
// endpoints (-k: the daemons' serving certificates are self-signed; the tests check
// content only).
//
//   int status = 0;
//   std::string body = Curl("https://127.0.0.1:10259/metrics", &status);
//
// Thread-safety: reentrant (one curl process per call).

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"

namespace trimaran::e2e {

// The body of `url`; *status gets the HTTP status (0: no answer). At most 10 s.
// `header` ("Authorization: Bearer ..."), when set, is sent with the request.
inline std::string Curl(const std::string& url, int* status = nullptr,
                        const std::string& header = "") {
  const std::string cmd =
      absl::StrCat("curl -ks --max-time 10 -o - -w '\\n%{http_code}' ",
                   header.empty() ? "" : absl::StrCat("-H '", header, "' "), "'", url, "'");
  std::string out;
  if (FILE* f = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, k);
    pclose(f);
  }
  const size_t nl = out.rfind('\n');
  if (status != nullptr) *status = nl == std::string::npos ? 0 : std::atoi(out.c_str() + nl + 1);
  return nl == std::string::npos ? out : out.substr(0, nl);
}

}  // namespace trimaran::e2e
