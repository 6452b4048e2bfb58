#pragma once
// Configuration of the load-watcher daemon: paypal/load-watcher's environment
// variables plus equivalent flags (flags win), and its --help text.
//
//   variable                    flag                          default
//   METRICS_PROVIDER_NAME       --metrics-provider-name       KubernetesMetricsServer
//   METRICS_PROVIDER_ADDRESS    --metrics-provider-address    (provider's default)
//   METRICS_PROVIDER_TOKEN      --metrics-provider-token      ""  (the flag: deprecated)
//   INSECURE_SKIP_VERIFY        --insecure-skip-verify        false
//   METRICS_PROVIDER_TOKEN_FILE --metrics-provider-token-file ""  (re-read every fetch)
//   METRICS_PROVIDER_CA_FILE    --metrics-provider-ca-file    ""  (system CAs)
//   METRICS_PROVIDER_CERT_FILE  --metrics-provider-cert-file  ""  (mutual TLS, with
//   METRICS_PROVIDER_KEY_FILE   --metrics-provider-key-file   ""   the key)
//   METRICS_PROVIDER_HEADERS    --metrics-provider-headers    ""  Name=Value,Name2=Value2
//   (each provider's own: PROMETHEUS_*, SIGNALFX_*; see providers/*/descriptor.h)
//   KUBE_CONFIG                 --kubeconfig                  in-cluster config
//                               --bind-address                127.0.0.1 (REST and gRPC;
//                                                             others need --token-file)
//                               --tls-cert-file               ""  serve HTTPS and TLS gRPC
//                               --tls-private-key-file        ""  (both or neither)
//                               --tls-reload-interval         10s (gRPC's re-read period)
//                               --token-file                  ""  require this bearer token
//                               --port                        2020 (REST, /metrics, /healthz)
//                               --grpc-port                   2021 (0 disables gRPC)
//                               --fetch-interval              60s
//                               --history-size                1 snapshot per window
//                               --v                           0
//                               --dashboard                   false (the node dashboard at
//                                                             /dashboard/ on the REST port)
//   LOAD_WATCHER_DASHBOARD_ALLOWED_HOSTS --dashboard-allowed-hosts ""  (its extra Host names)
//                               --help, -h / --version
//
// Syntax: `--flag=value` or `--flag value`; a bare boolean flag means true. Durations
// are Go duration strings ("30s", "1m30s"). Booleans (flags and INSECURE_SKIP_VERIFY)
// accept 1/t/true/0/f/false in any case; an empty variable is unset.
// Every problem (unknown flag, missing value, bad value, stray argument, unknown
// provider) is collected; ParseLoadWatcherOptions returns one InvalidArgument listing
// them one per line, each naming the flag or variable. Exiting 1 is main's job.
//
// Differences from upstream (deliberate): an unknown METRICS_PROVIDER_NAME is an error
// (upstream silently uses metrics-server); INSECURE_SKIP_VERIFY that is not a boolean is
// an error (upstream: anything but "true" is false).
//
// Thread-safety: pure functions over plain values.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "loadwatcher/source_pool.h"
#include "providers/provider.h"

namespace trimaran::cmd {

inline constexpr int kDefaultWatcherPort = 2020;
inline constexpr int kDefaultWatcherGrpcPort = 2021;

struct LoadWatcherOptions {
  lw::ProviderSpec provider{};  // type is canonical ("KubernetesMetricsServer" if unset)
  // What the providers' own flags set besides the spec (SIGNALFX_*; each provider's
  // flags are declared in its folder, providers/*/descriptor.h).
  providers::ProviderExtras provider_extras{};
  std::string kubeconfig{};  // empty: in-cluster (when running in a pod)

  // 127.0.0.1: this host only, for local use. Any other address needs token_file
  // (ParseLoadWatcherOptions refuses it without one); the shipped manifests give both.
  std::string bind_address = "127.0.0.1";
  // TLS for REST and gRPC (PEM files, re-read when they change); both or neither.
  std::string tls_cert_file{};
  std::string tls_private_key_file{};
  // How often gRPC's certificate watcher re-reads the files (REST checks them at every
  // handshake). Whole seconds, at least 1s.
  absl::Duration tls_reload_interval = absl::Seconds(10);
  // When set: every API call except /healthz, /readyz, /livez needs this bearer token.
  std::string token_file{};
  int port = kDefaultWatcherPort;
  int grpc_port = kDefaultWatcherGrpcPort;  // 0: no gRPC server
  absl::Duration fetch_interval = absl::Seconds(60);
  // Upstream keeps 5 snapshots per window but only ever serves the newest (so do our
  // REST and gRPC APIs); the daemon keeps 1 by default to stay small.
  int history_size = 1;
  int verbosity = 0;
  std::string logging_format = "text";  // --logging-format text|json

  bool help = false;
  bool version = false;
  // --dashboard: serve the node dashboard (dashboard/web/service.h) at
  // /dashboard/ on the REST port; needs the kube client and list/watch on nodes and pods.
  bool dashboard = false;
  // --dashboard-allowed-hosts: Host names the dashboard answers to besides localhost,
  // IP literals and the bind address (dashboard/web/guard.h).
  std::vector<std::string> dashboard_allowed_hosts{};

  // Warnings for main to log (a deprecated flag was used).
  std::vector<std::string> warnings{};
};

// Reads an environment variable; nullopt when unset.
using EnvGetter = std::function<std::optional<std::string>(const std::string& name)>;

// The process environment.
std::optional<std::string> ProcessEnv(const std::string& name);

// Parses argv[1..argc) over the environment `env`. InvalidArgument listing every problem.
absl::StatusOr<LoadWatcherOptions> ParseLoadWatcherOptions(int argc, const char* const* argv,
                                                           const EnvGetter& env);

std::string LoadWatcherHelpText();

}  // namespace trimaran::cmd
