#include "scheduler/server/admin_server.h"

#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/logging.h"
#include "common/stats/text_format.h"
#include "common/status_macros.h"

namespace trimaran::sched {
namespace {

constexpr char kTextPlain[] = "text/plain; charset=utf-8";

void SetPlain(http::ServerResponse& response) {
  response.content_type = kTextPlain;
  response.headers.Add("X-Content-Type-Options", "nosniff");
}

}  // namespace

absl::StatusOr<std::unique_ptr<AdminServer>> AdminServer::Create(AdminServerOptions options,
                                                                 stats::Registry* registry,
                                                                 const HealthChecks* checks,
                                                                 ConfigzFn configz) {
  if (registry == nullptr || checks == nullptr) {
    return absl::InvalidArgumentError("admin server: registry and health checks are required");
  }
  if (options.cert_file.empty() || options.key_file.empty()) {
    return absl::InvalidArgumentError(
        "admin server: a TLS certificate and key are required (HTTPS only)");
  }
  http::HttpServerOptions server_options;
  server_options.name = "admin";
  server_options.address = options.bind_address;
  server_options.port = options.port;
  server_options.tls_cert_file = options.cert_file;
  server_options.tls_key_file = options.key_file;
  server_options.worker_threads = options.worker_threads;
  server_options.keep_alive_timeout = options.keep_alive_timeout;
  server_options.tls_min_version = options.tls_min_version;
  server_options.index = options.authorizer == nullptr;
  server_options.log_component = Component::kAdmin;
  TRIMARAN_ASSIGN_OR_RETURN(http::HttpServerPtr server,
                            http::HttpServer::Create(std::move(server_options)));
  std::unique_ptr<AdminServer> admin(
      new AdminServer(std::move(server), registry, checks, std::move(configz), options.authorizer));
  TRIMARAN_RETURN_IF_ERROR(admin->AddRoutes());
  return admin;
}

AdminServer::AdminServer(std::unique_ptr<http::HttpServer> server, stats::Registry* registry,
                         const HealthChecks* checks, ConfigzFn configz,
                         const RequestAuthorizer* authorizer)
    : server_(std::move(server)),
      registry_(registry),
      checks_(checks),
      configz_(std::move(configz)),
      authorizer_(authorizer) {}

absl::Status AdminServer::AddGuardedRoute(http::Route route) {
  if (authorizer_ != nullptr) {
    route.handler = [authorizer = authorizer_, inner = std::move(route.handler)](
                        const http::ServerRequest& req, http::ServerResponse& res) {
      const AuthDecision decision = authorizer->Check(req);
      if (!decision.allowed()) {
        res.status = decision.status;
        res.content_type = "text/plain; charset=utf-8";
        res.headers.Add("X-Content-Type-Options", "nosniff");
        if (decision.status == 429) res.headers.Add("Retry-After", "1");
        res.body = decision.message;
        return;
      }
      inner(req, res);
    };
  }
  return server_->AddRoute(std::move(route));
}

AdminServer::~AdminServer() { Stop(); }

absl::Status AdminServer::Start() { return server_->Start(); }
void AdminServer::Stop() { server_->Stop(); }

void AdminServer::SetReadyzNote(std::function<std::string()> fn) {
  absl::MutexLock lock(&mu_);
  readyz_note_ = std::move(fn);
}

void AdminServer::SetDebugCacheHandler(DebugTextFn fn) {
  absl::MutexLock lock(&mu_);
  debug_cache_ = std::move(fn);
}

void AdminServer::SetDebugDecisionsHandler(http::RouteHandler fn) {
  absl::MutexLock lock(&mu_);
  debug_decisions_ = std::move(fn);
}

absl::Status AdminServer::AddRoutes() {
  for (HealthEndpoint endpoint : {kHealthz, kLivez, kReadyz}) {
    const std::string name(HealthEndpointName(endpoint));
    TRIMARAN_RETURN_IF_ERROR(AddGuardedRoute(
        {.path = absl::StrCat("/", name),
         .help = absl::StrCat(name, " checks (?verbose, ?exclude=<check>)"),
         .handler = [this, endpoint](const http::ServerRequest& req, http::ServerResponse& res) {
           ServeHealth(endpoint, req, res);
         }}));
    TRIMARAN_RETURN_IF_ERROR(AddGuardedRoute(
        {.path = absl::StrCat("/", name, "/"),
         .prefix = true,
         .help = absl::StrCat("one ", name, " check: /", name, "/<check>"),
         .handler = [this, endpoint](const http::ServerRequest& req, http::ServerResponse& res) {
           ServeOneCheck(endpoint, req, res);
         }}));
  }
  TRIMARAN_RETURN_IF_ERROR(
      AddGuardedRoute({.path = "/metrics",
                       .help = "Prometheus metrics",
                       .handler = [this](const http::ServerRequest&, http::ServerResponse& res) {
                         res.content_type = stats::kPrometheusTextContentType;
                         res.body = registry_->PrometheusText();
                       }}));
  TRIMARAN_RETURN_IF_ERROR(
      AddGuardedRoute({.path = "/configz",
                       .help = "the effective configuration (JSON)",
                       .handler = [this](const http::ServerRequest&, http::ServerResponse& res) {
                         absl::StatusOr<std::string> json =
                             configz_ ? configz_()
                                      : absl::StatusOr<std::string>(
                                            absl::UnavailableError("no configuration registered"));
                         if (!json.ok()) {
                           SetPlain(res);
                           res.status = 500;
                           res.body = absl::StrCat("configz: ", json.status().message(), "\n");
                           return;
                         }
                         res.content_type = "application/json";
                         res.headers.Add("X-Content-Type-Options", "nosniff");
                         res.body = absl::StrCat("{\"componentconfig\":", *json, "}");
                       }}));
  TRIMARAN_RETURN_IF_ERROR(AddGuardedRoute(
      {.path = "/debug/cache",
       .help = "scheduler cache dump",
       .handler = [this](const http::ServerRequest& req, http::ServerResponse& res) {
         DebugTextFn fn;
         {
           absl::MutexLock lock(&mu_);
           fn = debug_cache_;
         }
         SetPlain(res);
         if (!fn) {
           res.status = 404;
           res.body = "no cache dump available\n";
           return;
         }
         res.body = fn(req);
       }}));
  TRIMARAN_RETURN_IF_ERROR(AddGuardedRoute(
      {.path = "/debug/decisions",
       .help = "recent scheduling decisions (JSON; ?pod=NAMESPACE/NAME, ?limit=N)",
       .handler = [this](const http::ServerRequest& req, http::ServerResponse& res) {
         http::RouteHandler fn;
         {
           absl::MutexLock lock(&mu_);
           fn = debug_decisions_;
         }
         if (!fn) {
           SetPlain(res);
           res.status = 404;
           res.body = "no decisions available\n";
           return;
         }
         fn(req, res);
       }}));
  return absl::OkStatus();
}

void AdminServer::ServeHealth(HealthEndpoint endpoint, const http::ServerRequest& request,
                              http::ServerResponse& response) const {
  const absl::string_view name = HealthEndpointName(endpoint);
  std::set<std::string> exclude;
  for (auto [it, end] = request.query.equal_range("exclude"); it != end; ++it) {
    exclude.insert(it->second);
  }
  std::set<std::string> unmatched = exclude;
  std::string lines;
  std::vector<std::string> failed;
  std::string failed_reasons;
  for (const HealthChecks::Result& r : checks_->Run(endpoint, exclude)) {
    unmatched.erase(r.name);
    if (r.excluded) {
      absl::StrAppend(&lines, "[+]", r.name, " excluded: ok\n");
    } else if (r.status.ok()) {
      absl::StrAppend(&lines, "[+]", r.name, " ok\n");
    } else {
      absl::StrAppend(&lines, "[-]", r.name, " failed: reason withheld\n");
      absl::StrAppend(&failed_reasons, "[-]", r.name, " failed: ", r.status.message(), "\n");
      failed.push_back(r.name);
    }
  }
  if (!unmatched.empty()) {
    std::vector<std::string> quoted;
    for (const std::string& u : unmatched) quoted.push_back(absl::StrCat("\"", u, "\""));
    absl::StrAppend(&lines, "warn: some health checks cannot be excluded: no matches for ",
                    absl::StrJoin(quoted, ","), "\n");
  }
  SetPlain(response);
  if (!failed.empty()) {
    if (VLogIsOn(2)) {
      Log(Component::kAdmin)
          .info("{} check failed: {}\n{}", absl::StrJoin(failed, ","), name, failed_reasons);
    }
    response.status = 500;
    response.body = absl::StrCat(lines, name, " check failed\n");
    return;
  }
  if (!request.HasQuery("verbose")) {
    response.body = "ok";
    return;
  }
  if (endpoint == kReadyz) {
    std::function<std::string()> note;
    {
      absl::MutexLock lock(&mu_);
      note = readyz_note_;
    }
    if (note) absl::StrAppend(&lines, note(), "\n");
  }
  response.body = absl::StrCat(lines, name, " check passed\n");
}

void AdminServer::ServeOneCheck(HealthEndpoint endpoint, const http::ServerRequest& request,
                                http::ServerResponse& response) const {
  const std::string prefix = absl::StrCat("/", HealthEndpointName(endpoint), "/");
  const absl::string_view check = absl::string_view(request.path).substr(prefix.size());
  SetPlain(response);
  std::optional<absl::Status> status = checks_->RunOne(endpoint, check);
  if (!status.has_value()) {
    response.status = 404;
    response.body = "404 page not found\n";
    return;
  }
  if (!status->ok()) {
    response.status = 500;
    response.body = absl::StrCat("internal server error: ", status->message(), "\n");
    return;
  }
  response.body = "ok";
}

}  // namespace trimaran::sched
