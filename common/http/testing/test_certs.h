#pragma once
// Test PKI: fresh CA, server and client certificates for TLS tests, made with the
// OpenSSL C API (no openssl binary needed). Keys are EC P-256 (fast to generate);
// certificates are valid from an hour ago for a day.
//
//   TRIMARAN_ASSERT_OK_AND_ASSIGN(TestPki pki, MakeTestPki(temp_dir));
//   server options: tls_cert_file = pki.server.cert_file, tls_key_file = pki.server.key_file
//   client TlsOptions: ca_file = pki.ca.cert_file (or ca_pem = pki.ca.cert_pem)
//
// Thread-safety: MakeTestPki is safe to call concurrently with distinct directories.

#include <string>

#include "absl/status/statusor.h"

namespace trimaran::http::testing {

struct CertAndKey {
  std::string cert_pem{};
  std::string key_pem{};
  std::string cert_file{};  // cert_pem written under the PKI's directory
  std::string key_file{};
};

struct TestPki {
  CertAndKey ca{};        // self-signed CA ("CN=trimaran-test-ca")
  CertAndKey server{};    // signed by ca; SANs IP:127.0.0.1, IP:::1, DNS:localhost,
                          // DNS:server.test; serverAuth
  CertAndKey client{};    // signed by ca; "CN=test-client,O=trimaran"; clientAuth
  CertAndKey other_ca{};  // an unrelated self-signed CA, for "wrong CA" tests
};

// Generates the PKI and writes every PEM into `dir` (which must exist).
absl::StatusOr<TestPki> MakeTestPki(const std::string& dir);

}  // namespace trimaran::http::testing
