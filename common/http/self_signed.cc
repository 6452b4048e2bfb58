#include "common/http/self_signed.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/read_file.h"
#include "common/status_macros.h"

namespace trimaran::http {
namespace {

struct Deleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter>;
using CertPtr = std::unique_ptr<X509, Deleter>;
using BioPtr = std::unique_ptr<BIO, Deleter>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter>;
using BnPtr = std::unique_ptr<BIGNUM, Deleter>;

absl::Status OpenSslError(absl::string_view what) {
  return absl::InternalError(absl::StrCat("openssl: ", what));
}

bool IsIp(const std::string& host) {
  unsigned char buf[16];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

absl::Status AddExt(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (ext == nullptr || X509_add_ext(cert, ext.get(), -1) != 1) {
    return OpenSslError(absl::StrCat("extension ", OBJ_nid2sn(nid), "=", value));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> BioString(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  if (len < 0) return OpenSslError("BIO_get_mem_data");
  return std::string(data, static_cast<size_t>(len));
}

absl::Time Now(const SelfSignedOptions& options) {
  return options.now == absl::InfinitePast() ? absl::Now() : options.now;
}

// Writes `data` to `path` through a temporary file and a rename.
absl::Status WriteFileAtomically(const std::string& path, const std::string& data, mode_t mode) {
  const std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  // Created with `mode` from the start, so the key is never readable by others.
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  FILE* f = fd < 0 ? nullptr : fdopen(fd, "wb");
  if (f == nullptr) {
    const std::string reason = std::strerror(errno);
    if (fd >= 0) close(fd);
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", tmp, ": ", reason));
  }
  bool ok = fchmod(fd, mode) == 0;  // open's mode is masked by the umask
  ok = std::fwrite(data.data(), 1, data.size(), f) == data.size() && ok;
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", path, ": ", reason));
  }
  return absl::OkStatus();
}

absl::Status MakeDirs(const std::string& dir) {
  std::string path;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    path = dir.substr(0, pos);
    if (path.empty()) continue;
    if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot create directory ", path, ": ", std::strerror(errno)));
    }
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(dir, " is not a directory"));
  }
  return absl::OkStatus();
}

// True when the PEM pair parses, matches, is valid at `now` for `min_remaining` more
// and covers every host.
bool ExistingPairUsable(const std::string& cert_pem, const std::string& key_pem,
                        const std::vector<std::string>& hosts, absl::Time now,
                        absl::Duration min_remaining) {
  BioPtr cert_bio(BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())));
  BioPtr key_bio(BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())));
  if (cert_bio == nullptr || key_bio == nullptr) return false;
  CertPtr cert(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  KeyPtr key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (cert == nullptr || key == nullptr) return false;
  if (X509_check_private_key(cert.get(), key.get()) != 1) return false;
  time_t t_now = absl::ToTimeT(now);
  time_t t_end = absl::ToTimeT(now + min_remaining);
  if (X509_cmp_time(X509_get0_notBefore(cert.get()), &t_now) > 0) return false;
  if (X509_cmp_time(X509_get0_notAfter(cert.get()), &t_end) <= 0) return false;
  for (const std::string& host : hosts) {
    const int covered = IsIp(host) ? X509_check_ip_asc(cert.get(), host.c_str(), 0)
                                   : X509_check_host(cert.get(), host.c_str(), host.size(),
                                                     X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, nullptr);
    if (covered != 1) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> DefaultServingHosts() {
  std::vector<std::string> hosts = {"localhost", "127.0.0.1"};
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0' &&
      std::string(name) != "localhost") {
    hosts.emplace_back(name);
  }
  return hosts;
}

absl::StatusOr<ServingCertPem> GenerateSelfSignedCert(const SelfSignedOptions& options) {
  const std::vector<std::string> hosts =
      options.hosts.empty() ? DefaultServingHosts() : options.hosts;
  for (const std::string& h : hosts) {
    if (h.empty()) return absl::InvalidArgumentError("self-signed certificate: empty host name");
  }
  if (options.validity <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("self-signed certificate: validity must be positive");
  }
  const absl::Time now = Now(options);

  KeyPtr key(EVP_EC_gen("P-256"));
  if (key == nullptr) return OpenSslError("EVP_EC_gen");
  CertPtr cert(X509_new());
  if (cert == nullptr) return OpenSslError("X509_new");
  X509* x = cert.get();
  if (X509_set_version(x, 2) != 1) return OpenSslError("X509_set_version");  // v3
  // A random positive 127-bit serial.
  BnPtr serial(BN_new());
  if (serial == nullptr || BN_rand(serial.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(x)) == nullptr) {
    return OpenSslError("serial number");
  }
  time_t t_now = absl::ToTimeT(now);
  if (X509_time_adj_ex(X509_getm_notBefore(x), 0, -3600, &t_now) == nullptr ||
      X509_time_adj_ex(X509_getm_notAfter(x), 0,
                       static_cast<long>(absl::ToInt64Seconds(options.validity)),
                       &t_now) == nullptr) {
    return OpenSslError("validity");
  }
  const std::string cn = absl::StrCat(hosts[0], "@", absl::ToUnixSeconds(now));
  X509_NAME* name = X509_get_subject_name(x);
  if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                 0) != 1 ||
      X509_set_issuer_name(x, name) != 1) {
    return OpenSslError("subject");
  }
  if (X509_set_pubkey(x, key.get()) != 1) return OpenSslError("X509_set_pubkey");
  std::vector<std::string> sans;
  for (const std::string& h : hosts) sans.push_back(absl::StrCat(IsIp(h) ? "IP:" : "DNS:", h));
  TRIMARAN_RETURN_IF_ERROR(AddExt(x, NID_basic_constraints, "critical,CA:TRUE"));
  TRIMARAN_RETURN_IF_ERROR(
      AddExt(x, NID_key_usage, "critical,digitalSignature,keyEncipherment,keyCertSign"));
  TRIMARAN_RETURN_IF_ERROR(AddExt(x, NID_ext_key_usage, "serverAuth"));
  TRIMARAN_RETURN_IF_ERROR(AddExt(x, NID_subject_key_identifier, "hash"));
  TRIMARAN_RETURN_IF_ERROR(AddExt(x, NID_subject_alt_name, absl::StrJoin(sans, ",")));
  if (X509_sign(x, key.get(), EVP_sha256()) == 0) return OpenSslError("X509_sign");

  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  BioPtr key_bio(BIO_new(BIO_s_mem()));
  if (cert_bio == nullptr || key_bio == nullptr) return OpenSslError("BIO_new");
  if (PEM_write_bio_X509(cert_bio.get(), x) != 1) return OpenSslError("PEM_write_bio_X509");
  if (PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
      1) {
    return OpenSslError("PEM_write_bio_PrivateKey");
  }
  ServingCertPem out;
  TRIMARAN_ASSIGN_OR_RETURN(out.cert_pem, BioString(cert_bio.get()));
  TRIMARAN_ASSIGN_OR_RETURN(out.key_pem, BioString(key_bio.get()));
  return out;
}

absl::StatusOr<ServingCertFiles> EnsureSelfSignedCert(const std::string& dir,
                                                      const SelfSignedOptions& options) {
  if (dir.empty()) return absl::InvalidArgumentError("self-signed certificate: empty directory");
  if (options.file_stem.empty() || options.file_stem.find('/') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("self-signed certificate: bad file stem \"", options.file_stem, "\""));
  }
  TRIMARAN_RETURN_IF_ERROR(MakeDirs(dir));
  ServingCertFiles files;
  files.cert_file = absl::StrCat(dir, "/", options.file_stem, ".crt");
  files.key_file = absl::StrCat(dir, "/", options.file_stem, ".key");
  const std::vector<std::string> hosts =
      options.hosts.empty() ? DefaultServingHosts() : options.hosts;

  absl::StatusOr<std::string> cert_pem = ReadFileToString(files.cert_file);
  absl::StatusOr<std::string> key_pem = ReadFileToString(files.key_file);
  if (cert_pem.ok() && key_pem.ok() &&
      ExistingPairUsable(*cert_pem, *key_pem, hosts, Now(options), options.min_remaining)) {
    files.generated = false;
    return files;
  }
  SelfSignedOptions generate = options;
  generate.hosts = hosts;
  TRIMARAN_ASSIGN_OR_RETURN(ServingCertPem pem, GenerateSelfSignedCert(generate));
  // The key first: a reader that sees the new certificate then finds its key.
  TRIMARAN_RETURN_IF_ERROR(WriteFileAtomically(files.key_file, pem.key_pem, 0600));
  TRIMARAN_RETURN_IF_ERROR(WriteFileAtomically(files.cert_file, pem.cert_pem, 0644));
  files.generated = true;
  return files;
}

}  // namespace trimaran::http
