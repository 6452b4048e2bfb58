#include "common/http/cert_reloader.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace trimaran::http {

struct CertKeyReloader::Pair {
  X509* leaf = nullptr;
  STACK_OF(X509) * chain = nullptr;  // the intermediates after the leaf (may be empty)
  EVP_PKEY* key = nullptr;
  std::string fingerprint{};

  ~Pair() {
    if (leaf != nullptr) X509_free(leaf);
    if (chain != nullptr) sk_X509_pop_free(chain, X509_free);
    if (key != nullptr) EVP_PKEY_free(key);
  }
};

namespace {

std::string OpenSslError() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "no PEM data";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

int CertCallback(SSL* ssl, void* arg) {
  return static_cast<CertKeyReloader*>(arg)->Apply(ssl) ? 1 : 0;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const CertKeyReloader::Pair>> CertKeyReloader::Load(
    const std::string& cert_file, const std::string& key_file) {
  auto pair = std::make_shared<Pair>();
  ERR_clear_error();
  BIO* bio = BIO_new_file(cert_file.c_str(), "r");
  if (bio == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("tls: cannot open certificate file \"", cert_file, "\""));
  }
  pair->leaf = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  if (pair->leaf == nullptr) {
    BIO_free(bio);
    return absl::InvalidArgumentError(
        absl::StrCat("tls: no certificate in \"", cert_file, "\": ", OpenSslError()));
  }
  pair->chain = sk_X509_new_null();
  while (X509* extra = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    sk_X509_push(pair->chain, extra);
  }
  ERR_clear_error();  // the end of the file reads as an error
  BIO_free(bio);

  bio = BIO_new_file(key_file.c_str(), "r");
  if (bio == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("tls: cannot open private key file \"", key_file, "\""));
  }
  pair->key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (pair->key == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("tls: no private key in \"", key_file, "\": ", OpenSslError()));
  }
  if (X509_check_private_key(pair->leaf, pair->key) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat("tls: the private key \"", key_file,
                                                   "\" does not match the certificate \"",
                                                   cert_file, "\""));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (X509_digest(pair->leaf, EVP_sha256(), md, &md_len) == 1) {
    pair->fingerprint =
        absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(md), md_len));
  }
  return std::shared_ptr<const Pair>(std::move(pair));
}

absl::StatusOr<std::unique_ptr<CertKeyReloader>> CertKeyReloader::Create(std::string cert_file,
                                                                         std::string key_file,
                                                                         Component log_component) {
  std::unique_ptr<CertKeyReloader> r(
      new CertKeyReloader(std::move(cert_file), std::move(key_file), log_component));
  absl::MutexLock lock(&r->mu_);
  r->cert_identity_ = StatFileIdentity(r->cert_file_);
  r->key_identity_ = StatFileIdentity(r->key_file_);
  absl::StatusOr<std::shared_ptr<const Pair>> pair = Load(r->cert_file_, r->key_file_);
  if (!pair.ok()) return pair.status();
  r->pair_ = *std::move(pair);
  return r;
}

CertKeyReloader::~CertKeyReloader() = default;

void CertKeyReloader::InstallOn(SSL_CTX* ctx) { SSL_CTX_set_cert_cb(ctx, CertCallback, this); }

bool CertKeyReloader::Refresh() {
  const std::optional<FileIdentity> cert_now = StatFileIdentity(cert_file_);
  const std::optional<FileIdentity> key_now = StatFileIdentity(key_file_);
  absl::MutexLock lock(&mu_);
  if (cert_now == cert_identity_ && key_now == key_identity_) return pair_ != nullptr;
  cert_identity_ = cert_now;
  key_identity_ = key_now;
  absl::StatusOr<std::shared_ptr<const Pair>> pair = Load(cert_file_, key_file_);
  if (!pair.ok()) {
    Log(log_component_)
        .warn("tls: keeping the previous serving certificate, reload failed err=\"{}\"",
              pair.status().message());
    return pair_ != nullptr;
  }
  pair_ = *std::move(pair);
  ++reloads_;
  Log(log_component_)
      .info("tls: serving certificate reloaded cert={} sha256={}", cert_file_, pair_->fingerprint);
  return true;
}

bool CertKeyReloader::Apply(SSL* ssl) {
  if (!Refresh()) return false;
  std::shared_ptr<const Pair> pair;
  {
    absl::MutexLock lock(&mu_);
    pair = pair_;
  }
  // Takes its own references to the certificate, chain and key.
  return SSL_use_cert_and_key(ssl, pair->leaf, pair->key, pair->chain, /*override=*/1) == 1;
}

int CertKeyReloader::reloads() const {
  absl::MutexLock lock(&mu_);
  return reloads_;
}

std::string CertKeyReloader::fingerprint() const {
  absl::MutexLock lock(&mu_);
  return pair_ == nullptr ? std::string() : pair_->fingerprint;
}

}  // namespace trimaran::http
