#include "cmd/load-watcher/options.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "providers/registry.h"

namespace trimaran::cmd {
namespace {

// Stores `value`; returns "" or the reason it is invalid.
using Setter = std::function<std::string(LoadWatcherOptions& o, const std::string& value)>;

struct Option {
  std::string flag;  // without dashes
  std::string env;   // "" = flag only
  bool is_bool = false;
  std::string type;  // shown by --help ("string", "int", "duration"); "" for booleans
  std::string default_text;
  std::string usage;
  Setter set;
  // A secret (a token): its value is never repeated in an error.
  bool secret = false;
  // Set for a deprecated flag: the warning ParseLoadWatcherOptions returns when the flag
  // (not the variable) is given.
  std::string deprecation{};
};

// The value as an error may show it.
std::string Shown(const Option& o, const std::string& value) {
  return o.secret ? std::string("<redacted>") : value;
}

// 127.0.0.0/8 and ::1 (and ::ffff:127.x.x.x).
bool IsLoopback(const std::string& address) {
  in_addr v4{};
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, address.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

std::string SetBool(bool& out, const std::string& value) {
  const std::string v = absl::AsciiStrToLower(value);
  if (v == "1" || v == "t" || v == "true") {
    out = true;
  } else if (v == "0" || v == "f" || v == "false") {
    out = false;
  } else {
    return "not a boolean (want true or false)";
  }
  return "";
}

std::string SetInt(int& out, const std::string& value, int min, int max) {
  int v = 0;
  if (!absl::SimpleAtoi(value, &v)) return "not an integer";
  if (v < min || v > max) return absl::StrCat("must be between ", min, " and ", max);
  out = v;
  return "";
}

// METRICS_PROVIDER_* and INSECURE_SKIP_VERIFY: the lw::ProviderSpec every provider reads.
std::vector<Option> SpecOptions() {
  return {
      {"metrics-provider-name", "METRICS_PROVIDER_NAME", false, "string", "KubernetesMetricsServer",
       "The metrics provider: KubernetesMetricsServer, Prometheus or SignalFx.",
       [](LoadWatcherOptions& o, const std::string& v) {
         absl::StatusOr<std::string> type = providers::CanonicalProviderType(v);
         if (!type.ok()) {
           return absl::StrCat("unknown provider \"", v,
                               "\" (want KubernetesMetricsServer, Prometheus or SignalFx)");
         }
         o.provider.type = *type;
         return std::string();
       }},
      {"metrics-provider-address", "METRICS_PROVIDER_ADDRESS", false, "string", "",
       "The provider's URL (Prometheus default http://prometheus-k8s:9090, SignalFx default "
       "https://api.signalfx.com; ignored by KubernetesMetricsServer).",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.provider.address = v;
         return std::string();
       }},
      {"metrics-provider-token", "METRICS_PROVIDER_TOKEN", false, "string", "",
       "Deprecated as a flag (a command line is visible to every user of the node): use "
       "--metrics-provider-token-file, or the variable (from a Secret). Prometheus bearer "
       "token or SignalFx API token (required for SignalFx).",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.provider.token = v;
         return std::string();
       },
       /*secret=*/true,
       "--metrics-provider-token is deprecated: a command line is visible to every user of "
       "the node; use --metrics-provider-token-file (or METRICS_PROVIDER_TOKEN from a "
       "Secret)"},
      {"insecure-skip-verify", "INSECURE_SKIP_VERIFY", true, "", "false",
       "Do not verify the provider's TLS certificate.",
       [](LoadWatcherOptions& o, const std::string& v) {
         return SetBool(o.provider.insecure_skip_verify, v);
       }},
      {"metrics-provider-token-file", "METRICS_PROVIDER_TOKEN_FILE", false, "string", "",
       "Prometheus: read the bearer token from this file at every fetch (a rotated "
       "projected ServiceAccount token keeps working). Not with --metrics-provider-token.",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.provider.token_file = v;
         return std::string();
       }},
      {"metrics-provider-ca-file", "METRICS_PROVIDER_CA_FILE", false, "string", "",
       "PEM CA bundle that verifies the provider's certificate (default: the system's).",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.provider.ca_file = v;
         return std::string();
       }},
      {"metrics-provider-cert-file", "METRICS_PROVIDER_CERT_FILE", false, "string", "",
       "Client certificate (PEM) for providers that require mutual TLS; with "
       "--metrics-provider-key-file.",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.provider.client_cert_file = v;
         return std::string();
       }},
      {"metrics-provider-key-file", "METRICS_PROVIDER_KEY_FILE", false, "string", "",
       "The client certificate's private key (PEM).",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.provider.client_key_file = v;
         return std::string();
       }},
      {"metrics-provider-headers", "METRICS_PROVIDER_HEADERS", false, "string", "",
       "Extra request headers, comma-separated Name=Value pairs (e.g. "
       "X-Scope-OrgID=tenant-1 for Grafana Mimir).",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.provider.headers.clear();
         int index = 0;
         for (absl::string_view pair : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
           ++index;
           std::pair<absl::string_view, absl::string_view> kv =
               absl::StrSplit(pair, absl::MaxSplits('=', 1));
           const absl::string_view name = absl::StripAsciiWhitespace(kv.first);
           const absl::string_view value = absl::StripAsciiWhitespace(kv.second);
           if (name.empty() || value.empty()) {
             // Nothing of the text: a header may carry a credential.
             return absl::StrCat("header ", index, " is not Name=Value");
           }
           o.provider.headers.emplace_back(name, value);
         }
         return std::string();
       },
       /*secret=*/true},
  };
}

// The daemon's own: the Kubernetes client, the servers, logging and the dashboard.
std::vector<Option> DaemonOptions() {
  return {
      {"kubeconfig", "KUBE_CONFIG", false, "string", "",
       "Path to a kubeconfig (KubernetesMetricsServer; Prometheus node mapping and startup "
       "check). Empty: the in-cluster service account when running in a pod.",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.kubeconfig = v;
         return std::string();
       }},
      {"bind-address", "", false, "string", "127.0.0.1",
       "The IP address the REST and gRPC servers listen on. The default serves this host "
       "only (local use); any other address needs --token-file.",
       [](LoadWatcherOptions& o, const std::string& v) {
         unsigned char buf[16];
         if (inet_pton(AF_INET, v.c_str(), buf) != 1 && inet_pton(AF_INET6, v.c_str(), buf) != 1) {
           return std::string("not an IP address");
         }
         o.bind_address = v;
         return std::string();
       }},
      {"tls-cert-file", "", false, "string", "",
       "PEM certificate (chain) to serve HTTPS and TLS gRPC with; with --tls-private-key-file. "
       "Re-read when it changes (cert-manager, Secret updates).",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.tls_cert_file = v;
         return std::string();
       }},
      {"tls-private-key-file", "", false, "string", "", "PEM private key of --tls-cert-file.",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.tls_private_key_file = v;
         return std::string();
       }},
      {"tls-reload-interval", "", false, "duration", "10s",
       "How often the gRPC server re-reads the TLS files (REST checks them at every "
       "handshake). Whole seconds, at least 1s.",
       [](LoadWatcherOptions& o, const std::string& v) {
         absl::Duration d;
         if (!absl::ParseDuration(v, &d) || d < absl::Seconds(1) || d > absl::Hours(24) ||
             d != absl::Seconds(absl::ToInt64Seconds(d))) {
           return std::string("not a whole number of seconds between 1s and 24h");
         }
         o.tls_reload_interval = d;
         return std::string();
       }},
      {"token-file", "", false, "string", "",
       "Require \"Authorization: Bearer <token>\" (gRPC metadata authorization) with the "
       "token in this file on the API (everything but /healthz, /readyz, /livez). Re-read "
       "when it changes.",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.token_file = v;
         return std::string();
       }},
      {"port", "", false, "int", "2020",
       "The REST port: GET /watcher, /watcher/health, /metrics, /healthz.",
       [](LoadWatcherOptions& o, const std::string& v) { return SetInt(o.port, v, 1, 65535); }},
      {"grpc-port", "", false, "int", "2021",
       "The gRPC port (trimaran.loadwatcher.v1.LoadWatcher); 0 disables gRPC.",
       [](LoadWatcherOptions& o, const std::string& v) {
         return SetInt(o.grpc_port, v, 0, 65535);
       }},
      {"fetch-interval", "", false, "duration", "1m0s",
       "How often every window (15m, 10m, 5m) is fetched, start to start.",
       [](LoadWatcherOptions& o, const std::string& v) {
         absl::Duration d;
         if (!absl::ParseDuration(v, &d) || d <= absl::ZeroDuration() ||
             d == absl::InfiniteDuration()) {
           return std::string("not a positive duration (want e.g. 30s, 1m)");
         }
         o.fetch_interval = d;
         return std::string();
       }},
      {"history-size", "", false, "int", "1",
       "Snapshots kept per window. Only the newest is served; upstream keeps 5.",
       [](LoadWatcherOptions& o, const std::string& v) {
         return SetInt(o.history_size, v, 1, 100);
       }},
      {"logging-format", "", false, "string", "text",
       "Log format: text (klog lines) or json (one JSON object per line, kube's field names).",
       [](LoadWatcherOptions& o, const std::string& v) {
         if (v != "text" && v != "json") {
           return absl::StrCat("unsupported log format \"", v, "\" (text or json)");
         }
         o.logging_format = v;
         return std::string();
       }},
      {"v", "", false, "int", "0",
       "Log verbosity (klog style: 4 adds debug, 5 and more add trace).",
       [](LoadWatcherOptions& o, const std::string& v) { return SetInt(o.verbosity, v, 0, 10); }},
      {"dashboard", "LOAD_WATCHER_DASHBOARD", true, "", "false",
       "Also serve the node dashboard (the `trimaranctl dashboard` page) at /dashboard/ on "
       "the REST port. Needs the Kubernetes API and list/watch on nodes and pods "
       "(deploy/components/load-watcher-dashboard).",
       [](LoadWatcherOptions& o, const std::string& v) { return SetBool(o.dashboard, v); }},
      {"dashboard-allowed-hosts", "LOAD_WATCHER_DASHBOARD_ALLOWED_HOSTS", false, "string", "",
       "Comma-separated host names the dashboard may be reached by (an Ingress or Service "
       "name), besides localhost, IP addresses and the bind address; other Host headers are "
       "refused (DNS rebinding defence).",
       [](LoadWatcherOptions& o, const std::string& v) {
         o.dashboard_allowed_hosts.clear();
         for (absl::string_view h : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
           o.dashboard_allowed_hosts.emplace_back(absl::StripAsciiWhitespace(h));
         }
         return std::string();
       }},
      {"help", "", true, "", "", "Print this help and exit.",
       [](LoadWatcherOptions& o, const std::string& v) { return SetBool(o.help, v); }},
      {"version", "", true, "", "", "Print the version and exit.",
       [](LoadWatcherOptions& o, const std::string& v) { return SetBool(o.version, v); }},
  };
}

// The flags each provider's folder declares (providers/*/descriptor.h), in the
// registry's order.
std::vector<Option> ProviderOptions() {
  std::vector<Option> out;
  for (const providers::ProviderDescriptor* descriptor : providers::AllProviders()) {
    for (const providers::ProviderFlag& f : descriptor->flags) {
      out.push_back(Option{std::string(f.flag), std::string(f.env), false, std::string(f.type),
                           std::string(f.default_text), std::string(f.usage),
                           [set = f.set](LoadWatcherOptions& o, const std::string& v) {
                             return set(o.provider, o.provider_extras, v);
                           }});
    }
  }
  return out;
}

const std::vector<Option>& Options() {
  static const std::vector<Option>* const kOptions = [] {
    auto* all = new std::vector<Option>(SpecOptions());
    for (Option& o : ProviderOptions()) all->push_back(std::move(o));
    for (Option& o : DaemonOptions()) all->push_back(std::move(o));
    return all;
  }();
  return *kOptions;
}

const Option* FindFlag(absl::string_view name) {
  for (const Option& o : Options()) {
    if (o.flag == name) return &o;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> ProcessEnv(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

absl::StatusOr<LoadWatcherOptions> ParseLoadWatcherOptions(int argc, const char* const* argv,
                                                           const EnvGetter& env) {
  LoadWatcherOptions options;
  std::vector<std::string> problems;
  // 1. The environment (upstream's interface).
  for (const Option& o : Options()) {
    if (o.env.empty() || !env) continue;
    std::optional<std::string> value = env(o.env);
    if (!value.has_value() || value->empty()) continue;
    if (std::string why = o.set(options, *value); !why.empty()) {
      problems.push_back(absl::StrCat(o.env, "=\"", Shown(o, *value), "\": ", why));
    }
  }
  // 2. Flags, which win.
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      problems.push_back(
          absl::StrCat("unexpected argument \"", arg, "\": load-watcher takes no arguments"));
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg == "-h") {
      options.help = true;
      continue;
    }
    absl::string_view body = arg;
    body.remove_prefix(arg[1] == '-' ? 2 : 1);
    std::string name(body), value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    const Option* o = FindFlag(name);
    if (o == nullptr) {
      problems.push_back(absl::StrCat("unknown flag: --", name));
      continue;
    }
    if (!has_value) {
      if (o->is_bool) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        problems.push_back(absl::StrCat("flag needs an argument: --", name));
        continue;
      }
    }
    if (std::string why = o->set(options, value); !why.empty()) {
      problems.push_back(absl::StrCat("--", name, "=\"", Shown(*o, value), "\": ", why));
    }
    if (!o->deprecation.empty()) options.warnings.push_back(o->deprecation);
  }
  // 3. Combinations.
  if (options.grpc_port != 0 && options.grpc_port == options.port) {
    problems.push_back(absl::StrCat("--grpc-port ", options.grpc_port,
                                    " must differ from --port (or be 0 to disable gRPC)"));
  }
  if (!options.provider.token.empty() && !options.provider.token_file.empty()) {
    problems.push_back(
        "--metrics-provider-token and --metrics-provider-token-file: give one, not both");
  }
  if (options.provider.client_cert_file.empty() != options.provider.client_key_file.empty()) {
    problems.push_back(
        "--metrics-provider-cert-file and --metrics-provider-key-file must be given together");
  }
  if (options.tls_cert_file.empty() != options.tls_private_key_file.empty()) {
    problems.push_back(options.tls_cert_file.empty()
                           ? "--tls-private-key-file needs --tls-cert-file (give both or neither)"
                           : "--tls-cert-file needs --tls-private-key-file (give both or neither)");
  }
  for (const auto& [flag, path] :
       {std::pair<const char*, const std::string&>{"--tls-cert-file", options.tls_cert_file},
        {"--tls-private-key-file", options.tls_private_key_file},
        {"--token-file", options.token_file}}) {
    if (!path.empty() && access(path.c_str(), R_OK) != 0) {
      problems.push_back(absl::StrCat(flag, "=\"", path, "\": cannot read the file"));
    }
  }
  if (!IsLoopback(options.bind_address) && options.token_file.empty()) {
    problems.push_back(absl::StrCat(
        "--bind-address=", options.bind_address,
        " without --token-file: anyone who reaches the port could read the cluster's load "
        "(and the dashboard); give --token-file, or serve 127.0.0.1 only (the default)"));
  }
  if (!problems.empty()) return absl::InvalidArgumentError(absl::StrJoin(problems, "\n"));
  if (options.provider.type.empty()) options.provider.type = "KubernetesMetricsServer";
  return options;
}

std::string LoadWatcherHelpText() {
  std::string out =
      "load-watcher polls a metrics provider (metrics-server, Prometheus or SignalFx) for the "
      "15m, 10m and 5m windows and serves per-node utilisation in paypal/load-watcher's "
      "/watcher format (REST) and over gRPC.\n\nUsage:\n  load-watcher [flags]\n\nFlags "
      "(each variable in brackets sets the same thing; the flag wins):\n";
  for (const Option& o : Options()) {
    std::string head = absl::StrCat("      --", o.flag);
    if (o.flag == "help") head = "  -h, --help";
    if (!o.type.empty()) absl::StrAppend(&head, " ", o.type);
    if (head.size() < 38) head.resize(38, ' ');
    std::string usage = o.usage;
    if (!o.env.empty()) absl::StrAppend(&usage, " [", o.env, "]");
    if (!o.default_text.empty()) {
      absl::StrAppend(
          &usage, " (default ",
          o.type == "string" ? absl::StrCat("\"", o.default_text, "\"") : o.default_text, ")");
    }
    absl::StrAppend(&out, head, " ", usage, "\n");
  }
  return out;
}

}  // namespace trimaran::cmd
