#pragma once
// A real Kubernetes control plane for e2e tests: etcd 3.6 + kube-apiserver of a tested
// minor (1.37 unless TRIMARAN_K8S_MINOR says 1.32) on 127.0.0.1 with ports chosen at run
// time.
//
// Binaries come from $TRIMARAN_K8S_ASSETS_<minor> (e.g. TRIMARAN_K8S_ASSETS_1_32), else,
// for the newest minor, $TRIMARAN_K8S_ASSETS or $KUBEBUILDER_ASSETS, else
// `tools/build-k8s.sh <minor>` (which builds them from the Go modules once per machine
// and caches them). Start() logs the server's /version and fails unless it is the
// gitVersion in the assets' VERSION file.
// Authentication is a static bearer token of a system:masters user; TLS is verified
// against the apiserver's own self-signed serving certificate (never skipped).
// Everything lives in a fresh temporary directory, removed by the destructor; the
// processes die with the test process (see Subprocess).
//
// Thread-safety: externally synchronized, except Request(), which is safe for
// concurrent use.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http/curl_transport.h"
#include "common/http/transport.h"
#include "tests/e2e/harness/subprocess.h"

namespace trimaran::e2e {

// The newest tested minor, the default control plane.
inline constexpr char kNewestK8sMinor[] = "1.37";

// The minor this process tests against: $TRIMARAN_K8S_MINOR, else kNewestK8sMinor.
std::string K8sMinor();

// Where kube-apiserver, kube-scheduler and etcd live (see the file comment).
absl::StatusOr<std::string> K8sAssetsDir();

// The gitVersion the binaries in `assets` were built as (their VERSION file).
absl::StatusOr<std::string> ExpectedK8sVersion(const std::string& assets);

struct ControlPlaneOptions {
  // kube-apiserver's watch cache. Off, watches read etcd directly, so an etcd
  // compaction turns an old resourceVersion into 410 Gone at once.
  bool watch_cache = true;
  // Appended to kube-apiserver's command line (e.g. "--feature-gates=...").
  std::vector<std::string> extra_apiserver_flags;
};

class ControlPlane {
 public:
  static absl::StatusOr<std::unique_ptr<ControlPlane>> Start(ControlPlaneOptions options = {});
  ~ControlPlane();

  const std::string& server() const { return server_; }  // https://127.0.0.1:PORT
  const std::string& token() const { return token_; }
  const std::string& ca_file() const { return ca_file_; }
  const std::string& dir() const { return dir_; }
  const std::string& assets() const { return assets_; }
  std::string etcd_url() const { return etcd_url_; }
  // The apiserver's /version gitVersion, e.g. "v1.37.2".
  const std::string& server_version() const { return server_version_; }

  // Writes a kubeconfig for the admin user (token + CA file) and returns its path.
  absl::StatusOr<std::string> WriteKubeconfig(const std::string& name = "admin") const;
  // The same admin kubeconfig for another endpoint in front of the apiserver (a
  // FaultProxy): `server` and the CA file that verifies it.
  absl::StatusOr<std::string> WriteKubeconfigFor(const std::string& name, const std::string& server,
                                                 const std::string& ca_file) const;
  // Adds a token-file user (token, name, groups) for RBAC tests; restarts nothing:
  // call before Start of the consumer. Returns the token. Requires an apiserver restart
  // to take effect, which this does.
  absl::StatusOr<std::string> AddTokenUser(const std::string& user, const std::string& groups);

  // Stops (SIGKILL) / starts kube-apiserver on the same port, waiting until ready.
  void KillApiserver();
  absl::Status StartApiserver();

  // Compacts etcd at its current revision (old resourceVersions become 410 Gone).
  absl::StatusOr<int64_t> CompactEtcd();

  // An authenticated request to the apiserver (path like "/api/v1/nodes").
  absl::StatusOr<http::HttpResponse> Request(
      const std::string& method, const std::string& path, const std::string& body = "",
      const std::string& content_type = "application/json") const;

  std::string ApiserverLogTail() const;

 private:
  ControlPlane() = default;
  absl::Status StartEtcd();
  absl::Status WaitReady(absl::Duration timeout);
  absl::Status CheckServerVersion();

  ControlPlaneOptions options_;
  std::string assets_;
  std::string dir_;
  std::string server_;
  std::string token_;
  std::string ca_file_;
  std::string etcd_url_;
  std::string server_version_;
  int apiserver_port_ = 0;
  std::string tokens_csv_;
  std::unique_ptr<Subprocess> etcd_;
  std::unique_ptr<Subprocess> apiserver_;
  std::unique_ptr<http::CurlTransport> transport_;
};

}  // namespace trimaran::e2e
