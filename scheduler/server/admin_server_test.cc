#include "scheduler/server/admin_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "common/http/self_signed.h"
#include "common/stats/text_format.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::sched {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

TEST(HealthChecksTest, PingIsEverywhereAndAddValidates) {
  HealthChecks checks;
  EXPECT_THAT(checks.Names(kHealthz), ElementsAre("ping"));
  EXPECT_THAT(checks.Names(kLivez), ElementsAre("ping"));
  EXPECT_THAT(checks.Names(kReadyz), ElementsAre("ping"));
  auto ok = [] { return absl::OkStatus(); };
  EXPECT_THAT(checks.Add("shutdown", kReadyz, ok), IsOk());
  EXPECT_THAT(checks.Add("leaderElection", kHealthz | kReadyz, ok), IsOk());
  EXPECT_THAT(checks.Names(kReadyz), ElementsAre("ping", "shutdown", "leaderElection"));
  EXPECT_THAT(checks.Names(kHealthz), ElementsAre("ping", "leaderElection"));
  EXPECT_THAT(checks.Names(kLivez), ElementsAre("ping"));

  EXPECT_THAT(checks.Add("ping", kLivez, ok), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(checks.Add("", kLivez, ok), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(checks.Add("a/b", kLivez, ok), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(checks.Add("x", 0, ok), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(checks.Add("x", 8, ok), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(checks.Add("x", kLivez, nullptr), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(checks.RunOne(kLivez, "shutdown"), std::nullopt);  // readyz only
}

// A running admin server over HTTPS with a self-signed certificate, and a client that
// trusts it. Checks: ping (all), leaderElection (healthz, readyz), shutdown and
// sched-handler-sync (readyz), the last one settable.
class AdminServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string tmpl = ::testing::TempDir() + "trimaran_admin_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    absl::StatusOr<http::ServingCertFiles> files =
        http::EnsureSelfSignedCert(tmpl, {.hosts = {"localhost", "127.0.0.1"}});
    ASSERT_TRUE(files.ok()) << files.status();
    files_ = new http::ServingCertFiles(*files);
  }
  static void TearDownTestSuite() {
    delete files_;
    files_ = nullptr;
  }

  void SetUp() override {
    auto ok = [] { return absl::OkStatus(); };
    ASSERT_THAT(checks_.Add("leaderElection", kHealthz | kReadyz, ok), IsOk());
    ASSERT_THAT(checks_.Add("shutdown", kReadyz, ok), IsOk());
    ASSERT_THAT(checks_.Add("sched-handler-sync", kReadyz, sync_.AsCheck()), IsOk());
    registry_.CounterFamily("scheduler_schedule_attempts_total", "Attempts.", {"result"})
        .WithLabels({"scheduled"})
        .Inc();
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        server_, AdminServer::Create({.bind_address = "127.0.0.1",
                                      .port = 0,
                                      .cert_file = files_->cert_file,
                                      .key_file = files_->key_file,
                                      .worker_threads = 4},
                                     &registry_, &checks_, [this] { return Configz(); }));
    ASSERT_THAT(server_->Start(), IsOk());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        client_, http::CurlTransport::Create({.tls = {.ca_file = files_->cert_file}}));
  }

  absl::StatusOr<std::string> Configz() {
    absl::MutexLock lock(&mu_);
    return configz_;
  }

  http::HttpResponse Get(const std::string& path_and_query) {
    absl::StatusOr<http::HttpResponse> resp =
        client_->Send({.url = absl::StrCat("https://localhost:", server_->port(), path_and_query)});
    EXPECT_TRUE(resp.ok()) << resp.status();
    return resp.ok() ? *resp : http::HttpResponse{};
  }

  static http::ServingCertFiles* files_;
  stats::Registry registry_;
  HealthChecks checks_;
  SettableCheck sync_{absl::UnavailableError("waiting for handlers to sync")};
  absl::Mutex mu_;
  absl::StatusOr<std::string> configz_ ABSL_GUARDED_BY(mu_) = std::string("{\"parallelism\":16}");
  std::unique_ptr<AdminServer> server_;
  std::unique_ptr<http::CurlTransport> client_;
};

http::ServingCertFiles* AdminServerTest::files_ = nullptr;

struct HealthCase {
  std::string path;
  int status;
  std::string body;
};

void ExpectResponses(AdminServerTest* /*unused*/, const std::vector<HealthCase>& cases,
                     const std::function<http::HttpResponse(const std::string&)>& get) {
  for (const HealthCase& c : cases) {
    SCOPED_TRACE(c.path);
    http::HttpResponse r = get(c.path);
    EXPECT_EQ(r.status_code, c.status);
    EXPECT_EQ(r.body, c.body);
    EXPECT_THAT(r.headers.GetOr("Content-Type"), HasSubstr("text/plain"));
    EXPECT_EQ(r.headers.GetOr("X-Content-Type-Options"), "nosniff");
  }
}

TEST_F(AdminServerTest, HealthEndpointsBeforeAndAfterSync) {
  auto get = [this](const std::string& p) { return Get(p); };
  // Not synced yet: readyz fails, healthz and livez do not include the check.
  ExpectResponses(
      this,
      {
          {"/healthz", 200, "ok"},
          {"/livez", 200, "ok"},
          {"/livez?verbose", 200, "[+]ping ok\nlivez check passed\n"},
          {"/healthz?verbose=1", 200, "[+]ping ok\n[+]leaderElection ok\nhealthz check passed\n"},
          {"/readyz", 500,
           "[+]ping ok\n[+]leaderElection ok\n[+]shutdown ok\n"
           "[-]sched-handler-sync failed: reason withheld\nreadyz check failed\n"},
          {"/readyz?exclude=sched-handler-sync", 200, "ok"},
          {"/readyz?exclude=sched-handler-sync&exclude=nope&verbose", 200,
           "[+]ping ok\n[+]leaderElection ok\n[+]shutdown ok\n"
           "[+]sched-handler-sync excluded: ok\n"
           "warn: some health checks cannot be excluded: no matches for \"nope\"\n"
           "readyz check passed\n"},
          {"/readyz/sched-handler-sync", 500,
           "internal server error: waiting for handlers to sync\n"},
          {"/readyz/ping", 200, "ok"},
          {"/readyz/nope", 404, "404 page not found\n"},
          {"/livez/sched-handler-sync", 404, "404 page not found\n"},
      },
      get);
  sync_.Set(absl::OkStatus());
  ExpectResponses(this,
                  {
                      {"/readyz", 200, "ok"},
                      {"/readyz?verbose", 200,
                       "[+]ping ok\n[+]leaderElection ok\n[+]shutdown ok\n"
                       "[+]sched-handler-sync ok\nreadyz check passed\n"},
                      {"/readyz/sched-handler-sync", 200, "ok"},
                  },
                  get);
  // The daemon's leadership note: informational, in verbose output only.
  server_->SetReadyzNote([] { return std::string("leader-election: standby"); });
  ExpectResponses(
      this,
      {
          {"/readyz", 200, "ok"},
          {"/readyz?verbose", 200,
           "[+]ping ok\n[+]leaderElection ok\n[+]shutdown ok\n"
           "[+]sched-handler-sync ok\nleader-election: standby\nreadyz check passed\n"},
          {"/healthz?verbose", 200, "[+]ping ok\n[+]leaderElection ok\nhealthz check passed\n"},
      },
      get);
}

TEST_F(AdminServerTest, MetricsConfigzAndDebugCache) {
  http::HttpResponse metrics = Get("/metrics");
  EXPECT_EQ(metrics.status_code, 200);
  EXPECT_EQ(metrics.headers.GetOr("Content-Type"), stats::kPrometheusTextContentType);
  EXPECT_THAT(metrics.body, HasSubstr("scheduler_schedule_attempts_total{result=\"scheduled\"} 1"));

  http::HttpResponse configz = Get("/configz");
  EXPECT_EQ(configz.status_code, 200);
  EXPECT_THAT(configz.headers.GetOr("Content-Type"), HasSubstr("application/json"));
  EXPECT_EQ(configz.body, "{\"componentconfig\":{\"parallelism\":16}}");
  {
    absl::MutexLock lock(&mu_);
    configz_ = absl::InternalError("boom");
  }
  configz = Get("/configz");
  EXPECT_EQ(configz.status_code, 500);
  EXPECT_EQ(configz.body, "configz: boom\n");

  http::HttpResponse cache = Get("/debug/cache");
  EXPECT_EQ(cache.status_code, 404);
  server_->SetDebugCacheHandler(
      [](const http::ServerRequest& req) { return absl::StrCat("nodes=3 q=", req.Query("q")); });
  cache = Get("/debug/cache?q=x");
  EXPECT_EQ(cache.status_code, 200);
  EXPECT_EQ(cache.body, "nodes=3 q=x");

  http::HttpResponse decisions = Get("/debug/decisions");
  EXPECT_EQ(decisions.status_code, 404);
  server_->SetDebugDecisionsHandler([](const http::ServerRequest& req, http::ServerResponse& res) {
    if (req.Query("limit") == "x") {
      res.status = 400;
      res.body = "invalid limit\n";
      return;
    }
    res.content_type = "application/json";
    res.body = absl::StrCat("{\"pod\":\"", req.Query("pod"), "\"}");
  });
  decisions = Get("/debug/decisions?pod=ns/p");
  EXPECT_EQ(decisions.status_code, 200);
  EXPECT_EQ(decisions.headers.GetOr("Content-Type"), "application/json");
  EXPECT_EQ(decisions.body, "{\"pod\":\"ns/p\"}");
  EXPECT_EQ(Get("/debug/decisions?limit=x").status_code, 400);

  EXPECT_EQ(Get("/nope").status_code, 404);
}

// Lets requests carrying "Authorization: Bearer ok" through; probes always.
class TokenOkAuthorizer final : public RequestAuthorizer {
 public:
  AuthDecision Check(const http::ServerRequest& request) const override {
    if (request.path == "/healthz") return {};
    if (request.headers.GetOr("Authorization") == "Bearer ok") return {.user = "ok"};
    return {.status = 401, .message = "Unauthorized\n"};
  }
};

TEST_F(AdminServerTest, AuthorizerGuardsEveryRouteButItsOpenPaths) {
  TokenOkAuthorizer authorizer;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<AdminServer> guarded,
      AdminServer::Create({.bind_address = "127.0.0.1",
                           .port = 0,
                           .cert_file = files_->cert_file,
                           .key_file = files_->key_file,
                           .authorizer = &authorizer},
                          &registry_, &checks_, [this] { return Configz(); }));
  ASSERT_THAT(guarded->Start(), IsOk());
  auto get = [&](const std::string& path, const std::string& token) {
    http::HttpRequest req{.url = absl::StrCat("https://localhost:", guarded->port(), path)};
    if (!token.empty()) req.headers.Add("Authorization", "Bearer " + token);
    absl::StatusOr<http::HttpResponse> resp = client_->Send(req);
    EXPECT_TRUE(resp.ok()) << resp.status();
    return resp.ok() ? *resp : http::HttpResponse{};
  };
  EXPECT_EQ(get("/healthz", "").status_code, 200);
  for (const char* path :
       {"/metrics", "/configz", "/readyz", "/debug/cache", "/debug/decisions", "/livez/ping"}) {
    SCOPED_TRACE(path);
    const http::HttpResponse refused = get(path, "");
    EXPECT_EQ(refused.status_code, 401);
    EXPECT_EQ(refused.body, "Unauthorized\n");
    EXPECT_NE(get(path, "ok").status_code, 401);
  }
  EXPECT_EQ(get("/metrics", "ok").status_code, 200);
  // No unauthenticated route index.
  EXPECT_EQ(get("/", "").status_code, 404);
}

TEST_F(AdminServerTest, IdleConnectionsDoNotStarveTheProbes) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(std::unique_ptr<AdminServer> server,
                                AdminServer::Create({.bind_address = "127.0.0.1",
                                                     .port = 0,
                                                     .cert_file = files_->cert_file,
                                                     .key_file = files_->key_file},
                                                    &registry_, &checks_, nullptr));
  ASSERT_THAT(server->Start(), IsOk());
  // 12 clients connect and send nothing (each holds a worker while idle).
  std::vector<int> idle;
  for (int i = 0; i < 12; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(server->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    idle.push_back(fd);
  }
  absl::SleepFor(absl::Milliseconds(100));
  const absl::Time start = absl::Now();
  absl::StatusOr<http::HttpResponse> probe =
      client_->Send({.url = absl::StrCat("https://localhost:", server->port(), "/healthz"),
                     .timeout = absl::Seconds(1)});
  const absl::Duration took = absl::Now() - start;
  for (int fd : idle) close(fd);
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_EQ(probe->status_code, 200);
  EXPECT_LT(took, absl::Seconds(1));  // the kubelet's default probe timeout
}

TEST(AdminServerCreateTest, RequiresTlsAndCollaborators) {
  stats::Registry registry;
  HealthChecks checks;
  EXPECT_THAT(AdminServer::Create({.port = 0}, &registry, &checks, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("TLS")));
  EXPECT_THAT(AdminServer::Create({.port = 0, .cert_file = "/c", .key_file = "/k"}, nullptr,
                                  &checks, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(AdminServer::Create({.port = 0, .cert_file = "/no/such.crt", .key_file = "/k"},
                                  &registry, &checks, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace trimaran::sched
