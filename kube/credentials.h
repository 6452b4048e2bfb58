#pragma once
// CredentialSource: what the REST client asks, before each request, for the bearer
// token and/or client certificate to present to the apiserver. The source hides how
// they are obtained and refreshed:
//
//   StaticCredentialSource      a fixed token (or nothing: TLS client certs or no auth)
//   TokenFileCredentialSource   a token file that rotates (the projected service-account
//                               token, kubeconfig tokenFile): re-read when the file's
//                               identity (mtime, size, inode) changes, and at least
//                               once a minute
//   ExecCredentialSource        an exec credential plugin (`aws eks get-token`,
//                               `gke-gcloud-auth-plugin`, `kubelogin`), cached until
//                               shortly before the expirationTimestamp it reports
//
// MakeCredentialSource(config, clock) picks one from a RestConfig with client-go's
// precedence: token file (with the static token as fallback) > static token > exec
// (only when no static token and no client certificate is configured, as client-go
// ignores exec then) > nothing.
//
// Protocol with the REST client: call Get() before a request; when the apiserver
// answers 401, call Invalidate() and retry once: the next Get() re-reads the file or
// re-runs the plugin instead of returning the cached credentials.
//
// Errors from Get() and what the caller should do:
//   Unavailable        transient (token file unreadable, plugin exited non-zero):
//                      retry with backoff
//   DeadlineExceeded   the plugin timed out: retry with backoff
//   FailedPrecondition the plugin is missing, misconfigured or speaks another
//                      apiVersion: an operator must act; retrying will not help
// Every message names the file or plugin command; plugin errors carry the exit code
// and the tail of the plugin's stderr, and the installHint when it is not installed.
//
// Time comes from the Clock, so expiry and re-read intervals are testable with
// FakeClock. The process runner is a seam (ExecCredentialOptions::runner).
//
// Thread-safety: every CredentialSource is safe for concurrent use. Get() of the exec
// source holds its lock while the plugin runs, so concurrent callers wait for one run
// instead of starting several. The Clock must outlive the source.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/subprocess.h"
#include "kube/rest_config.h"

namespace trimaran::kube {

struct Credentials {
  std::string bearer_token;  // sent as "Authorization: Bearer <token>" when not empty
  // PEM client certificate and key from an exec plugin (a kubeconfig's static client
  // certificate stays in RestConfig::tls). Either both or neither are set.
  std::string client_cert_pem;
  std::string client_key_pem;

  friend bool operator==(const Credentials&, const Credentials&) = default;
};

class CredentialSource {
 public:
  virtual ~CredentialSource() = default;

  // The credentials to use for the next request (possibly cached).
  virtual absl::StatusOr<Credentials> Get() = 0;

  // The apiserver rejected the current credentials (401): the next Get() must fetch
  // fresh ones.
  virtual void Invalidate() = 0;
};

using CredentialSourcePtr = std::unique_ptr<CredentialSource>;

// Always returns the same credentials (possibly empty). Invalidate does nothing.
class StaticCredentialSource final : public CredentialSource {
 public:
  explicit StaticCredentialSource(Credentials credentials) : credentials_(std::move(credentials)) {}

  absl::StatusOr<Credentials> Get() override { return credentials_; }
  void Invalidate() override {}

 private:
  const Credentials credentials_;
};

// A bearer token read from a file (surrounding whitespace trimmed). Re-read when the
// file's mtime, size or inode changes (one stat per Get), when kMaxTokenAge has passed
// since the last read, and after Invalidate. If a re-read fails while a token is
// cached and not invalidated, the cached token is returned (logged); otherwise
// `fallback_token` (kubeconfig `token` next to `tokenFile`) if set, else Unavailable.
class TokenFileCredentialSource final : public CredentialSource {
 public:
  static constexpr absl::Duration kMaxTokenAge = absl::Minutes(1);

  TokenFileCredentialSource(std::string path, const Clock& clock, std::string fallback_token = "");
  TokenFileCredentialSource(const TokenFileCredentialSource&) = delete;
  TokenFileCredentialSource& operator=(const TokenFileCredentialSource&) = delete;

  absl::StatusOr<Credentials> Get() override;
  void Invalidate() override;

 private:
  // What identifies one version of the file.
  struct FileIdentity {
    int64_t mtime_ns = -1;
    int64_t size = -1;
    uint64_t inode = 0;
    friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
  };

  absl::StatusOr<Credentials> GetLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string path_;
  const Clock& clock_;
  const std::string fallback_token_;

  absl::Mutex mu_;
  std::string token_ ABSL_GUARDED_BY(mu_);  // empty: nothing cached
  FileIdentity identity_ ABSL_GUARDED_BY(mu_);
  absl::Time read_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  bool invalidated_ ABSL_GUARDED_BY(mu_) = false;
  bool warned_ ABSL_GUARDED_BY(mu_) = false;  // a stale-token warning was logged
};

// Runs one process (RunSubprocess in production).
using ProcessRunner = std::function<absl::StatusOr<SubprocessResult>(const SubprocessSpec&)>;

struct ExecCredentialOptions {
  ProcessRunner runner;  // null: RunSubprocess
  absl::Duration timeout = absl::Seconds(60);
};

// Runs an exec credential plugin (client.authentication.k8s.io/v1 or v1beta1).
//
// The plugin gets our environment plus the ExecConfig env and KUBERNETES_EXEC_INFO
// (an ExecCredential with spec.interactive=false and, with provideClusterInfo,
// spec.cluster: server, tls-server-name, insecure-skip-tls-verify,
// certificate-authority-data). Its stdout must be an ExecCredential of the configured
// apiVersion with status.token and/or status.clientCertificateData + clientKeyData;
// its stderr goes to our log (component kube).
//
// Caching: without status.expirationTimestamp the credentials are kept until
// Invalidate. With one, they are refreshed early, at
//   expiry - min(kMaxRefreshMargin, 10% of the lifetime left when they were fetched),
// and if that early refresh fails while the old credentials have not yet expired, the
// old ones are returned (and the failure logged).
class ExecCredentialSource final : public CredentialSource {
 public:
  static constexpr absl::Duration kMaxRefreshMargin = absl::Seconds(30);

  // `config.exec` must be set. FailedPrecondition for interactiveMode Always (we never
  // have a terminal) and for an unsupported apiVersion; the error of reading
  // `config.tls.ca_file` when cluster info must carry the CA.
  static absl::StatusOr<std::unique_ptr<ExecCredentialSource>> Create(
      const RestConfig& config, const Clock& clock, ExecCredentialOptions options = {});

  ExecCredentialSource(const ExecCredentialSource&) = delete;
  ExecCredentialSource& operator=(const ExecCredentialSource&) = delete;

  absl::StatusOr<Credentials> Get() override;
  void Invalidate() override;

  // The KUBERNETES_EXEC_INFO value given to the plugin.
  const std::string& exec_info() const { return exec_info_; }

 private:
  ExecCredentialSource(ExecConfig exec, std::string exec_info, const Clock& clock,
                       ExecCredentialOptions options);

  struct Fetched {
    Credentials credentials;
    absl::Time expiry = absl::InfiniteFuture();
  };

  // Runs the plugin and decodes its output.
  absl::StatusOr<Fetched> Run() const;

  const ExecConfig exec_;
  const std::string exec_info_;
  const Clock& clock_;
  const ExecCredentialOptions options_;

  absl::Mutex mu_;
  std::optional<Credentials> cached_ ABSL_GUARDED_BY(mu_);
  absl::Time expiry_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  absl::Time refresh_at_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
};

// Decodes a plugin's stdout: an ExecCredential of `api_version`. Exposed for tests.
// FailedPrecondition naming what is wrong ("plugin returned apiVersion X, want Y",
// "status.expirationTimestamp: ...", "no token and no client certificate").
struct ExecCredentialStatus {
  Credentials credentials;
  std::optional<absl::Time> expiration;
};
absl::StatusOr<ExecCredentialStatus> ParseExecCredential(absl::string_view json,
                                                         absl::string_view api_version);

// Picks and creates the source for `config` (see the top of this file).
absl::StatusOr<CredentialSourcePtr> MakeCredentialSource(const RestConfig& config,
                                                         const Clock& clock,
                                                         ExecCredentialOptions exec_options = {});

}  // namespace trimaran::kube
