#pragma once
// Command-line options of trimaran-scheduler, parsed the way kube-scheduler (cobra +
// pflag) parses its own, and the matching --help text.
//
// Syntax (pflag's):
//   - `--flag=value` and `--flag value` for every non-boolean flag.
//   - Booleans: bare `--leader-elect` means true; `--leader-elect=false` sets false
//     (1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False). A boolean never consumes
//     the next argument, so `--leader-elect false` leaves a stray argument (an error).
//   - `-h` is the only short flag. `--` ends the flags. The scheduler takes no
//     positional arguments.
//   - Durations are Go duration strings ("15s", "1m30s", "500ms").
// Every problem (unknown flag, missing value, bad value, stray argument, inconsistent
// combination) is collected; ParseSchedulerFlags returns one InvalidArgument whose
// message lists them one per line, in argument order. Exiting 1 is main's job.
//
// Precedence (what ApplyFlagOverrides implements):
//   - Leader election: each --leader-elect* flag given on the command line overrides
//     the matching leaderElection field of the configuration, whether it came from
//     --config or from the defaults (as kube-scheduler's ApplyLeaderElectionTo). Flags
//     not given leave the configuration's value alone; the defaults shown by --help are
//     the configuration defaults.
//   - --kubeconfig, when given, overrides clientConnection.kubeconfig. NOTE: this also
//     applies with --config; upstream kube-scheduler ignores its deprecated --kubeconfig
//     when --config is given. We let the explicit flag win so that
//     `--config f --kubeconfig k` does what it says.
//   - --master overrides the API server address of the kubeconfig (applied by whoever
//     builds the REST config; it is not part of KubeSchedulerConfiguration).
//   - Serving (--bind-address, --secure-port, TLS, --cert-dir) is flags only, as
//     upstream (v1beta2's healthzBindAddress/metricsBindAddress are ignored).
//
// Thread-safety: pure functions over plain values; ApplyLogging sets process-wide log
// levels (call it once at startup).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/config/types.h"

namespace trimaran::cmd {

inline constexpr int kDefaultSecurePort = 10259;
// The largest answer accepted from a remote load watcher (watcherAddress), HTTP body or
// gRPC message (lw::kDefaultMaxResponseBytes).
inline constexpr int64_t kDefaultLoadWatcherMaxResponseBytes = int64_t{64} << 20;
inline constexpr char kDefaultBindAddress[] = "0.0.0.0";
// --decisions-capacity: the decision ring's size (scheduler/decisions/decision_ring.h).
inline constexpr int kDefaultDecisionsCapacity = 1000;
inline constexpr int kMaxDecisionsCapacity = 1000000;
// The extender's HTTPS port (--extender-port; docs/extender.md).
inline constexpr int kDefaultExtenderPort = 8888;

struct SchedulerOptions {
  // Misc.
  std::string config_file{};      // --config
  std::string master{};           // --master: overrides the kubeconfig's server
  std::string write_config_to{};  // --write-config-to: write the effective config and exit
  // --load-watcher-max-response-bytes: ProviderSourcePoolOptions::remote_max_response_bytes.
  int64_t load_watcher_max_response_bytes = kDefaultLoadWatcherMaxResponseBytes;
  // --decisions-capacity: recent decisions kept for /debug/decisions; 0 disables.
  int decisions_capacity = kDefaultDecisionsCapacity;
  // --tie-break random|lowest-name: how host selection picks among nodes still tied
  // after the exact tie-break (sched::SchedulerOptions::deterministic_tie_break).
  std::string tie_break = "random";

  // Deprecated upstream; see the precedence notes above.
  std::optional<std::string> kubeconfig{};  // --kubeconfig (set only when given)

  // Logging.
  int verbosity = 0;                    // --v
  std::string log_levels{};             // --log-levels "queue=debug,provider=trace" (validated)
  std::string logging_format = "text";  // --logging-format text|json (validated)

  // Leader election: engaged only when the flag was given.
  std::optional<bool> leader_elect{};
  std::optional<std::string> leader_elect_resource_lock{};
  std::optional<std::string> leader_elect_resource_name{};
  std::optional<std::string> leader_elect_resource_namespace{};
  std::optional<absl::Duration> leader_elect_lease_duration{};
  std::optional<absl::Duration> leader_elect_renew_deadline{};
  std::optional<absl::Duration> leader_elect_retry_period{};

  // Secure serving.
  std::string bind_address = kDefaultBindAddress;  // an IPv4 or IPv6 literal
  int secure_port = kDefaultSecurePort;            // 0: do not serve at all
  std::string tls_cert_file{};                     // both or neither (validated)
  std::string tls_private_key_file{};
  // Where the generated self-signed certificate goes when no --tls-cert-file is given;
  // empty means "a temporary directory" (main picks it).
  std::string cert_dir{};
  std::string tls_min_version{};  // "", VersionTLS12 or VersionTLS13 (validated)

  // Authentication and authorization of the secure port (TokenReview /
  // SubjectAccessReview). Empty kubeconfigs: the scheduler's own connection.
  std::string authentication_kubeconfig{};
  std::string authorization_kubeconfig{};
  std::vector<std::string> authorization_always_allow_paths = {"/healthz", "/readyz", "/livez"};

  // Extender mode (docs/extender.md): serve one profile over the scheduler extender
  // protocol for kube-scheduler instead of scheduling.
  bool extender = false;           // --extender
  std::string extender_profile{};  // "": the configuration's only profile
  std::string extender_bind_address = kDefaultBindAddress;
  int extender_port = kDefaultExtenderPort;     // 1..65535 (validated with --extender)
  std::string extender_tls_cert_file{};         // both or neither; neither: the secure
  std::string extender_tls_private_key_file{};  // port's pair (or its self-signed one)
  // Mutual TLS, required unless extender_allow_unauthenticated: clients present a
  // certificate of these CAs whose common name or a DNS name is in
  // extender_allowed_names (empty: any certificate of the CAs, as kube's
  // --requestheader-allowed-names).
  std::string extender_client_ca_file{};
  std::vector<std::string> extender_allowed_names{};
  bool extender_allow_unauthenticated = false;  // TLS without client certificates
  bool extender_bind = false;                   // serve /bind (needs mutual TLS)
  // /bind binds only pending pods of these schedulerNames (kube-scheduler's profiles).
  std::vector<std::string> extender_bind_scheduler_names = {"default-scheduler"};

  // Global.
  bool version = false;  // --version: print "trimaran-scheduler <version>" and exit 0
  bool help = false;     // --help / -h: print SchedulerHelpText() and exit 0
};

// Parses argv[1..argc) (argv[0] is the program). InvalidArgument listing every problem.
absl::StatusOr<SchedulerOptions> ParseSchedulerFlags(int argc, char** argv);

// The --help text, formatted like kube-scheduler's: a synopsis, "Usage:", then flag
// sections ("Misc flags:", "Secure serving flags:", ...); in each, flags sorted by name,
// each with its type, description and "(default ...)", wrapped at 100 columns.
std::string SchedulerHelpText();

// Applies the leader-election and kubeconfig flags onto `config` (see Precedence).
void ApplyFlagOverrides(const SchedulerOptions& options, sched::config::SchedulerConfig& config);

// Sets the klog verbosity (--v) and then the per-component levels (--log-levels), so an
// explicit component level wins over the one --v implies.
absl::Status ApplyLogging(const SchedulerOptions& options);

}  // namespace trimaran::cmd
