// load-watcher: the load watcher daemon (issue 6), the scheduler pod's second container.
// Configuration: options.h (paypal/load-watcher's environment variables + flags).
//
//   REST  --bind-address:--port (2020)   GET /watcher[?host=][&window=], /watcher/health,
//                                        /metrics (Prometheus text), /healthz, /livez,
//                                        /readyz (provider health)
//   gRPC  --bind-address:--grpc-port (2021)  trimaran.loadwatcher.v1.LoadWatcher
//   --dashboard: also the node dashboard at /dashboard/ on the REST port
//                (dashboard/web/service.h; list/watch nodes and pods),
//                behind its own checks (dashboard/web/guard.h): Host and
//                Origin, and a token: --token-file's when set (the same secret as the
//                API, taken as ?token=, a cookie or the bearer header, so a browser can
//                use it), else a random one made at start and logged with the URL.
//
// --tls-cert-file/--tls-private-key-file: HTTPS and TLS gRPC, the files re-read when
// they change (REST at each handshake, gRPC every --tls-reload-interval).
// --token-file: a bearer token on both APIs (loadwatcher/api_auth.h).
//
// SIGTERM / SIGINT: stop serving, stop the watcher, exit 0. Startup and configuration
// errors exit 1 with the reason on stderr.
#include <malloc.h>
#include <signal.h>

#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "cmd/load-watcher/options.h"
#include "common/clock.h"
#include "common/http/http_server.h"
#include "common/logging.h"
#include "common/stats/process_metrics.h"
#include "common/stats/registry.h"
#include "common/stats/scope.h"
#include "common/stats/text_format.h"
#include "common/status_macros.h"
#include "common/stop_signals.h"
#include "common/version.h"
#include "dashboard/informer_source.h"
#include "dashboard/web/guard.h"
#include "dashboard/web/load_watcher_dashboard.h"
#include "dashboard/web/service.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"
#include "loadwatcher/api_auth.h"
#include "loadwatcher/grpc_server_limits.h"
#include "loadwatcher/grpc_service.h"
#include "loadwatcher/http_handlers.h"
#include "providers/provider_source_pool.h"

namespace trimaran::cmd {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "load-watcher: %s\n", message.c_str());
  return 1;
}

// The kube client when a kubeconfig is given or the process runs in a pod; null
// otherwise. Errors only for a kubeconfig/in-cluster config that is there but broken.
// Its request metrics go to `stats`.
absl::StatusOr<std::unique_ptr<kube::Client>> MakeKubeClient(const LoadWatcherOptions& options,
                                                             const stats::Scope& stats) {
  absl::StatusOr<kube::RestConfig> config;
  if (!options.kubeconfig.empty()) {
    config = kube::LoadKubeconfig(options.kubeconfig);
  } else if (!ProcessEnv("KUBERNETES_SERVICE_HOST").value_or("").empty()) {
    config = kube::LoadInClusterConfig();
  } else {
    return std::unique_ptr<kube::Client>();
  }
  if (!config.ok()) return config.status();
  kube::RestClientOptions client_options;
  client_options.stats = stats;
  absl::StatusOr<std::unique_ptr<kube::RestClient>> client =
      kube::RestClient::Create(*config, RealClock::Get(), client_options);
  if (!client.ok()) return client.status();
  return std::unique_ptr<kube::Client>(*std::move(client));
}

std::string HostPort(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? absl::StrCat("[", host, "]:", port)
                                             : absl::StrCat(host, ":", port);
}

bool IsDashboardPath(const std::string& path) {
  return path == "/dashboard" || absl::StartsWith(path, "/dashboard/");
}

// Who may read --dashboard: the load watcher's own token when --token-file is set,
// else a random one made now (`random_token` gets it, to be logged with the URL).
absl::StatusOr<dashboard::web::DashboardAccess> DashboardAccessFor(
    const LoadWatcherOptions& options, std::string& random_token) {
  namespace web = dashboard::web;
  web::DashboardAccess access;
  access.bind_address = options.bind_address;
  access.allowed_hosts = options.dashboard_allowed_hosts;
  access.tls = !options.tls_cert_file.empty();
  if (!options.token_file.empty()) {
    access.token = web::MakeTokenFileSource(options.token_file);
    return access;
  }
  absl::StatusOr<std::string> token = web::RandomToken();
  if (!token.ok()) return token.status();
  random_token = *token;
  access.token = web::MakeFixedToken(*token);
  return access;
}

// The daemon's parts, declared in the order Start makes them, so that they are destroyed
// in reverse, as the locals of one function would be. Each step that can fail returns
// the reason Run prints (Fail) before it exits 1.
class LoadWatcher {
 public:
  explicit LoadWatcher(const LoadWatcherOptions& options) : options_(options) {}

  // Stats, clients, the watchers' pool, the REST server and its routes, the dashboard,
  // then serving (REST, dashboard, gRPC); the first error stops the list.
  absl::Status Start();
  // The streams, the servers, the dashboard, then the watchers.
  void Stop();

 private:
  void RegisterStats();
  absl::Status CreateKubeClient();
  absl::Status CreatePool();
  absl::Status CreateServer();
  absl::Status AddRoutes();
  absl::Status CreateDashboard();
  absl::Status StartServer();
  absl::Status StartGrpc();
  void LogServing() const;
  http::HttpServerOptions ServerOptions() const;
  void ProtectApi(http::HttpServerOptions& server_options);
  void StartDashboard();
  std::shared_ptr<grpc::ServerCredentials> GrpcCredentials() const;

  const LoadWatcherOptions& options_;
  // Stats: the components name their families relative to these scopes, the only
  // prefixes (docs/metrics.md lists every family /metrics serves).
  stats::Registry& registry_ = stats::DefaultRegistry();
  const stats::Scope rest_client_stats_{registry_, "rest_client_"};       // client-go's names
  const stats::Scope watcher_stats_{registry_, "trimaran_loadwatcher_"};  // ours
  std::unique_ptr<kube::Client> kube_client_;  // null without a Kubernetes API
  std::unique_ptr<providers::ProviderSourcePool> pool_;
  lw::Watcher* watcher_ = nullptr;              // the pool's, for options_.provider
  std::unique_ptr<lw::ApiAuthenticator> auth_;  // with --token-file
  std::unique_ptr<http::HttpServer> server_;
  // --dashboard: the node dashboard over this process's own watcher (no network hop).
  std::unique_ptr<dashboard::InformerClusterSource> dashboard_source_;
  std::unique_ptr<dashboard::web::DashboardService> dashboard_;
  std::string dashboard_token_;  // the random one (none with --token-file)
  std::unique_ptr<lw::GrpcService> service_;
  std::unique_ptr<grpc::Server> grpc_server_;  // with --grpc-port
};

absl::Status LoadWatcher::Start() {
  RegisterStats();
  TRIMARAN_RETURN_IF_ERROR(CreateKubeClient());
  TRIMARAN_RETURN_IF_ERROR(CreatePool());
  TRIMARAN_RETURN_IF_ERROR(CreateServer());
  TRIMARAN_RETURN_IF_ERROR(AddRoutes());
  TRIMARAN_RETURN_IF_ERROR(CreateDashboard());
  TRIMARAN_RETURN_IF_ERROR(StartServer());
  TRIMARAN_RETURN_IF_ERROR(StartGrpc());
  LogServing();
  return absl::OkStatus();
}

void LoadWatcher::RegisterStats() {
  stats::RegisterProcessMetrics(registry_);
  stats::RegisterBuildInfo(registry_, "trimaran_");
}

absl::Status LoadWatcher::CreateKubeClient() {
  absl::StatusOr<std::unique_ptr<kube::Client>> kube_client =
      MakeKubeClient(options_, rest_client_stats_);
  if (!kube_client.ok()) return Annotate(kube_client.status(), "Kubernetes client");
  kube_client_ = *std::move(kube_client);
  if (kube_client_ == nullptr && options_.provider.type == "KubernetesMetricsServer") {
    return absl::FailedPreconditionError(
        "KubernetesMetricsServer needs the Kubernetes API: give --kubeconfig (KUBE_CONFIG) or "
        "run in a pod (in-cluster config)");
  }
  return absl::OkStatus();
}

absl::Status LoadWatcher::CreatePool() {
  providers::ProviderSourcePoolOptions pool_options;
  pool_options.watcher.fetch_interval = options_.fetch_interval;
  pool_options.watcher.history_size = options_.history_size;
  pool_options.extras = options_.provider_extras;
  pool_ = std::make_unique<providers::ProviderSourcePool>(RealClock::Get(), watcher_stats_,
                                                          kube_client_.get(), pool_options);
  if (absl::StatusOr<lw::Client*> client = pool_->InProcess(options_.provider); !client.ok()) {
    return client.status();
  }
  watcher_ = pool_->FindWatcher(options_.provider);
  return absl::OkStatus();
}

http::HttpServerOptions LoadWatcher::ServerOptions() const {
  http::HttpServerOptions server_options;
  server_options.name = "watcher";
  server_options.address = options_.bind_address;
  server_options.port = options_.port;
  server_options.worker_threads = 4;
  // A slow reader cannot hold one of the 4 workers: a request must arrive within the
  // read timeout and each write of the answer must progress within the write timeout
  // (then the connection is closed).
  server_options.read_timeout = absl::Seconds(10);
  server_options.write_timeout = absl::Seconds(10);
  server_options.log_component = Component::kLoadWatcher;
  server_options.tls_cert_file = options_.tls_cert_file;
  server_options.tls_key_file = options_.tls_private_key_file;
  return server_options;
}

// --token-file: the bearer token on the REST API (the dashboard's paths aside).
void LoadWatcher::ProtectApi(http::HttpServerOptions& server_options) {
  auth_ = std::make_unique<lw::ApiAuthenticator>(options_.token_file, watcher_stats_);
  auth_->ProtectHttp(server_options);
  if (options_.dashboard) {
    // The dashboard checks the same token itself (as a bearer header, but also as
    // ?token= and its cookie, which is what a browser can send), with its Host and
    // Origin checks first.
    server_options.request_filter = [api = std::move(server_options.request_filter)](
                                        const http::ServerRequest& request,
                                        http::ServerResponse& response) {
      return IsDashboardPath(request.path) || api(request, response);
    };
  }
  if (options_.tls_cert_file.empty()) {
    Log(Component::kMain)
        .warn("--token-file without --tls-cert-file: clients send the token in clear text");
  }
}

absl::Status LoadWatcher::CreateServer() {
  http::HttpServerOptions server_options = ServerOptions();
  if (!options_.token_file.empty()) ProtectApi(server_options);
  absl::StatusOr<std::unique_ptr<http::HttpServer>> server =
      http::HttpServer::Create(server_options);
  if (!server.ok()) return server.status();
  server_ = *std::move(server);
  return absl::OkStatus();
}

// /watcher, /metrics, and the probes.
absl::Status LoadWatcher::AddRoutes() {
  TRIMARAN_RETURN_IF_ERROR(lw::AddWatcherRoutes(*watcher_, *server_));
  absl::Status routes =
      server_->AddRoute({.path = "/metrics",
                         .help = "Prometheus metrics of the load watcher",
                         .handler = [&registry = registry_](const http::ServerRequest&,
                                                            http::ServerResponse& response) {
                           response.content_type = stats::kPrometheusTextContentType;
                           response.body = registry.PrometheusText();
                         }});
  // The probes, open to the kubelet: a provider that does not answer (no metrics-server
  // on EKS, Prometheus down) makes the watcher degraded, not unready (lw::ReadyzBody).
  for (http::Route& route : lw::ProbeRoutes(*watcher_)) {
    routes.Update(server_->AddRoute(std::move(route)));
  }
  return routes;
}

// --dashboard: its service and routes under /dashboard; nothing without the flag.
absl::Status LoadWatcher::CreateDashboard() {
  if (!options_.dashboard) return absl::OkStatus();
  if (kube_client_ == nullptr) {
    return absl::FailedPreconditionError(
        "--dashboard needs the Kubernetes API (list/watch nodes and pods): give --kubeconfig "
        "or run in a pod");
  }
  absl::StatusOr<dashboard::web::DashboardAccess> access =
      DashboardAccessFor(options_, dashboard_token_);
  if (!access.ok()) return Annotate(access.status(), "--dashboard");
  absl::StatusOr<std::unique_ptr<dashboard::web::DashboardService>> d =
      dashboard::web::MakeLoadWatcherDashboard(*kube_client_, *pool_->InProcess(options_.provider),
                                               *std::move(access), dashboard_source_);
  if (!d.ok()) return Annotate(d.status(), "--dashboard");
  dashboard_ = *std::move(d);
  return dashboard_->AddRoutes(*server_, "/dashboard");
}

// The REST server, then the dashboard's refreshes.
absl::Status LoadWatcher::StartServer() {
  TRIMARAN_RETURN_IF_ERROR(server_->Start());
  if (dashboard_ != nullptr) StartDashboard();
  return absl::OkStatus();
}

void LoadWatcher::StartDashboard() {
  // The URL to open (through kubectl port-forward, usually): with --token-file its
  // token, else the random one, which only this log shows.
  Log(Component::kMain)
      .info("dashboard: open {}/dashboard/?token={}", server_->url(),
            dashboard_token_.empty() ? std::string("<the --token-file token>") : dashboard_token_);
  // Short waits, retried every refresh, so that SIGTERM is never held up by the list.
  dashboard_->Start([this]() -> absl::Status {
    absl::Status s = dashboard_source_->Start(absl::Seconds(2));
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat("waiting for the apiserver (retrying; the log "
                                               "has the reason): ",
                                               s.message()));
  });
}

std::shared_ptr<grpc::ServerCredentials> LoadWatcher::GrpcCredentials() const {
  if (options_.tls_cert_file.empty()) return grpc::InsecureServerCredentials();
  // gRPC's own file watcher re-reads the pair every --tls-reload-interval.
  auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      options_.tls_private_key_file, options_.tls_cert_file,
      static_cast<unsigned int>(absl::ToInt64Seconds(options_.tls_reload_interval)));
  grpc::experimental::TlsServerCredentialsOptions tls(provider);
  tls.watch_identity_key_cert_pairs();
  return grpc::experimental::TlsServerCredentials(tls);
}

// The gRPC service (made even without --grpc-port, as Stop shuts it down), and its
// server with --grpc-port.
absl::Status LoadWatcher::StartGrpc() {
  service_ = std::make_unique<lw::GrpcService>(*watcher_);
  if (auth_ != nullptr) service_->RequireAuth(auth_.get());
  if (options_.grpc_port == 0) return absl::OkStatus();
  std::shared_ptr<grpc::ServerCredentials> credentials = GrpcCredentials();
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort(HostPort(options_.bind_address, options_.grpc_port), credentials,
                           &bound);
  builder.RegisterService(service_.get());
  lw::ApplyGrpcServerLimits(lw::GrpcServerLimits{}, builder);
  grpc_server_ = builder.BuildAndStart();
  if (grpc_server_ == nullptr || bound == 0) {
    return absl::UnavailableError(absl::StrCat(
        "gRPC: cannot listen on ", HostPort(options_.bind_address, options_.grpc_port)));
  }
  return absl::OkStatus();
}

void LoadWatcher::LogServing() const {
  Log(Component::kMain)
      .info("load-watcher {} serving provider={} rest={} grpc={} token={}", kVersion,
            options_.provider.type, server_->url(),
            options_.grpc_port == 0
                ? std::string("off")
                : absl::StrCat(options_.tls_cert_file.empty() ? "" : "tls:",
                               HostPort(options_.bind_address, options_.grpc_port)),
            options_.token_file.empty() ? "off" : "required");
}

void LoadWatcher::Stop() {
  service_->Shutdown();
  if (grpc_server_ != nullptr) {
    grpc_server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
  }
  server_->Stop();
  if (dashboard_ != nullptr) dashboard_->Stop();
  dashboard_.reset();
  dashboard_source_.reset();
  pool_->Stop();
}

int Run(const LoadWatcherOptions& options) {
  const sigset_t stop_signals = BlockStopSignals();
  LoadWatcher daemon(options);
  if (absl::Status s = daemon.Start(); !s.ok()) return Fail(std::string(s.message()));
  const int signal_number = WaitForStopSignal(stop_signals);
  Log(Component::kMain).info("received signal {}, shutting down", signal_number);
  daemon.Stop();
  Log(Component::kMain).info("stopped");
  return 0;
}

}  // namespace
}  // namespace trimaran::cmd

int main(int argc, char** argv) {
  // Few malloc arenas: snapshots are built on the watcher thread and freed on whichever
  // thread drops the last reference, and per-thread arenas then keep freed memory
  // around. Two arenas keep the peak RSS with 5,000 nodes near the data's own size.
  mallopt(M_ARENA_MAX, 2);
  absl::StatusOr<trimaran::cmd::LoadWatcherOptions> options =
      trimaran::cmd::ParseLoadWatcherOptions(argc, argv, trimaran::cmd::ProcessEnv);
  if (!options.ok()) {
    std::fprintf(stderr, "Error: %s\n\nRun 'load-watcher --help' for usage.\n",
                 std::string(options.status().message()).c_str());
    return 1;
  }
  if (options->help) {
    std::fputs(trimaran::cmd::LoadWatcherHelpText().c_str(), stdout);
    return 0;
  }
  if (options->version) {
    std::printf("load-watcher %s\n", trimaran::kVersion);
    return 0;
  }
  (void)trimaran::SetLoggingFormat(options->logging_format);  // validated by the parser
  trimaran::SetVerbosity(options->verbosity);
  for (const std::string& warning : options->warnings) {
    trimaran::Log(trimaran::Component::kMain).warn("{}", warning);
  }
  return trimaran::cmd::Run(*options);
}
