#pragma once
// CertKeyReloader: a TLS serving certificate (chain) and private key from PEM files,
// re-read when either file changes, so a certificate rotated by cert-manager or by an
// updated Secret is served without a restart (kube-scheduler's dynamic serving
// certificate does the same).
//
// InstallOn(ctx) sets an OpenSSL certificate callback: at every handshake the pair is
// installed on the connection, after a stat of both files (FileIdentity) and, when one
// changed, a re-read. A re-read that fails (a half-written rotation, a key that does
// not match the certificate) keeps the last good pair, logs a warning and is retried
// at the next handshake after another change; connections are never refused for it.
// The first load (Create) must succeed.
//
// Thread-safety: safe for concurrent use (handshakes run on many worker threads).

#include <openssl/ssl.h>

#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/http/file_identity.h"
#include "common/logging.h"

namespace trimaran::http {

class CertKeyReloader {
 public:
  // Loads both files. InvalidArgument naming the file that cannot be loaded, or the
  // pair when the key does not match the certificate.
  static absl::StatusOr<std::unique_ptr<CertKeyReloader>> Create(
      std::string cert_file, std::string key_file, Component log_component = Component::kAdmin);
  ~CertKeyReloader();
  CertKeyReloader(const CertKeyReloader&) = delete;
  CertKeyReloader& operator=(const CertKeyReloader&) = delete;

  // Makes every connection of `ctx` use the current pair. The reloader must outlive ctx.
  void InstallOn(SSL_CTX* ctx);

  // Reloads now if a file changed; true when the current pair is usable. Called by the
  // certificate callback; public for tests.
  bool Refresh() ABSL_LOCKS_EXCLUDED(mu_);
  // Installs the current pair on one connection.
  bool Apply(SSL* ssl) ABSL_LOCKS_EXCLUDED(mu_);

  // Successful reloads after the first load.
  int reloads() const ABSL_LOCKS_EXCLUDED(mu_);
  // The SHA-256 fingerprint (hex) of the certificate now served.
  std::string fingerprint() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Pair;
  CertKeyReloader(std::string cert_file, std::string key_file, Component log_component)
      : cert_file_(std::move(cert_file)),
        key_file_(std::move(key_file)),
        log_component_(log_component) {}
  static absl::StatusOr<std::shared_ptr<const Pair>> Load(const std::string& cert_file,
                                                          const std::string& key_file);

  const std::string cert_file_;
  const std::string key_file_;
  const Component log_component_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const Pair> pair_ ABSL_GUARDED_BY(mu_);
  std::optional<FileIdentity> cert_identity_ ABSL_GUARDED_BY(mu_);
  std::optional<FileIdentity> key_identity_ ABSL_GUARDED_BY(mu_);
  int reloads_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace trimaran::http
