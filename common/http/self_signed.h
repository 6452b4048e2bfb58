#pragma once
// Self-signed serving certificates, like kube-scheduler's when --tls-cert-file is not
// given (client-go's GenerateSelfSignedCertKey written to --cert-dir, there as
// apiserver.crt/.key; here as <stem>.crt/.key, stem "trimaran-scheduler").
//
// The certificate is self-signed with an ECDSA P-256 key (OpenSSL C API), SHA-256,
// subject "CN=<host>@<unix seconds>" (the first host), X.509 v3 with
// basicConstraints CA:TRUE (so a client can trust the certificate itself as its CA),
// keyUsage digitalSignature,keyEncipherment,keyCertSign, extKeyUsage serverAuth and one
// subjectAltName per host: IP literals as IP SANs, anything else as DNS SANs. It is valid
// from an hour before `now` (clock skew) for `validity`.
//
// EnsureSelfSignedCert reuses the files already in the directory when they are
// "valid": both parse, the key matches the certificate, `now` is inside the validity
// window with at least `min_remaining` left, and every requested host is covered by a
// SAN. Otherwise it generates a new pair and replaces the files (written to a temporary
// name and renamed; the key is mode 0600).
//
// Thread-safety: the functions are safe to call concurrently for distinct directories;
// two processes sharing a directory may both regenerate (the last rename wins, and each
// file is always whole, but a pair may mix; do not share --cert-dir between replicas).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trimaran::http {

struct SelfSignedOptions {
  // DNS names and IP literals for the SANs; empty means DefaultServingHosts().
  std::vector<std::string> hosts{};
  // Files are <dir>/<file_stem>.crt and <dir>/<file_stem>.key.
  std::string file_stem = "trimaran-scheduler";
  absl::Duration validity = absl::Hours(24 * 365);
  // Existing files expiring sooner than this are replaced.
  absl::Duration min_remaining = absl::Hours(24);
  // The current time; InfinitePast() means absl::Now() (tests pass a fixed time).
  absl::Time now = absl::InfinitePast();
};

struct ServingCertPem {
  std::string cert_pem{};
  std::string key_pem{};
};

struct ServingCertFiles {
  std::string cert_file{};
  std::string key_file{};
  bool generated = false;  // false: existing valid files were reused
};

// "localhost", "127.0.0.1" and the host name (gethostname) when it is set and differs.
std::vector<std::string> DefaultServingHosts();

// Generates a new certificate and key (PEM; the key as PKCS#8). InvalidArgument for an
// empty host name or non-positive validity; Internal on OpenSSL failures.
absl::StatusOr<ServingCertPem> GenerateSelfSignedCert(const SelfSignedOptions& options);

// Makes `dir` (and its parents, mode 0700) when missing, then reuses or (re)generates the
// pair as described above. Errors name the file or directory.
absl::StatusOr<ServingCertFiles> EnsureSelfSignedCert(const std::string& dir,
                                                      const SelfSignedOptions& options = {});

}  // namespace trimaran::http
