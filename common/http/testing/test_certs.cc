#include "common/http/testing/test_certs.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace trimaran::http::testing {
namespace {

struct Deleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter>;
using CertPtr = std::unique_ptr<X509, Deleter>;
using BioPtr = std::unique_ptr<BIO, Deleter>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter>;

absl::Status OpenSslError(absl::string_view what) {
  return absl::InternalError(absl::StrCat("openssl: ", what));
}

absl::StatusOr<std::string> BioString(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  if (len < 0) return OpenSslError("BIO_get_mem_data");
  return std::string(data, static_cast<size_t>(len));
}

absl::Status AddExt(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  if (ext == nullptr || X509_add_ext(cert, ext.get(), -1) != 1) {
    return OpenSslError(absl::StrCat("extension ", OBJ_nid2sn(nid), "=", value));
  }
  return absl::OkStatus();
}

struct Issued {
  KeyPtr key;
  CertPtr cert;
};

// Makes a key and a certificate for `subject` ("CN=x,O=y"), signed by `issuer` (or
// self-signed when null), with `extensions` (nid, value) added in order.
absl::StatusOr<Issued> Issue(absl::string_view subject, const Issued* issuer, long serial,
                             std::initializer_list<std::pair<int, const char*>> extensions) {
  Issued out;
  out.key.reset(EVP_EC_gen("P-256"));
  if (out.key == nullptr) return OpenSslError("EVP_EC_gen");
  out.cert.reset(X509_new());
  if (out.cert == nullptr) return OpenSslError("X509_new");
  X509* x = out.cert.get();
  X509_set_version(x, 2);  // v3
  ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 24 * 3600);
  X509_NAME* name = X509_get_subject_name(x);
  // subject is a comma list of TYPE=value pairs.
  absl::string_view rest = subject;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    absl::string_view part = rest.substr(0, comma);
    rest = comma == absl::string_view::npos ? "" : rest.substr(comma + 1);
    size_t eq = part.find('=');
    std::string field(part.substr(0, eq)), value(part.substr(eq + 1));
    if (X509_NAME_add_entry_by_txt(name, field.c_str(), MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
                                   0) != 1) {
      return OpenSslError(absl::StrCat("subject ", part));
    }
  }
  X509* issuer_cert = issuer == nullptr ? x : issuer->cert.get();
  EVP_PKEY* issuer_key = issuer == nullptr ? out.key.get() : issuer->key.get();
  X509_set_issuer_name(x, X509_get_subject_name(issuer_cert));
  X509_set_pubkey(x, out.key.get());
  TRIMARAN_RETURN_IF_ERROR(AddExt(x, issuer_cert, NID_subject_key_identifier, "hash"));
  if (issuer != nullptr) {
    TRIMARAN_RETURN_IF_ERROR(AddExt(x, issuer_cert, NID_authority_key_identifier, "keyid:always"));
  }
  for (const auto& [nid, value] : extensions) {
    TRIMARAN_RETURN_IF_ERROR(AddExt(x, issuer_cert, nid, value));
  }
  if (X509_sign(x, issuer_key, EVP_sha256()) == 0) return OpenSslError("X509_sign");
  return out;
}

absl::Status WriteFile(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << data;
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

absl::StatusOr<CertAndKey> Export(const Issued& issued, const std::string& dir,
                                  absl::string_view stem) {
  CertAndKey out;
  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  BioPtr key_bio(BIO_new(BIO_s_mem()));
  if (cert_bio == nullptr || key_bio == nullptr) return OpenSslError("BIO_new");
  if (PEM_write_bio_X509(cert_bio.get(), issued.cert.get()) != 1) {
    return OpenSslError("PEM_write_bio_X509");
  }
  if (PEM_write_bio_PrivateKey(key_bio.get(), issued.key.get(), nullptr, nullptr, 0, nullptr,
                               nullptr) != 1) {
    return OpenSslError("PEM_write_bio_PrivateKey");
  }
  TRIMARAN_ASSIGN_OR_RETURN(out.cert_pem, BioString(cert_bio.get()));
  TRIMARAN_ASSIGN_OR_RETURN(out.key_pem, BioString(key_bio.get()));
  out.cert_file = absl::StrCat(dir, "/", stem, ".crt");
  out.key_file = absl::StrCat(dir, "/", stem, ".key");
  TRIMARAN_RETURN_IF_ERROR(WriteFile(out.cert_file, out.cert_pem));
  TRIMARAN_RETURN_IF_ERROR(WriteFile(out.key_file, out.key_pem));
  return out;
}

}  // namespace

absl::StatusOr<TestPki> MakeTestPki(const std::string& dir) {
  TRIMARAN_ASSIGN_OR_RETURN(
      Issued ca, Issue("CN=trimaran-test-ca", nullptr, 1,
                       {{NID_basic_constraints, "critical,CA:TRUE"},
                        {NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"}}));
  TRIMARAN_ASSIGN_OR_RETURN(
      Issued server,
      Issue("CN=trimaran-test-server", &ca, 2,
            {{NID_basic_constraints, "critical,CA:FALSE"},
             {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
             {NID_ext_key_usage, "serverAuth"},
             {NID_subject_alt_name, "IP:127.0.0.1,IP:::1,DNS:localhost,DNS:server.test"}}));
  TRIMARAN_ASSIGN_OR_RETURN(Issued client, Issue("CN=test-client,O=trimaran", &ca, 3,
                                                 {{NID_basic_constraints, "critical,CA:FALSE"},
                                                  {NID_key_usage, "critical,digitalSignature"},
                                                  {NID_ext_key_usage, "clientAuth"}}));
  TRIMARAN_ASSIGN_OR_RETURN(
      Issued other_ca, Issue("CN=trimaran-other-ca", nullptr, 4,
                             {{NID_basic_constraints, "critical,CA:TRUE"},
                              {NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature"}}));
  TestPki pki;
  TRIMARAN_ASSIGN_OR_RETURN(pki.ca, Export(ca, dir, "ca"));
  TRIMARAN_ASSIGN_OR_RETURN(pki.server, Export(server, dir, "server"));
  TRIMARAN_ASSIGN_OR_RETURN(pki.client, Export(client, dir, "client"));
  TRIMARAN_ASSIGN_OR_RETURN(pki.other_ca, Export(other_ca, dir, "other-ca"));
  return pki;
}

}  // namespace trimaran::http::testing
