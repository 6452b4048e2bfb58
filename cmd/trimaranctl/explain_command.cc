#include "cmd/trimaranctl/explain_command.h"

#include <cstdio>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cmd/trimaranctl/flag_args.h"
#include "common/clock.h"
#include "common/http/curl_transport.h"
#include "common/logging.h"
#include "common/read_file.h"
#include "common/status_macros.h"
#include "kube/credentials.h"
#include "kube/plain_http.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"
#include "scheduler/decisions/decision_json.h"
#include "scheduler/decisions/decisions_client.h"
#include "scheduler/decisions/explain_format.h"

namespace trimaran::cmd::trimaranctl {
namespace {

using sched::decisions::DecisionList;
using sched::decisions::FetchDecisions;
using sched::decisions::FormatExplainJson;
using sched::decisions::FormatExplainTable;

sched::decisions::DecisionsClientOptions ClientOptions(const ExplainFlags& flags,
                                                       const std::string& token) {
  return {.scheduler = flags.scheduler,
          .ca_file = flags.scheduler_ca_file,
          .insecure_skip_tls_verify = flags.insecure_skip_tls_verify,
          .token = token};
}

// The pod, as NAMESPACE/POD or as POD with -n/--namespace (or the kubeconfig context's
// namespace, filled in later): kubectl's spellings.
absl::Status ParsePodArgument(const std::vector<std::string>& positional, ExplainFlags& f) {
  if (positional.size() != 1) {
    return absl::InvalidArgumentError(
        positional.empty() ? "needs the pod as NAMESPACE/POD, or POD with -n NAMESPACE"
                           : absl::StrCat("takes one pod, got ", positional.size(), " arguments"));
  }
  std::vector<std::string> parts = absl::StrSplit(positional[0], '/');
  if (parts.size() == 1 && !parts[0].empty()) {
    f.pod_name = parts[0];
    return absl::OkStatus();
  }
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the pod must be NAMESPACE/POD or POD, got \"", positional[0], "\""));
  }
  if (!f.pod_namespace.empty() && f.pod_namespace != parts[0]) {
    return absl::InvalidArgumentError(absl::StrCat("the pod \"", positional[0],
                                                   "\" names another namespace than -n \"",
                                                   f.pod_namespace, "\""));
  }
  f.pod_namespace = parts[0];
  f.pod_name = parts[1];
  return absl::OkStatus();
}

}  // namespace

std::string ExplainHelpText() {
  return R"(Show the real scheduling decision for a pod that trimaran-scheduler scheduled: where it
was bound, the best nodes with each Score plugin's weighted score, the load-aware
fallbacks used, how many nodes were evaluated and fit, and when. The scheduler keeps its
last decisions in a ring (--decisions-capacity, default 1000) and serves them on its
secure port at /debug/decisions.

Usage:
  trimaranctl explain NAMESPACE/POD [flags]
  trimaranctl explain POD [-n NAMESPACE] [flags]   (default: the context's namespace, else
                                                  "default", as kubectl)

Flags:
  -o, --output string               table (default) or json
      --scheduler string            the scheduler's secure port (default "https://127.0.0.1:10259";
                                    kubectl -n trimaran port-forward deploy/trimaran-scheduler 10259)
      --token-file string           bearer token for the scheduler (default: the kubeconfig's
                                    token or exec credential)
      --scheduler-ca-file string    CA that signed the scheduler's serving certificate
      --insecure-skip-tls-verify    do not verify the scheduler's certificate
      --kubeconfig string           kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)
      --context string              kubeconfig context
  -n, --namespace string            the pod's namespace (with POD alone)
  -v, --v int                       log verbosity
  -h, --help                        this help

Access: the token's user needs the ClusterRole trimaran-scheduler-decisions-viewer (GET on
the nonResourceURL /debug/decisions) and get on the pod.
)";
}

absl::StatusOr<ExplainFlags> ParseExplainFlags(const std::vector<std::string>& args) {
  ExplainFlags f;
  std::vector<std::string> positional;
  static const FlagSyntax* const syntax = new FlagSyntax{
      .value_flags = {"--output", "-o", "--scheduler", "--token-file", "--scheduler-ca-file",
                      "--kubeconfig", "--context", "--namespace", "-n", "--v", "-v"},
      .bool_flags = {"-h", "--help", "--insecure-skip-tls-verify"},
      .attached_short_output = true,
  };
  for (const FlagArg& arg : SplitFlags(args, *syntax)) {
    if (arg.is("-h") || arg.is("--help")) {
      f.help = true;
      return f;
    }
    if (arg.kind == FlagArg::Kind::kPositional) {
      positional.push_back(arg.value);
      continue;
    }
    TRIMARAN_RETURN_IF_ERROR(FlagArgError(arg));
    const std::string& flag = arg.name;
    const std::string& value = arg.value;
    if (flag == "--insecure-skip-tls-verify") {
      if (value.empty() || value == "true") {
        f.insecure_skip_tls_verify = true;
      } else if (value != "false") {
        return absl::InvalidArgumentError(
            absl::StrCat("unknown flag \"--insecure-skip-tls-verify=", value, "\""));
      }
    } else if (flag == "--output" || flag == "-o") {
      if (value != "table" && value != "json") {
        return absl::InvalidArgumentError(
            absl::StrCat("--output: must be table or json, got \"", value, "\""));
      }
      f.output = value;
    } else if (flag == "--scheduler") {
      if (!absl::StartsWith(value, "https://") && !absl::StartsWith(value, "http://")) {
        return absl::InvalidArgumentError(
            absl::StrCat("--scheduler: want https://HOST:PORT, got \"", value, "\""));
      }
      f.scheduler = value;
    } else if (flag == "--token-file") {
      f.token_file = value;
    } else if (flag == "--scheduler-ca-file") {
      f.scheduler_ca_file = value;
    } else if (flag == "--kubeconfig") {
      f.kubeconfig = value;
    } else if (flag == "--context") {
      f.context = value;
    } else if (flag == "--namespace" || flag == "-n") {
      if (value.empty()) return absl::InvalidArgumentError("--namespace: needs a value");
      f.pod_namespace = value;
    } else if (!absl::SimpleAtoi(value, &f.verbosity) || f.verbosity < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--v: must be a non-negative integer, got \"", value, "\""));
    }
  }
  TRIMARAN_RETURN_IF_ERROR(ParsePodArgument(positional, f));
  return f;
}

int RunExplain(const ExplainFlags& flags, kube::Client& client, http::HttpTransport& transport,
               const std::string& token, std::string& out, std::string& err) {
  const std::string key = absl::StrCat(flags.pod_namespace, "/", flags.pod_name);
  auto fail = [&](absl::string_view message) {
    absl::StrAppend(&err, "trimaranctl explain: error: ", message, "\n");
    return 1;
  };
  absl::StatusOr<kube::Pod> pod = client.GetPod(flags.pod_namespace, flags.pod_name);
  if (!pod.ok()) {
    if (pod.status().code() == absl::StatusCode::kNotFound) {
      return fail(absl::StrCat("pod ", key, " not found"));
    }
    return fail(absl::StrCat("reading pod ", key, ": ", pod.status().message()));
  }
  absl::StatusOr<DecisionList> list = FetchDecisions(transport, ClientOptions(flags, token), key);
  if (!list.ok()) return fail(list.status().message());
  if (list->capacity == 0) {
    return fail(
        "the scheduler records no decisions (--decisions-capacity=0): start it with a "
        "positive --decisions-capacity");
  }
  if (list->decisions.empty()) {
    // Another scheduler's pod, or a decision the ring no longer holds? The ring's
    // profiles say which schedulerNames trimaran has been deciding for.
    std::set<std::string> profiles;
    if (absl::StatusOr<DecisionList> all =
            FetchDecisions(transport, ClientOptions(flags, token), "");
        all.ok()) {
      for (const auto& d : all->decisions) profiles.insert(d.profile);
    }
    return fail(sched::decisions::ExplainMissingDecision(*pod, key, list->capacity, profiles));
  }
  out += flags.output == "json" ? FormatExplainJson(*pod, *list) : FormatExplainTable(*pod, *list);
  return 0;
}

int RunExplainCommand(const std::vector<std::string>& args, std::string& out, std::string& err) {
  absl::StatusOr<ExplainFlags> flags = ParseExplainFlags(args);
  if (!flags.ok()) {
    absl::StrAppend(&err, "trimaranctl explain: error: ", flags.status().message(),
                    "\nRun 'trimaranctl explain --help' for usage.\n");
    return 1;
  }
  if (flags->help) {
    out += ExplainHelpText();
    return 0;
  }
  auto fail = [&](const absl::Status& s) {
    absl::StrAppend(&err, "trimaranctl explain: error: ", s.message(), "\n");
    return 1;
  };
  if (flags->verbosity >= 0) {
    SetVerbosity(flags->verbosity);
  } else {
    for (int c = 0; c < kNumComponents; ++c) {
      SetComponentLevel(ComponentName(static_cast<Component>(c)), "off").IgnoreError();
    }
  }
  absl::StatusOr<kube::KubeConnection> api = kube::ConnectKube(
      {.kubeconfig_path = flags->kubeconfig, .context = flags->context}, "trimaranctl",
      RealClock::Get(),
      [](const std::string& w) { std::fprintf(stderr, "trimaranctl explain: %s\n", w.c_str()); });
  if (!api.ok()) return fail(api.status());
  if (flags->pod_namespace.empty()) {
    flags->pod_namespace =
        api->config.context_namespace.empty() ? "default" : api->config.context_namespace;
  }
  std::string token;
  if (!flags->token_file.empty()) {
    token = std::string(absl::StripAsciiWhitespace(trimaran::ReadFileOrEmpty(flags->token_file)));
    if (token.empty()) {
      return fail(absl::InvalidArgumentError(
          absl::StrCat("--token-file ", flags->token_file, ": empty or unreadable")));
    }
  } else if (!kube::KubeconfigCredentialsAllowed(flags->scheduler)) {
    std::fprintf(stderr, "trimaranctl explain: %s\n",
                 kube::PlainHttpSchedulerWarning("--scheduler", flags->scheduler).c_str());
  } else {
    absl::StatusOr<kube::CredentialSourcePtr> creds =
        kube::MakeCredentialSource(api->config, RealClock::Get());
    if (creds.ok() && *creds != nullptr) {
      absl::StatusOr<kube::Credentials> c = (*creds)->Get();
      if (c.ok()) token = c->bearer_token;
    }
  }
  absl::StatusOr<std::unique_ptr<http::CurlTransport>> transport = http::CurlTransport::Create();
  if (!transport.ok()) return fail(transport.status());
  return RunExplain(*flags, *api->client, **transport, token, out, err);
}

}  // namespace trimaran::cmd::trimaranctl
