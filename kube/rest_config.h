#pragma once
// RestConfig: where the apiserver is and how to authenticate to it, plus the loaders
// that build one the way client-go and kube-scheduler do:
//
//   LoadInClusterConfig()  the pod's service account (KUBERNETES_SERVICE_HOST/PORT, the
//                          projected token and CA under /var/run/secrets/...)
//   LoadKubeconfig()       one kubeconfig file (current-context or a named context)
//   ParseKubeconfig()      the same from text (tests, embedded configs)
//   LoadRestConfig()       the resolution order of the --kubeconfig/--master flags:
//                            1. --kubeconfig, if given;
//                            2. else $KUBECONFIG: the FIRST listed file that exists.
//                               client-go merges every listed file; we do not (a
//                               merged view is rarely what a daemon wants, and the
//                               file that supplied each field would be ambiguous). A
//                               KUBECONFIG naming no existing file is an error;
//                            3. else the in-cluster config, when KUBERNETES_SERVICE_HOST
//                               is set (skipped when a --context is given, which only
//                               makes sense with a kubeconfig);
//                            4. else ~/.kube/config, if it exists;
//                            5. else, with only --master, that URL without credentials.
//                          --master replaces the server of whatever was loaded. This is
//                          controller-runtime's GetConfig order; the error when nothing
//                          is found lists every place that was tried.
//
// Kubeconfig support (a client-go subset; anything else that would change how we
// authenticate is rejected with an error, never silently ignored):
//   cluster: server, certificate-authority, certificate-authority-data,
//            insecure-skip-tls-verify, tls-server-name (proxy-url is rejected;
//            disable-compression and extensions are ignored, so the
//            client.authentication.k8s.io/exec extension is not passed to plugins);
//   context: cluster, user, namespace (only trimaranctl reads it: the default namespace of
//            the pod it is given, as kubectl; the scheduler is cluster-scoped);
//   user:    token, tokenFile, client-certificate(-data), client-key(-data), exec
//            (client.authentication.k8s.io/v1 and v1beta1). auth-provider (gcp, azure,
//            oidc), username/password and impersonation (as, as-groups, ...) are
//            rejected with a hint.
//   Relative file paths (certificate-authority, client-certificate, client-key,
//   tokenFile, and an exec command containing '/') are resolved against the directory
//   of the kubeconfig, as client-go does. Referenced files must be readable at load
//   time, so a typo fails at startup, naming the field.
//   Only the selected context, its cluster and its user are validated. A server without
//   a scheme gets https:// when any TLS setting is present and http:// otherwise (as
//   client-go does); trailing slashes are removed.
// Errors name the file and the field path:
//   kubeconfig /x/config: context "prod" not found (available: dev, staging)
//   kubeconfig /x/config: users[0].user.client-certificate-data: invalid base64
//
// Error codes: NotFound when a file to load does not exist; FailedPrecondition when
// not running in a cluster; InvalidArgument for every problem in the content. All of
// them are startup errors: the caller reports them and exits.
//
// Thread-safety: the loaders are reentrant (they read files and, unless options
// override it, the process environment). RestConfig is a plain value.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/http/transport.h"

namespace trimaran::kube {

// API versions of the ExecCredential exchanged with a credential plugin.
inline constexpr absl::string_view kExecApiV1 = "client.authentication.k8s.io/v1";
inline constexpr absl::string_view kExecApiV1beta1 = "client.authentication.k8s.io/v1beta1";

// Whether a credential plugin may prompt the user. We never give a plugin a terminal
// (the scheduler is a daemon), so kAlways cannot be satisfied and is rejected when the
// credential source is created; kNever and kIfAvailable both run non-interactively.
enum class ExecInteractiveMode { kNever, kIfAvailable, kAlways };

struct ExecEnvVar {
  std::string name;
  std::string value;

  friend bool operator==(const ExecEnvVar&, const ExecEnvVar&) = default;
};

// kubeconfig users[].user.exec.
struct ExecConfig {
  std::string api_version;  // kExecApiV1 or kExecApiV1beta1
  std::string command;      // PATH-based, or an absolute path
  std::vector<std::string> args;
  std::vector<ExecEnvVar> env;        // added to our environment for the plugin
  std::string install_hint;           // shown when `command` is not found
  bool provide_cluster_info = false;  // put the cluster in KUBERNETES_EXEC_INFO
  // kubeconfig default: required for v1, kIfAvailable for v1beta1.
  ExecInteractiveMode interactive_mode = ExecInteractiveMode::kIfAvailable;

  friend bool operator==(const ExecConfig&, const ExecConfig&) = default;
};

struct RestConfig {
  std::string server;  // "https://host:port" (may carry a path prefix), no trailing slash
  http::TlsOptions tls;
  // Credentials. bearer_token_file wins over bearer_token when both are set (the
  // static token is then only the fallback while the file cannot be read); a token or
  // a client certificate in `tls` wins over `exec` (client-go's precedence).
  // See MakeCredentialSource in kube/credentials.h.
  std::string bearer_token;
  std::string bearer_token_file;  // re-read as it rotates
  std::optional<ExecConfig> exec;
  double qps = 50;
  int burst = 100;
  std::string user_agent = "trimaran";
  // For messages: "kubeconfig /path (context ctx)" or "in-cluster".
  std::string source;
  // The kubeconfig context's namespace ("" when it sets none, and in-cluster).
  std::string context_namespace;

  friend bool operator==(const RestConfig&, const RestConfig&) = default;
};

// Looks up an environment variable; std::nullopt when it is unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment (std::getenv).
std::optional<std::string> GetProcessEnv(const std::string& name);

inline constexpr char kInClusterTokenFile[] = "/var/run/secrets/kubernetes.io/serviceaccount/token";
inline constexpr char kInClusterCaFile[] = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";

struct InClusterOptions {
  std::string token_file = kInClusterTokenFile;
  std::string ca_file = kInClusterCaFile;
  EnvLookup getenv;  // null: the process environment
};

// The service-account config of a pod: server https://$KUBERNETES_SERVICE_HOST:
// $KUBERNETES_SERVICE_PORT (an IPv6 host is bracketed), the token as bearer_token_file
// (so rotation is picked up) and the CA file. The token must be readable now.
// FailedPrecondition "not running in a cluster: KUBERNETES_SERVICE_HOST is unset"
// when the variables are missing.
absl::StatusOr<RestConfig> LoadInClusterConfig(const InClusterOptions& options = {});

// Builds a RestConfig from kubeconfig text. Relative paths resolve against `base_dir`.
// `context_override` (the --context flag) replaces current-context when not empty.
// `source` is "kubeconfig (context ctx)"; LoadKubeconfig puts the path in.
absl::StatusOr<RestConfig> ParseKubeconfig(absl::string_view yaml_text, absl::string_view base_dir,
                                           absl::string_view context_override = "");

// Reads and parses the kubeconfig file at `path`.
absl::StatusOr<RestConfig> LoadKubeconfig(absl::string_view path,
                                          absl::string_view context_override = "");

struct LoadOptions {
  std::string kubeconfig_path;  // --kubeconfig
  std::string context;          // --context
  std::string master_override;  // --master: replaces the server
  // Reads KUBECONFIG, HOME and (unless in_cluster.getenv is set) the in-cluster
  // variables. Null: the process environment.
  EnvLookup getenv;
  InClusterOptions in_cluster;
};

// Resolves the config as described at the top of this file.
absl::StatusOr<RestConfig> LoadRestConfig(const LoadOptions& options);

}  // namespace trimaran::kube
