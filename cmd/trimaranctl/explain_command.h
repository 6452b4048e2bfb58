#pragma once
// `trimaranctl explain NAMESPACE/POD`: the real decision the scheduler made for a pod
// (docs/trimaranctl.md, "explain"). Reads the pod from the apiserver (kubeconfig, as the
// other commands) and the pod's decisions from the scheduler's authenticated
// /debug/decisions?pod=NAMESPACE/POD (scheduler/decisions/), and prints where the pod
// was bound (and whether spec.nodeName agrees), the best nodes with each Score plugin's
// weighted score, the fallbacks, the node counts and the time
// (scheduler/decisions/explain_format.h; the client: decisions_client.h there).
//
// The scheduler's secure port: --scheduler (default https://127.0.0.1:10259, so that
// `kubectl -n trimaran port-forward deploy/trimaran-scheduler 10259` works), with
// the bearer token of --token-file or else the kubeconfig's credentials (token, token
// file or exec plugin), and TLS verified against --scheduler-ca-file (or not at all with
// --insecure-skip-tls-verify; the default self-signed serving certificate needs one of
// the two).
//
// Every failure is one clear line on stderr and exit code 1: the pod does not exist, the
// scheduler is unreachable (with the port-forward hint), 401 (the token), 403 (the
// ClusterRole to bind: trimaran-scheduler-decisions-viewer), recording disabled, the
// pod has no decision in the ring (the ring's size; whether the pod is another
// scheduler's, judged from the profiles of the decisions the ring holds).
//
// Thread-safety: RunExplain uses only what it is given; RunExplainCommand builds its own
// clients.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/http/transport.h"
#include "kube/client.h"

namespace trimaran::cmd::trimaranctl {

inline constexpr char kDefaultSchedulerAddress[] = "https://127.0.0.1:10259";

struct ExplainFlags {
  std::string pod_namespace;
  std::string pod_name;
  std::string output = "table";  // table | json
  std::string scheduler = kDefaultSchedulerAddress;
  std::string token_file;
  std::string scheduler_ca_file;
  bool insecure_skip_tls_verify = false;
  std::string kubeconfig;
  std::string context;
  int verbosity = -1;
  bool help = false;
};

// InvalidArgument naming the bad argument.
absl::StatusOr<ExplainFlags> ParseExplainFlags(const std::vector<std::string>& args);

std::string ExplainHelpText();

// The command with its clients given (tests pass fakes): `token` is the bearer token for
// the scheduler ("" sends none). Returns the exit code.
int RunExplain(const ExplainFlags& flags, kube::Client& client, http::HttpTransport& transport,
               const std::string& token, std::string& out, std::string& err);

// `args` are the arguments after "explain".
int RunExplainCommand(const std::vector<std::string>& args, std::string& out, std::string& err);

}  // namespace trimaran::cmd::trimaranctl
