#include "cmd/trimaranctl/dashboard_command.h"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "cmd/trimaranctl/flag_args.h"
#include "common/clock.h"
#include "common/http/curl_transport.h"
#include "common/http/http_server.h"
#include "common/logging.h"
#include "common/status_macros.h"
#include "common/stop_signals.h"
#include "dashboard/informer_source.h"
#include "dashboard/targets.h"
#include "dashboard/web/guard.h"
#include "dashboard/web/service.h"
#include "kube/credentials.h"
#include "kube/plain_http.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"

namespace trimaran::cmd::trimaranctl::nodes {
using dashboard::web::DashboardOptions;
using dashboard::web::DashboardService;
using dashboard::web::HttpDecisionsOptions;
using dashboard::web::HttpDecisionsSource;
using dashboard::web::MakeFixedToken;
using dashboard::web::RandomToken;

absl::Status ParseListen(const std::string& listen, std::string& host, int& port) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon + 1 == listen.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen: must be HOST:PORT (127.0.0.1:8088), got \"", listen, "\""));
  }
  host = listen.substr(0, colon);
  if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) host = "127.0.0.1";
  if (!absl::SimpleAtoi(listen.substr(colon + 1), &port) || port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen: port must be 0..65535, got \"", listen.substr(colon + 1), "\""));
  }
  return absl::OkStatus();
}

namespace {

const FlagSyntax& DashboardFlagSyntax() {
  static const FlagSyntax* const syntax = [] {
    auto* s = new FlagSyntax(NodesFlagSyntax());
    for (const char* flag : {"--allowed-hosts", "--listen", "--scheduler", "--scheduler-ca-file",
                             "--scheduler-token-file", "--history"}) {
      s->value_flags.emplace_back(flag);
    }
    s->bool_flags.emplace_back("--scheduler-insecure-skip-tls-verify");
    return s;
  }();
  return *syntax;
}

absl::Status ParseAllowedHosts(const std::string& v, std::vector<std::string>& out) {
  for (absl::string_view h : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
    h = absl::StripAsciiWhitespace(h);
    if (absl::StrContains(h, '/') || absl::StrContains(h, ' ')) {
      return absl::InvalidArgumentError(
          absl::StrCat("--allowed-hosts: a comma-separated list of host names, got \"", v, "\""));
    }
    out.emplace_back(h);
  }
  return absl::OkStatus();
}

// One of the dashboard's own flags; false when `arg` is a `nodes` flag.
absl::StatusOr<bool> ApplyDashboardFlag(DashboardFlags& f, const FlagArg& arg) {
  if (arg.is("--allowed-hosts")) {
    TRIMARAN_RETURN_IF_ERROR(ParseAllowedHosts(arg.value, f.allowed_hosts));
  } else if (arg.is("--listen")) {
    f.listen = arg.value;
  } else if (arg.is("--scheduler")) {
    f.scheduler = arg.value;
  } else if (arg.is("--scheduler-ca-file")) {
    f.scheduler_ca_file = arg.value;
  } else if (arg.is("--scheduler-token-file")) {
    f.scheduler_token_file = arg.value;
  } else if (arg.is("--history")) {
    if (!absl::SimpleAtoi(arg.value, &f.history) || f.history < 1 || f.history > 10000) {
      return absl::InvalidArgumentError(
          absl::StrCat("--history: must be an integer in [1, 10000], got \"", arg.value, "\""));
    }
  } else if (arg.is("--scheduler-insecure-skip-tls-verify")) {
    f.scheduler_insecure = arg.value.empty() || arg.value == "true";
  } else {
    return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<DashboardFlags> ParseDashboardFlags(const std::vector<std::string>& args,
                                                   const std::string& defaults_file) {
  DashboardFlags f;
  TRIMARAN_RETURN_IF_ERROR(ApplyNodesDefaults(f.nodes, defaults_file));
  bool resources_given = false;
  bool refresh_given = false;
  for (const FlagArg& arg : SplitFlags(args, DashboardFlagSyntax())) {
    if (arg.kind != FlagArg::Kind::kPositional && (arg.name == "-o" || arg.name == "--output")) {
      return absl::InvalidArgumentError(
          "-o/--output: not a dashboard flag (use `trimaranctl nodes -o json`, or the page's "
          "api/nodes)");
    }
    TRIMARAN_RETURN_IF_ERROR(FlagArgError(arg));
    if (arg.kind == FlagArg::Kind::kPositional) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument \"", arg.value, "\""));
    }
    TRIMARAN_ASSIGN_OR_RETURN(const bool own, ApplyDashboardFlag(f, arg));
    if (own) continue;
    resources_given = resources_given || arg.name == "--resources";
    refresh_given = refresh_given || arg.name == "--refresh";
    TRIMARAN_RETURN_IF_ERROR(ApplyNodesFlag(f.nodes, arg.name, arg.value));
  }
  if (!resources_given && f.nodes.view.resources == std::vector<std::string>{"cpu"}) {
    f.nodes.view.resources = {"cpu", "memory"};
  }
  if (!refresh_given) f.nodes.view.refresh = absl::Seconds(5);
  std::string host;
  int port = 0;
  absl::Status listen = ParseListen(f.listen, host, port);
  if (!listen.ok()) return listen;
  if (!f.scheduler.empty() && !absl::StartsWith(f.scheduler, "https://") &&
      !absl::StartsWith(f.scheduler, "http://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--scheduler: must be https://HOST:PORT (the secure admin port), got \"",
                     f.scheduler, "\""));
  }
  return f;
}

namespace {

void SetDashboardLogging(int verbosity) {
  if (verbosity >= 0) {
    SetVerbosity(verbosity);
    return;
  }
  for (int c = 0; c < kNumComponents; ++c) {
    SetComponentLevel(ComponentName(static_cast<Component>(c)), "warn").IgnoreError();
  }
}

// What the page reads: prices, targets, the apiserver, the load watcher and (with
// --scheduler) the scheduler's decisions. Members in construction order.
struct DashboardClients {
  dashboard::PriceTable prices;
  dashboard::TargetPercent targets;
  std::unique_ptr<kube::RestClient> kube;
  WatcherClient watcher;
  std::unique_ptr<http::CurlTransport> scheduler_transport;
  std::unique_ptr<HttpDecisionsSource> decisions;
};

// The scheduler's credentials: --scheduler-token-file, else (over https only) the
// kubeconfig's token (file, static or exec plugin) or client certificate.
absl::Status AddSchedulerCredentials(const DashboardFlags& flags, const kube::RestConfig& rest,
                                     HttpDecisionsOptions& d) {
  if (!flags.scheduler_token_file.empty()) {
    d.bearer_token_file = flags.scheduler_token_file;
    return absl::OkStatus();
  }
  if (!kube::KubeconfigCredentialsAllowed(flags.scheduler)) {
    std::fprintf(stderr, "trimaranctl dashboard: %s\n",
                 kube::PlainHttpSchedulerWarning("--scheduler", flags.scheduler).c_str());
    return absl::OkStatus();
  }
  TRIMARAN_ASSIGN_OR_RETURN(kube::CredentialSourcePtr creds,
                            kube::MakeCredentialSource(rest, RealClock::Get()));
  if (creds != nullptr) {
    std::shared_ptr<kube::CredentialSource> source = std::move(creds);
    d.token_source = [source]() -> absl::StatusOr<std::string> {
      absl::StatusOr<kube::Credentials> c = source->Get();
      if (!c.ok()) return c.status();
      return c->bearer_token;
    };
  }
  d.tls.client_cert_file = rest.tls.client_cert_file;
  d.tls.client_cert_pem = rest.tls.client_cert_pem;
  d.tls.client_key_file = rest.tls.client_key_file;
  d.tls.client_key_pem = rest.tls.client_key_pem;
  return absl::OkStatus();
}

// --scheduler: its transport and the decisions source over it; nothing without it.
absl::Status AddDecisionsSource(const DashboardFlags& flags, const kube::RestConfig& rest,
                                DashboardClients& clients) {
  if (flags.scheduler.empty()) return absl::OkStatus();
  TRIMARAN_ASSIGN_OR_RETURN(clients.scheduler_transport, http::CurlTransport::Create());
  HttpDecisionsOptions d;
  d.url = flags.scheduler;
  d.tls.ca_file = flags.scheduler_ca_file;
  d.tls.insecure_skip_verify = flags.scheduler_insecure;
  TRIMARAN_RETURN_IF_ERROR(AddSchedulerCredentials(flags, rest, d));
  clients.decisions =
      std::make_unique<HttpDecisionsSource>(*clients.scheduler_transport, std::move(d));
  return absl::OkStatus();
}

absl::StatusOr<DashboardClients> MakeDashboardClients(const DashboardFlags& flags) {
  DashboardClients clients;
  TRIMARAN_ASSIGN_OR_RETURN(clients.prices, dashboard::LoadPrices(flags.nodes.view));
  TRIMARAN_ASSIGN_OR_RETURN(clients.targets, dashboard::ResolveTargets(flags.nodes.view));
  TRIMARAN_ASSIGN_OR_RETURN(
      kube::KubeConnection api,
      kube::ConnectKube({.kubeconfig_path = flags.nodes.kubeconfig,
                         .context = flags.nodes.context,
                         .master_override = flags.nodes.master},
                        "trimaranctl", RealClock::Get(), [](const std::string& w) {
                          std::fprintf(stderr, "trimaranctl dashboard: %s\n", w.c_str());
                        }));
  clients.kube = std::move(api.client);
  TRIMARAN_ASSIGN_OR_RETURN(clients.watcher,
                            MakeWatcherClient(flags.nodes.watcher, flags.nodes.watcher_ca_file,
                                              flags.nodes.watcher_token_file));
  TRIMARAN_RETURN_IF_ERROR(AddDecisionsSource(flags, api.config, clients));
  return clients;
}

DashboardOptions MakeDashboardOptions(const DashboardFlags& flags, DashboardClients& clients,
                                      const std::string& token) {
  DashboardOptions options;
  options.view = flags.nodes.view;
  options.targets = std::move(clients.targets);
  options.history_capacity = static_cast<size_t>(flags.history);
  options.access.token = MakeFixedToken(token);
  options.access.allowed_hosts = flags.allowed_hosts;
  int unused_port = 0;
  (void)ParseListen(flags.listen, options.access.bind_address, unused_port);  // validated
  return options;
}

// The HTTP server on --listen with the service's routes, started.
absl::StatusOr<std::unique_ptr<http::HttpServer>> StartServer(const DashboardFlags& flags,
                                                              DashboardService& service) {
  http::HttpServerOptions server_options;
  server_options.name = "dashboard";
  (void)ParseListen(flags.listen, server_options.address, server_options.port);  // validated
  server_options.worker_threads = 8;
  server_options.index = false;
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<http::HttpServer> server,
                            http::HttpServer::Create(server_options));
  TRIMARAN_RETURN_IF_ERROR(service.AddRoutes(*server, ""));
  if (absl::Status s = server->Start(); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(),
                                               " (is another dashboard running? choose another "
                                               "port with --listen 127.0.0.1:PORT)"));
  }
  return server;
}

// Serves the page until a stop signal; an error when it cannot start.
absl::Status ServeUntilStopped(const DashboardFlags& flags, DashboardClients& clients,
                               const sigset_t& stop_signals) {
  dashboard::InformerClusterSource source(*clients.kube, clients.watcher.client.get(),
                                          flags.nodes.view.node_selector, flags.nodes.view.window,
                                          RealClock::Get(), flags.nodes.view.refresh);
  // The per-start token of the URL printed below (dashboard_guard.h).
  TRIMARAN_ASSIGN_OR_RETURN(const std::string token, RandomToken());
  DashboardService service(source, std::move(clients.prices),
                           MakeDashboardOptions(flags, clients, token), RealClock::Get(),
                           clients.decisions.get());
  TRIMARAN_ASSIGN_OR_RETURN(std::unique_ptr<http::HttpServer> server, StartServer(flags, service));
  // Short waits, retried every refresh: a stop signal is noticed within seconds even
  // while the apiserver is unreachable (the page shows the reason meanwhile).
  service.Start([&source]() -> absl::Status {
    absl::Status s = source.Start(absl::Seconds(2));
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat("waiting for the apiserver (retrying; the log "
                                               "has the reason): ",
                                               s.message()));
  });
  // The token is the URL's: whoever has the URL reads the dashboard (as a notebook
  // server's). The page moves it into a cookie at once.
  std::fprintf(stderr, "trimaranctl dashboard: serving %s/?token=%s (Ctrl-C to stop)\n",
               server->url().c_str(), token.c_str());
  std::fflush(stderr);

  WaitForStopSignal(stop_signals);
  server->Stop();
  service.Stop();
  return absl::OkStatus();
}

}  // namespace

int RunDashboardCommand(const std::vector<std::string>& args, std::string& out, std::string& err) {
  auto fail = [&](absl::string_view message) {
    absl::StrAppend(&err, "trimaranctl dashboard: error: ", message, "\n");
    return 1;
  };
  absl::StatusOr<DashboardFlags> flags = ParseDashboardFlags(args, ReadViewerDefaults());
  if (!flags.ok()) {
    absl::StrAppend(&err, "trimaranctl dashboard: error: ", flags.status().message(),
                    "\nRun 'trimaranctl dashboard --help' for usage.\n");
    return 1;
  }
  if (flags->nodes.help) {
    out += DashboardHelpText();
    return 0;
  }
  SetDashboardLogging(flags->nodes.verbosity);
  absl::StatusOr<DashboardClients> clients = MakeDashboardClients(*flags);
  if (!clients.ok()) return fail(clients.status().message());
  const sigset_t stop_signals = BlockStopSignals();
  if (absl::Status s = ServeUntilStopped(*flags, *clients, stop_signals); !s.ok()) {
    return fail(s.message());
  }
  return 0;
}

std::string DashboardHelpText() {
  return R"(Usage: trimaranctl dashboard [--listen 127.0.0.1:8088] [flags]

Serves a web page with every node's requests, live usage (from the load watcher), price
and usage history, the cluster summary, and (with --scheduler) the scheduler's recent
decisions. The same data as `trimaranctl nodes -o json`, at /api/nodes. One page, no
external assets; it refreshes every --refresh (default 5s). Stops on Ctrl-C / SIGTERM.

Open the URL it prints, http://127.0.0.1:8088/?token=...: the token is new at every
start, and every request needs it (the page keeps it in a cookie; scripts send
"Authorization: Bearer TOKEN"). Requests whose Host is not this server's address
(DNS rebinding) or that come from another origin are refused (403).

Flags:
  --listen HOST:PORT        where to serve (default 127.0.0.1:8088, loopback only)
  --allowed-hosts A,B       host names the page may be reached by besides localhost,
                            loopback and the listen address (a proxy's or DNS name)
  --scheduler URL           the scheduler's secure admin port, https://HOST:10259, for
                            the "Recent decisions" panel (GET /debug/decisions)
  --scheduler-ca-file PATH  CA of the scheduler's serving certificate
  --scheduler-token-file P  bearer token for the scheduler (else the kubeconfig's
                            credentials: token, exec plugin or client certificate)
  --scheduler-insecure-skip-tls-verify  do not verify the scheduler's certificate
  --history N               usage samples kept per node for the charts (default 120)
  Every `trimaranctl nodes` flag except -o: --kubeconfig, --context, --watcher, --window,
  --stale-after, --resources (default cpu,memory), --node-selector, --node-sort,
  --extra-labels, --group-by, --price-file, --spot-discount, --disable-pricing,
  --hot-threshold, --target-utilization, --scheduler-config, --refresh, --v.
  See `trimaranctl nodes --help`.
)";
}

}  // namespace trimaran::cmd::trimaranctl::nodes
