#include "cmd/scheduler/options.h"

#include <arpa/inet.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/logging.h"
#include "scheduler/config/load.h"
#include "scheduler/config/write.h"

namespace trimaran::cmd {
namespace {

constexpr int kHelpColumns = 100;

// Returns "" when `value` was stored, else the reason it is invalid.
using Setter = std::function<std::string(SchedulerOptions& options, const std::string& value)>;

struct FlagDef {
  std::string name;          // without dashes
  char shorthand = 0;        // 'h' / 'v' or 0
  std::string section;       // "misc", ... (see kSections)
  std::string type;          // pflag type name shown by --help; "" for booleans
  std::string default_text;  // as pflag prints it after "(default "; "" for zero values
  std::string usage;
  Setter set;
  bool is_bool() const { return type.empty(); }
};

// Help sections, in kube-scheduler's order.
constexpr absl::string_view kSections[][2] = {
    {"misc", "Misc flags"},
    {"secure serving", "Secure serving flags"},
    {"extender", "Extender flags"},
    {"authentication", "Authentication flags"},
    {"authorization", "Authorization flags"},
    {"deprecated", "Deprecated flags"},
    {"leader election", "Leader election flags"},
    {"logs", "Logs flags"},
    {"global", "Global flags"},
};

std::string ParseBoolInto(bool& out, const std::string& value) {
  static const char* const kTrue[] = {"1", "t", "T", "TRUE", "true", "True"};
  static const char* const kFalse[] = {"0", "f", "F", "FALSE", "false", "False"};
  for (const char* t : kTrue) {
    if (value == t) {
      out = true;
      return "";
    }
  }
  for (const char* f : kFalse) {
    if (value == f) {
      out = false;
      return "";
    }
  }
  return "not a boolean (want true or false)";
}

std::string ParseIntInto(int& out, const std::string& value) {
  if (!absl::SimpleAtoi(value, &out)) return "not an integer";
  return "";
}

std::string ParseDurationInto(std::optional<absl::Duration>& out, const std::string& value) {
  absl::StatusOr<absl::Duration> d = sched::config::ParseGoDuration(value);
  if (!d.ok()) return "not a duration (want e.g. 15s, 1m30s, 500ms)";
  out = *d;
  return "";
}

bool IsIpLiteral(const std::string& value) {
  unsigned char buf[16];
  return inet_pton(AF_INET, value.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, value.c_str(), buf) == 1;
}

// Checks a --log-levels list without touching the loggers.
std::string CheckLogLevels(const std::string& spec) {
  if (spec.empty()) return "";
  static const char* const kLevels[] = {"trace", "debug", "info",     "warn",
                                        "error", "err",   "critical", "off"};
  std::vector<std::string> problems;
  for (absl::string_view item : absl::StrSplit(spec, ',')) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, '=');
    if (kv.first.empty() || kv.second.empty()) {
      problems.push_back(absl::StrCat("bad item \"", item, "\" (want component=level)"));
      continue;
    }
    bool known_component = false;
    for (int i = 0; i < kNumComponents; ++i) {
      if (ComponentName(static_cast<Component>(i)) == kv.first) known_component = true;
    }
    if (!known_component) {
      problems.push_back(absl::StrCat("unknown component \"", kv.first, "\""));
    }
    if (std::none_of(std::begin(kLevels), std::end(kLevels),
                     [&](const char* l) { return kv.second == l; })) {
      problems.push_back(
          absl::StrCat("unknown level \"", kv.second,
                       "\" (want trace, debug, info, warn, error, critical or off)"));
    }
  }
  return absl::StrJoin(problems, "; ");
}

std::string Quoted(absl::string_view s) { return absl::StrCat("\"", s, "\""); }

// Misc flags: the configuration file, the API server, Trimaran's own knobs.
std::vector<FlagDef> MiscFlags() {
  return {
      {"config", 0, "misc", "string", "", "The path to the configuration file.",
       [](SchedulerOptions& o, const std::string& v) {
         o.config_file = v;
         return std::string();
       }},
      {"master", 0, "misc", "string", "",
       "The address of the Kubernetes API server (overrides any value in kubeconfig)",
       [](SchedulerOptions& o, const std::string& v) {
         o.master = v;
         return std::string();
       }},
      {"decisions-capacity", 0, "misc", "int", absl::StrCat(kDefaultDecisionsCapacity),
       "Trimaran: how many recent scheduling decisions to keep for /debug/decisions and "
       "'trimaranctl explain' (the best nodes with each plugin's score, fallbacks, outcome; "
       "about 1-2 KiB each). 0 disables recording. At most 1000000.",
       [](SchedulerOptions& o, const std::string& v) {
         int64_t n = 0;
         if (!absl::SimpleAtoi(v, &n)) return std::string("not an integer");
         if (n < 0 || n > kMaxDecisionsCapacity) {
           return absl::StrCat("must be between 0 and ", kMaxDecisionsCapacity);
         }
         o.decisions_capacity = static_cast<int>(n);
         return std::string();
       }},
      {"tie-break", 0, "misc", "string", "random",
       "Trimaran: how to pick among the nodes still tied after the exact tie-break: random "
       "(seeded, as kube-scheduler) or lowest-name (the smallest node name, the rule of "
       "'trimaranctl score' and 'trimaranctl simulate', to compare the daemon with them).",
       [](SchedulerOptions& o, const std::string& v) {
         if (v != "random" && v != "lowest-name") {
           return absl::StrCat("unknown tie-break ", Quoted(v), " (random or lowest-name)");
         }
         o.tie_break = v;
         return std::string();
       }},
      {"load-watcher-max-response-bytes", 0, "misc", "int",
       absl::StrCat(kDefaultLoadWatcherMaxResponseBytes),
       "Trimaran: the largest answer accepted from a remote load watcher (watcherAddress), "
       "HTTP body or gRPC message, in bytes (at most 2147483647). A larger answer is cut off "
       "there and counted as a failed read; the plugins keep their previous metrics.",
       [](SchedulerOptions& o, const std::string& v) {
         int64_t n = 0;
         if (!absl::SimpleAtoi(v, &n)) return std::string("not an integer");
         if (n <= 0 || n > std::numeric_limits<int32_t>::max()) {
           return std::string("must be between 1 and 2147483647");
         }
         o.load_watcher_max_response_bytes = n;
         return std::string();
       }},
      {"write-config-to", 0, "misc", "string", "",
       "If set, write the configuration values to this file and exit.",
       [](SchedulerOptions& o, const std::string& v) {
         o.write_config_to = v;
         return std::string();
       }},
  };
}

// The secure port (and its certificate).
std::vector<FlagDef> SecureServingFlags() {
  return {
      {"bind-address", 0, "secure serving", "ip", kDefaultBindAddress,
       "The IP address on which to listen for the --secure-port port. The associated "
       "interface(s) must be reachable by the rest of the cluster, and by CLI/web clients. "
       "If blank or an unspecified address (0.0.0.0 or ::), all interfaces and IP address "
       "families will be used.",
       [](SchedulerOptions& o, const std::string& v) {
         if (v.empty()) {
           o.bind_address = kDefaultBindAddress;
           return std::string();
         }
         if (!IsIpLiteral(v)) return absl::StrCat("failed to parse IP: ", Quoted(v));
         o.bind_address = v;
         return std::string();
       }},
      {"cert-dir", 0, "secure serving", "string", "",
       "The directory where the TLS certs are located. If --tls-cert-file and "
       "--tls-private-key-file are provided, this flag will be ignored. A self-signed "
       "certificate (trimaran-scheduler.crt/.key) is generated there when none is given; "
       "without --cert-dir, in a fresh private directory (mode 0700) under $TMPDIR, made "
       "at every start.",
       [](SchedulerOptions& o, const std::string& v) {
         o.cert_dir = v;
         return std::string();
       }},
      {"secure-port", 0, "secure serving", "int", absl::StrCat(kDefaultSecurePort),
       "The port on which to serve HTTPS with authentication and authorization (TokenReview "
       "and SubjectAccessReview, see --authorization-always-allow-paths). If 0, don't serve "
       "HTTPS at all.",
       [](SchedulerOptions& o, const std::string& v) { return ParseIntInto(o.secure_port, v); }},
      {"tls-min-version", 0, "secure serving", "string", "",
       "Minimum TLS version supported. Possible values: VersionTLS12, VersionTLS13 "
       "(empty: VersionTLS12).",
       [](SchedulerOptions& o, const std::string& v) {
         if (!v.empty() && v != "VersionTLS12" && v != "VersionTLS13") {
           return absl::StrCat("unsupported TLS version ", Quoted(v),
                               " (VersionTLS12 or VersionTLS13)");
         }
         o.tls_min_version = v;
         return std::string();
       }},
      {"tls-cert-file", 0, "secure serving", "string", "",
       "File containing the default x509 Certificate for HTTPS. (CA cert, if any, "
       "concatenated after server cert). If HTTPS serving is enabled, and --tls-cert-file "
       "and --tls-private-key-file are not provided, a self-signed certificate and key are "
       "generated for the public address and saved to the directory specified by "
       "--cert-dir.",
       [](SchedulerOptions& o, const std::string& v) {
         o.tls_cert_file = v;
         return std::string();
       }},
      {"tls-private-key-file", 0, "secure serving", "string", "",
       "File containing the default x509 private key matching --tls-cert-file.",
       [](SchedulerOptions& o, const std::string& v) {
         o.tls_private_key_file = v;
         return std::string();
       }},
  };
}

// The extender mode (docs/extender.md).
std::vector<FlagDef> ExtenderFlags() {
  return {
      {"extender", 0, "extender", "", "",
       "Trimaran: serve the scheduler extender protocol (/filter, /prioritize, optionally "
       "/bind) over HTTPS for kube-scheduler from one profile (--extender-profile) instead "
       "of scheduling pods; see docs/extender.md.",
       [](SchedulerOptions& o, const std::string& v) { return ParseBoolInto(o.extender, v); }},
      {"extender-profile", 0, "extender", "string", "",
       "The profile (schedulerName) whose plugins the extender runs. Empty: the "
       "configuration's only profile.",
       [](SchedulerOptions& o, const std::string& v) {
         o.extender_profile = v;
         return std::string();
       }},
      {"extender-bind-address", 0, "extender", "ip", kDefaultBindAddress,
       "The IP address on which the extender listens.",
       [](SchedulerOptions& o, const std::string& v) {
         if (v.empty()) {
           o.extender_bind_address = kDefaultBindAddress;
           return std::string();
         }
         if (!IsIpLiteral(v)) return absl::StrCat("failed to parse IP: ", Quoted(v));
         o.extender_bind_address = v;
         return std::string();
       }},
      {"extender-port", 0, "extender", "int", absl::StrCat(kDefaultExtenderPort),
       "The HTTPS port of the extender (also serves /healthz, /readyz and /metrics).",
       [](SchedulerOptions& o, const std::string& v) { return ParseIntInto(o.extender_port, v); }},
      {"extender-tls-cert-file", 0, "extender", "string", "",
       "The extender's serving certificate (PEM). Empty: the secure port's "
       "(--tls-cert-file, or the self-signed one in --cert-dir).",
       [](SchedulerOptions& o, const std::string& v) {
         o.extender_tls_cert_file = v;
         return std::string();
       }},
      {"extender-tls-private-key-file", 0, "extender", "string", "",
       "The private key matching --extender-tls-cert-file.",
       [](SchedulerOptions& o, const std::string& v) {
         o.extender_tls_private_key_file = v;
         return std::string();
       }},
      {"extender-client-ca-file", 0, "extender", "string", "",
       "The CA bundle that signs the extender's clients' certificates (kube-scheduler's "
       "extender tlsConfig certFile/keyFile). Required with --extender unless "
       "--extender-allow-unauthenticated: every connection must present a certificate "
       "of these CAs (mutual TLS).",
       [](SchedulerOptions& o, const std::string& v) {
         o.extender_client_ca_file = v;
         return std::string();
       }},
      {"extender-allowed-names", 0, "extender", "strings", "",
       "The client certificate names allowed on the extender's protocol paths: a "
       "certificate of --extender-client-ca-file passes when its subject's common name "
       "or one of its DNS subject alternative names is in this list. Empty: any "
       "certificate of those CAs (as kube's --requestheader-allowed-names).",
       [](SchedulerOptions& o, const std::string& v) {
         o.extender_allowed_names.clear();
         for (absl::string_view n : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
           o.extender_allowed_names.emplace_back(absl::StripAsciiWhitespace(n));
         }
         return std::string();
       }},
      {"extender-allow-unauthenticated", 0, "extender", "", "",
       "Serve the extender over TLS without client certificates (anyone who reaches the "
       "port gets filter and score answers). Not with --extender-bind.",
       [](SchedulerOptions& o, const std::string& v) {
         return ParseBoolInto(o.extender_allow_unauthenticated, v);
       }},
      {"extender-bind", 0, "extender", "", "",
       "Serve /bind: the extender creates the Binding (set bindVerb in kube-scheduler's "
       "extender configuration; needs create on pods/binding). Needs mutual TLS "
       "(--extender-client-ca-file); binds only pending pods of "
       "--extender-bind-scheduler-names to nodes that pass the profile's filters.",
       [](SchedulerOptions& o, const std::string& v) { return ParseBoolInto(o.extender_bind, v); }},
      {"extender-bind-scheduler-names", 0, "extender", "strings", "[default-scheduler]",
       "With --extender-bind: the schedulerNames (kube-scheduler's profiles that call the "
       "extender) whose pods /bind may bind.",
       [](SchedulerOptions& o, const std::string& v) {
         o.extender_bind_scheduler_names.clear();
         for (absl::string_view n : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
           o.extender_bind_scheduler_names.emplace_back(absl::StripAsciiWhitespace(n));
         }
         if (o.extender_bind_scheduler_names.empty()) return std::string("must name one");
         return std::string();
       }},
  };
}

// Delegated authentication and authorization of the secure port.
std::vector<FlagDef> AuthFlags() {
  return {
      {"authentication-kubeconfig", 0, "authentication", "string", "",
       "kubeconfig file pointing at the 'core' kubernetes server with enough rights to "
       "create tokenreviews.authentication.k8s.io. If empty, the scheduler's own "
       "connection (--kubeconfig, clientConnection.kubeconfig or in-cluster) is used.",
       [](SchedulerOptions& o, const std::string& v) {
         o.authentication_kubeconfig = v;
         return std::string();
       }},
      {"authorization-always-allow-paths", 0, "authorization", "strings",
       "[/healthz,/readyz,/livez]",
       "A list of HTTP paths to skip during authorization and authentication, i.e. these "
       "are served without a token. A trailing '*' matches a prefix.",
       [](SchedulerOptions& o, const std::string& v) {
         o.authorization_always_allow_paths.clear();
         for (absl::string_view p : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
           p = absl::StripAsciiWhitespace(p);
           if (p.empty() || p.front() != '/') {
             return absl::StrCat("path ", Quoted(std::string(p)), " must start with '/'");
           }
           o.authorization_always_allow_paths.emplace_back(p);
         }
         return std::string();
       }},
      {"authorization-kubeconfig", 0, "authorization", "string", "",
       "kubeconfig file pointing at the 'core' kubernetes server with enough rights to "
       "create subjectaccessreviews.authorization.k8s.io. If empty, the scheduler's own "
       "connection is used.",
       [](SchedulerOptions& o, const std::string& v) {
         o.authorization_kubeconfig = v;
         return std::string();
       }},
  };
}

// Deprecated flags.
std::vector<FlagDef> DeprecatedFlags() {
  return {
      {"kubeconfig", 0, "deprecated", "string", "",
       "DEPRECATED: path to kubeconfig file with authorization and master location "
       "information. Unlike kube-scheduler's, it overrides clientConnection.kubeconfig of "
       "the --config file when both are given.",
       [](SchedulerOptions& o, const std::string& v) {
         o.kubeconfig = v;
         return std::string();
       }},
  };
}

// Leader election (overrides of the configuration's leaderElection).
std::vector<FlagDef> LeaderElectionFlags() {
  const sched::config::LeaderElection le;  // the configuration defaults
  return {
      {"leader-elect", 0, "leader election", "", le.leader_elect ? "true" : "",
       "Start a leader election client and gain leadership before executing the main loop. "
       "Enable this when running replicated components for high availability.",
       [](SchedulerOptions& o, const std::string& v) {
         bool b = false;
         std::string err = ParseBoolInto(b, v);
         if (err.empty()) o.leader_elect = b;
         return err;
       }},
      {"leader-elect-lease-duration", 0, "leader election", "duration",
       sched::config::FormatGoDuration(le.lease_duration),
       "The duration that non-leader candidates will wait after observing a leadership "
       "renewal until attempting to acquire leadership of a led but unrenewed leader slot. "
       "This is effectively the maximum duration that a leader can be stopped before it is "
       "replaced by another candidate. This is only applicable if leader election is "
       "enabled.",
       [](SchedulerOptions& o, const std::string& v) {
         return ParseDurationInto(o.leader_elect_lease_duration, v);
       }},
      {"leader-elect-renew-deadline", 0, "leader election", "duration",
       sched::config::FormatGoDuration(le.renew_deadline),
       "The interval between attempts by the acting master to renew a leadership slot "
       "before it stops leading. This must be less than the lease duration. This is only "
       "applicable if leader election is enabled.",
       [](SchedulerOptions& o, const std::string& v) {
         return ParseDurationInto(o.leader_elect_renew_deadline, v);
       }},
      {"leader-elect-resource-lock", 0, "leader election", "string", le.resource_lock,
       "The type of resource object that is used for locking during leader election. "
       "Supported options are 'leases'.",
       [](SchedulerOptions& o, const std::string& v) {
         o.leader_elect_resource_lock = v;
         return std::string();
       }},
      {"leader-elect-resource-name", 0, "leader election", "string", le.resource_name,
       "The name of resource object that is used for locking during leader election.",
       [](SchedulerOptions& o, const std::string& v) {
         o.leader_elect_resource_name = v;
         return std::string();
       }},
      {"leader-elect-resource-namespace", 0, "leader election", "string", le.resource_namespace,
       "The namespace of resource object that is used for locking during leader election.",
       [](SchedulerOptions& o, const std::string& v) {
         o.leader_elect_resource_namespace = v;
         return std::string();
       }},
      {"leader-elect-retry-period", 0, "leader election", "duration",
       sched::config::FormatGoDuration(le.retry_period),
       "The duration the clients should wait between attempting acquisition and renewal of "
       "a leadership. This is only applicable if leader election is enabled.",
       [](SchedulerOptions& o, const std::string& v) {
         return ParseDurationInto(o.leader_elect_retry_period, v);
       }},
  };
}

// Logs.
std::vector<FlagDef> LogsFlags() {
  return {
      {"logging-format", 0, "logs", "string", "text",
       "Sets the log format. Permitted formats: \"json\" (one JSON object per line, kube's "
       "field names), \"text\".",
       [](SchedulerOptions& o, const std::string& v) {
         if (v != "text" && v != "json") {
           return absl::StrCat("unsupported log format ", Quoted(v), " (text or json)");
         }
         o.logging_format = v;
         return std::string();
       }},
      {"log-levels", 0, "logs", "string", "",
       "Comma-separated component=level list overriding --v per component, e.g. "
       "queue=debug,provider=trace. Components: main, config, kube, informer, queue, "
       "cache, framework, plugin, binder, loadwatcher, provider, admin, sim. Levels: trace, "
       "debug, info, warn, error, critical, off.",
       [](SchedulerOptions& o, const std::string& v) {
         std::string err = CheckLogLevels(v);
         if (err.empty()) o.log_levels = v;
         return err;
       }},
      {"v", 'v', "logs", "int", "",
       "number for the log level verbosity (klog style: 0-3 info, 4 debug, 5+ trace)",
       [](SchedulerOptions& o, const std::string& v) {
         std::string err = ParseIntInto(o.verbosity, v);
         if (err.empty() && o.verbosity < 0) err = "must be >= 0";
         return err;
       }},
  };
}

// Global flags.
std::vector<FlagDef> GlobalFlags() {
  return {
      {"help", 'h', "global", "", "", "help for trimaran-scheduler",
       [](SchedulerOptions& o, const std::string& v) { return ParseBoolInto(o.help, v); }},
      {"version", 0, "global", "", "", "Print version information and quit",
       [](SchedulerOptions& o, const std::string& v) { return ParseBoolInto(o.version, v); }},
  };
}

// Every flag; each section's in a function of its own above.
const std::vector<FlagDef>& Flags() {
  static const std::vector<FlagDef>* const kFlags = [] {
    auto* flags = new std::vector<FlagDef>;
    for (std::vector<FlagDef> (*section)() :
         {MiscFlags, SecureServingFlags, ExtenderFlags, AuthFlags, DeprecatedFlags,
          LeaderElectionFlags, LogsFlags, GlobalFlags}) {
      for (FlagDef& f : section()) flags->push_back(std::move(f));
    }
    return flags;
  }();
  return *kFlags;
}

const FlagDef* FindFlag(absl::string_view name) {
  for (const FlagDef& f : Flags()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const FlagDef* FindShorthand(char c) {
  for (const FlagDef& f : Flags()) {
    if (f.shorthand != 0 && f.shorthand == c) return &f;
  }
  return nullptr;
}

// Greedy word wrap of `text` into lines of at most `width` columns (a longer word gets a
// line of its own); continuation lines are prefixed with `indent` spaces.
std::string Wrap(absl::string_view text, int indent, int width) {
  std::string out;
  int col = 0;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    const int len = static_cast<int>(word.size());
    if (col > 0 && col + 1 + len > width) {
      absl::StrAppend(&out, "\n", std::string(static_cast<size_t>(indent), ' '));
      col = 0;
    }
    if (col > 0) {
      out.push_back(' ');
      ++col;
    }
    absl::StrAppend(&out, word);
    col += len;
  }
  return out;
}

}  // namespace

namespace {

// The extender is authenticated by default (issue 30 point 3): mutual TLS unless
// explicitly waived, and never /bind without it.
std::vector<std::string> ExtenderAuthenticationProblems(const SchedulerOptions& options) {
  std::vector<std::string> problems;
  const bool mtls = !options.extender_client_ca_file.empty();
  if (!mtls && !options.extender_allow_unauthenticated) {
    problems.push_back(
        "--extender requires mutual TLS: give --extender-client-ca-file (the CA of "
        "kube-scheduler's extender client certificate) and --extender-allowed-names, or "
        "--extender-allow-unauthenticated to serve without client certificates");
  }
  if (mtls && options.extender_allow_unauthenticated) {
    problems.push_back(
        "--extender-allow-unauthenticated and --extender-client-ca-file: give one, not both");
  }
  if (!mtls && !options.extender_allowed_names.empty()) {
    problems.push_back("--extender-allowed-names needs --extender-client-ca-file");
  }
  if (options.extender_bind && !mtls) {
    problems.push_back(
        "--extender-bind needs mutual TLS (--extender-client-ca-file): without it anyone who "
        "reaches the port could bind pods");
  }
  return problems;
}

}  // namespace

absl::StatusOr<SchedulerOptions> ParseSchedulerFlags(int argc, char** argv) {
  SchedulerOptions options;
  std::vector<std::string> problems;
  std::vector<std::string> stray;

  auto apply = [&](const FlagDef& def, absl::string_view spelled, const std::string& value) {
    std::string reason = def.set(options, value);
    if (!reason.empty()) {
      problems.push_back(absl::StrCat("invalid argument ", Quoted(value), " for ", Quoted(spelled),
                                      " flag: ", reason));
    }
  };

  bool flags_ended = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i] == nullptr ? "" : argv[i];
    if (flags_ended || arg.size() < 2 || arg[0] != '-') {
      stray.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_ended = true;
      continue;
    }
    if (arg[1] == '-') {
      // --name[=value]
      const size_t eq = arg.find('=');
      const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      const bool has_value = eq != std::string::npos;
      const std::string spelled = absl::StrCat("--", name);
      if (name.empty() || name[0] == '-') {
        problems.push_back(absl::StrCat("bad flag syntax: ", arg));
        continue;
      }
      const FlagDef* def = FindFlag(name);
      if (def == nullptr) {
        problems.push_back(absl::StrCat("unknown flag: ", spelled));
        // Take a following non-flag word as the unknown flag's value rather than
        // reporting it a second time as a stray argument.
        if (!has_value && i + 1 < argc && argv[i + 1][0] != '-') ++i;
        continue;
      }
      if (has_value) {
        apply(*def, spelled, arg.substr(eq + 1));
      } else if (def->is_bool()) {
        apply(*def, spelled, "true");
      } else if (i + 1 < argc) {
        apply(*def, spelled, argv[++i]);
      } else {
        problems.push_back(absl::StrCat("flag needs an argument: ", spelled));
      }
      continue;
    }
    // -c, -c=value, -c value, -cvalue (single-letter shorthands only).
    const FlagDef* def = FindShorthand(arg[1]);
    if (def == nullptr) {
      problems.push_back(absl::StrCat("unknown shorthand flag: '", arg.substr(1, 1), "' in ", arg));
      continue;
    }
    const std::string spelled = absl::StrCat("-", arg.substr(1, 1));
    std::string rest = arg.substr(2);
    if (!rest.empty() && rest[0] == '=') {
      apply(*def, spelled, rest.substr(1));
    } else if (def->is_bool()) {
      if (!rest.empty()) {
        problems.push_back(
            absl::StrCat("unknown shorthand flag: '", rest.substr(0, 1), "' in ", arg));
      } else {
        apply(*def, spelled, "true");
      }
    } else if (!rest.empty()) {
      apply(*def, spelled, rest);
    } else if (i + 1 < argc) {
      apply(*def, spelled, argv[++i]);
    } else {
      problems.push_back(absl::StrCat("flag needs an argument: ", spelled, " (--", def->name, ")"));
    }
  }

  for (const std::string& s : stray) {
    problems.push_back(
        absl::StrCat("unexpected argument ", Quoted(s), ": trimaran-scheduler takes no arguments"));
  }
  // Combinations.
  if (options.secure_port < 0 || options.secure_port > 65535) {
    problems.push_back(
        absl::StrCat("--secure-port ", options.secure_port,
                     " must be between 0 and 65535, inclusive (0 disables serving)"));
  }
  if (options.tls_cert_file.empty() != options.tls_private_key_file.empty()) {
    problems.push_back("--tls-cert-file and --tls-private-key-file must be given together");
  }
  if (options.extender && (options.extender_port < 1 || options.extender_port > 65535)) {
    problems.push_back(absl::StrCat("--extender-port ", options.extender_port,
                                    " must be between 1 and 65535, inclusive"));
  }
  if (options.extender_tls_cert_file.empty() != options.extender_tls_private_key_file.empty()) {
    problems.push_back(
        "--extender-tls-cert-file and --extender-tls-private-key-file must be given together");
  }
  if (options.extender) {
    for (std::string& p : ExtenderAuthenticationProblems(options)) problems.push_back(std::move(p));
  }
  if (!problems.empty()) {
    return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
  }
  return options;
}

std::string SchedulerHelpText() {
  std::string out =
      "The Trimaran scheduler is a control plane process which assigns Pods to Nodes, "
      "compatible with kube-scheduler (KubeSchedulerConfiguration, events, leader election, "
      "endpoints) and adding bin-packing and load-aware plugins. Pods opt in with "
      "spec.schedulerName set to one of its profiles.";
  out = Wrap(out, 0, kHelpColumns);
  absl::StrAppend(&out, "\n\nUsage:\n  trimaran-scheduler [flags]\n");
  for (const auto& [key, title] : kSections) {
    std::vector<const FlagDef*> flags;
    for (const FlagDef& f : Flags()) {
      if (f.section == key) flags.push_back(&f);
    }
    if (flags.empty()) continue;
    std::sort(flags.begin(), flags.end(),
              [](const FlagDef* a, const FlagDef* b) { return a->name < b->name; });
    // pflag's layout: "  -h, --help" or "      --name type", the description aligned
    // two columns after the longest of these in the section.
    std::vector<std::string> heads;
    size_t max_len = 0;
    for (const FlagDef* f : flags) {
      std::string head = f->shorthand != 0
                             ? absl::StrCat("  -", std::string(1, f->shorthand), ", --")
                             : std::string("      --");
      absl::StrAppend(&head, f->name);
      if (!f->is_bool()) absl::StrAppend(&head, " ", f->type);
      max_len = std::max(max_len, head.size());
      heads.push_back(std::move(head));
    }
    absl::StrAppend(&out, "\n", title, ":\n\n");
    // When the description column would be narrower than 24, pflag moves descriptions to
    // the next line, indented 16.
    int indent = static_cast<int>(max_len) + 3;
    const bool own_line = kHelpColumns - indent < 24;
    if (own_line) indent = 16;
    for (size_t i = 0; i < flags.size(); ++i) {
      const FlagDef* f = flags[i];
      std::string usage = f->usage;
      if (!f->default_text.empty()) {
        const bool quote = f->type == "string";
        absl::StrAppend(&usage, " (default ", quote ? Quoted(f->default_text) : f->default_text,
                        ")");
      }
      std::string line = heads[i];
      if (own_line) {
        absl::StrAppend(&line, "\n", std::string(16, ' '));
      } else {
        line.resize(static_cast<size_t>(indent), ' ');
      }
      absl::StrAppend(&line, Wrap(usage, indent, kHelpColumns - indent));
      absl::StrAppend(&out, line, "\n");
    }
  }
  return out;
}

void ApplyFlagOverrides(const SchedulerOptions& options, sched::config::SchedulerConfig& config) {
  sched::config::LeaderElection& le = config.leader_election;
  if (options.leader_elect) le.leader_elect = *options.leader_elect;
  if (options.leader_elect_resource_lock) le.resource_lock = *options.leader_elect_resource_lock;
  if (options.leader_elect_resource_name) le.resource_name = *options.leader_elect_resource_name;
  if (options.leader_elect_resource_namespace) {
    le.resource_namespace = *options.leader_elect_resource_namespace;
  }
  if (options.leader_elect_lease_duration) le.lease_duration = *options.leader_elect_lease_duration;
  if (options.leader_elect_renew_deadline) le.renew_deadline = *options.leader_elect_renew_deadline;
  if (options.leader_elect_retry_period) le.retry_period = *options.leader_elect_retry_period;
  if (options.kubeconfig) config.client_connection.kubeconfig = *options.kubeconfig;
}

absl::Status ApplyLogging(const SchedulerOptions& options) {
  if (absl::Status s = SetLoggingFormat(options.logging_format); !s.ok()) return s;
  SetVerbosity(options.verbosity);
  return SetComponentLevels(options.log_levels);
}

}  // namespace trimaran::cmd
