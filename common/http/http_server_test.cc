#include "common/http/http_server.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/http/curl_transport.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::http {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

RouteHandler Reply(std::string body) {
  return [body](const ServerRequest&, ServerResponse& res) { res.body = body; };
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(server_, HttpServer::Create({.name = "admin"}));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(client_, CurlTransport::Create());
  }
  void TearDown() override { client_.reset(); }

  absl::StatusOr<HttpResponse> Get(absl::string_view path, std::string method = "GET",
                                   std::string body = "") {
    return client_->Send(
        {.method = std::move(method), .url = absl::StrCat(server_->url(), path), .body = body});
  }

  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<CurlTransport> client_;
};

TEST_F(HttpServerTest, RoutingTable) {
  ASSERT_THAT(server_->AddRoute({.path = "/healthz", .help = "liveness", .handler = Reply("ok")}),
              IsOk());
  ASSERT_THAT(
      server_->AddRoute(
          {.path = "/debug/", .prefix = true, .help = "debug pages", .handler = Reply("debug")}),
      IsOk());
  ASSERT_THAT(server_->AddRoute({.path = "/debug/cache",
                                 .prefix = true,
                                 .help = "cache dump",
                                 .handler = Reply("cache prefix")}),
              IsOk());
  ASSERT_THAT(
      server_->AddRoute({.path = "/debug/cache/exact", .help = "exact", .handler = Reply("exact")}),
      IsOk());
  ASSERT_THAT(server_->AddRoute({.path = "/api",
                                 .methods = {"POST"},
                                 .help = "post only",
                                 .handler =
                                     [](const ServerRequest& req, ServerResponse& res) {
                                       res.status = 201;
                                       res.content_type = "application/json";
                                       res.body = req.body;
                                     }}),
              IsOk());
  ASSERT_THAT(server_->Start(), IsOk());

  struct TestCase {
    std::string method;
    std::string path;
    int want_status;
    std::string want_body;
  };
  const std::vector<TestCase> cases = {
      {"GET", "/healthz", 200, "ok"},
      {"GET", "/healthz/x", 404, "not found: /healthz/x\n"},
      {"GET", "/debug/", 200, "debug"},
      {"GET", "/debug/loglevel", 200, "debug"},
      {"GET", "/debug/cache", 200, "cache prefix"},
      {"GET", "/debug/cache/nodes", 200, "cache prefix"},  // longest prefix wins
      {"GET", "/debug/cache/exact", 200, "exact"},         // exact beats prefix
      {"GET", "/debu", 404, "not found: /debu\n"},
      {"POST", "/api", 201, "{\"a\":1}"},
      {"GET", "/api", 405, "method GET not allowed on /api\n"},
      {"DELETE", "/healthz", 405, "method DELETE not allowed on /healthz\n"},
      {"HEAD", "/healthz", 200, ""},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.method + " " + tc.path);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r,
                                  Get(tc.path, tc.method, tc.method == "POST" ? "{\"a\":1}" : ""));
    EXPECT_EQ(r.status_code, tc.want_status);
    EXPECT_EQ(r.body, tc.want_body);
  }
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r, Get("/api"));
  EXPECT_THAT(r.headers.Get("Allow"), Optional(absl::string_view("POST")));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(r, Get("/api", "POST", "x"));
  EXPECT_THAT(r.headers.Get("Content-Type"), Optional(absl::string_view("application/json")));
}

TEST_F(HttpServerTest, IndexListsRoutesWithHelp) {
  ASSERT_THAT(
      server_->AddRoute({.path = "/metrics", .help = "prometheus metrics", .handler = Reply("")}),
      IsOk());
  ASSERT_THAT(server_->AddRoute({.path = "/debug/",
                                 .prefix = true,
                                 .methods = {"GET", "POST"},
                                 .help = "debug pages",
                                 .handler = Reply("")}),
              IsOk());
  ASSERT_THAT(server_->Start(), IsOk());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r, Get("/"));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(r.body,
            "admin endpoints:\n"
            "  /debug/*  GET,POST  debug pages\n"
            "  /metrics  GET  prometheus metrics\n");
}

TEST_F(HttpServerTest, RequestDetailsReachHandler) {
  ServerRequest seen;
  ASSERT_THAT(server_->AddRoute({.path = "/x",
                                 .methods = {"POST"},
                                 .handler =
                                     [&seen](const ServerRequest& req, ServerResponse& res) {
                                       seen = req;
                                       res.headers.Add("X-Reply", "yes");
                                     }}),
              IsOk());
  ASSERT_THAT(server_->Start(), IsOk());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      HttpResponse r,
      client_->Send({.method = "POST",
                     .url = server_->url() + "/x?node=n1&window=5m&node=n2&msg=a%20b",
                     .headers = {{"X-Token", "secret"}},
                     .body = "payload"}));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_THAT(r.headers.Get("x-reply"), Optional(absl::string_view("yes")));
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.path, "/x");
  EXPECT_EQ(seen.Query("node"), "n1");
  EXPECT_EQ(seen.query.count("node"), 2u);
  EXPECT_EQ(seen.Query("window"), "5m");
  EXPECT_EQ(seen.Query("msg"), "a b");
  EXPECT_EQ(seen.Query("absent"), "");
  EXPECT_FALSE(seen.HasQuery("absent"));
  EXPECT_THAT(seen.headers.Get("x-token"), Optional(absl::string_view("secret")));
  EXPECT_EQ(seen.body, "payload");
  // The client adds no Content-Type or Expect of its own.
  EXPECT_FALSE(seen.headers.Has("Content-Type"));
  EXPECT_FALSE(seen.headers.Has("Expect"));
  EXPECT_EQ(seen.headers.GetOr("User-Agent"), "trimaran");
  EXPECT_THAT(seen.remote_addr, ::testing::StartsWith("127.0.0.1:"));
  EXPECT_EQ(seen.peer_certificate_subject, "");
}

TEST_F(HttpServerTest, AddRouteValidation) {
  struct TestCase {
    std::string name;
    Route route;
    std::string want;
  };
  ASSERT_THAT(server_->AddRoute({.path = "/a", .handler = Reply("")}), IsOk());
  ASSERT_THAT(server_->AddRoute({.path = "/a", .prefix = true, .handler = Reply("")}), IsOk());
  ASSERT_THAT(server_->AddRoute({.path = "/a", .methods = {"POST"}, .handler = Reply("")}), IsOk());
  std::vector<TestCase> cases;
  cases.push_back({"relative path", {.path = "a", .handler = Reply("")}, "must start with '/'"});
  cases.push_back({"no handler", {.path = "/b"}, "has no handler"});
  cases.push_back(
      {"no methods", {.path = "/b", .methods = {}, .handler = Reply("")}, "has no methods"});
  cases.push_back({"bad method",
                   {.path = "/b", .methods = {"BREW"}, .handler = Reply("")},
                   "unsupported method BREW"});
  cases.push_back({"duplicate", {.path = "/a", .handler = Reply("")}, "duplicate route GET /a"});
  cases.push_back({"duplicate method",
                   {.path = "/a", .methods = {"PUT", "POST"}, .handler = Reply("")},
                   "duplicate route POST /a"});
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_THAT(server_->AddRoute(tc.route),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(tc.want)));
  }
  ASSERT_THAT(server_->Start(), IsOk());
  EXPECT_THAT(server_->AddRoute({.path = "/late", .handler = Reply("")}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("after Start")));
}

TEST_F(HttpServerTest, LifecycleAndEphemeralPort) {
  EXPECT_EQ(server_->port(), 0);
  ASSERT_THAT(server_->Start(), IsOk());
  EXPECT_GT(server_->port(), 0);
  EXPECT_EQ(server_->url(), absl::StrCat("http://127.0.0.1:", server_->port()));
  EXPECT_THAT(server_->Start(), StatusIs(absl::StatusCode::kFailedPrecondition));
  server_->Stop();
  server_->Stop();  // idempotent
  EXPECT_THAT(server_->Start(), StatusIs(absl::StatusCode::kFailedPrecondition));
  absl::StatusOr<HttpResponse> r = Get("/");
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("connection refused")));
}

TEST_F(HttpServerTest, StopDoesNotWaitForIdleKeepAliveConnections) {
  ASSERT_THAT(server_->AddRoute({.path = "/x", .handler = Reply("x")}), IsOk());
  ASSERT_THAT(server_->Start(), IsOk());
  ASSERT_THAT(Get("/x"), IsOk());  // the client keeps this connection open
  auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST_F(HttpServerTest, AddressInUse) {
  ASSERT_THAT(server_->Start(), IsOk());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto second,
                                HttpServer::Create({.name = "second", .port = server_->port()}));
  EXPECT_THAT(second->Start(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr(absl::StrCat("http server second: listen on 127.0.0.1:",
                                              server_->port(), ": address already in use"))));
}

TEST_F(HttpServerTest, BindsFixedPortAfterRestart) {
  ASSERT_THAT(server_->Start(), IsOk());
  int port = server_->port();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r, Get("/"));
  client_.reset();  // close the connection so the server side can go away
  server_->Stop();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto again, HttpServer::Create({.port = port}));
  EXPECT_THAT(again->Start(), IsOk());
  EXPECT_EQ(again->port(), port);
}

TEST_F(HttpServerTest, CreateValidation) {
  struct TestCase {
    std::string name;
    HttpServerOptions options;
    std::string want;
  };
  std::vector<TestCase> cases;
  cases.push_back({"cert without key", {.tls_cert_file = "/x.crt"}, "needs both"});
  cases.push_back({"client CA without tls", {.client_ca_file = "/ca.crt"}, "needs tls"});
  cases.push_back({"missing cert",
                   {.tls_cert_file = "/nonexistent/x.crt", .tls_key_file = "/nonexistent/x.key"},
                   "certificate file \"/nonexistent/x.crt\" does not exist"});
  cases.push_back({"no workers", {.worker_threads = 0}, "worker_threads"});
  cases.push_back({"bad port", {.port = 70000}, "invalid port"});
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_THAT(HttpServer::Create(tc.options),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(tc.want)));
  }
}

TEST_F(HttpServerTest, StopEndsLongStreams) {
  std::atomic<bool> stream_saw_stop{false};
  ASSERT_THAT(
      server_->AddRoute({.path = "/forever",
                         .handler =
                             [&](const ServerRequest&, ServerResponse& res) {
                               res.stream = [&](ChunkWriter& w) {
                                 while (w.Write("tick\n")) {
                                   std::this_thread::sleep_for(std::chrono::milliseconds(5));
                                 }
                                 stream_saw_stop = w.Stopping();
                               };
                             }}),
      IsOk());
  ASSERT_THAT(server_->Start(), IsOk());
  std::atomic<int> chunks{0};
  std::jthread reader([&] {
    (void)client_->Send({.url = server_->url() + "/forever", .on_chunk = [&](absl::string_view) {
                           ++chunks;
                           return true;
                         }});
  });
  while (chunks.load() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_TRUE(stream_saw_stop.load());
}

TEST_F(HttpServerTest, HandlerExceptionIs500) {
  ASSERT_THAT(
      server_->AddRoute({.path = "/throw",
                         .handler = [](const ServerRequest&,
                                       ServerResponse&) { throw std::runtime_error("boom"); }}),
      IsOk());
  ASSERT_THAT(server_->Start(), IsOk());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r, Get("/throw"));
  EXPECT_EQ(r.status_code, 500);
  EXPECT_EQ(r.body, "internal error: boom\n");
}

}  // namespace
}  // namespace trimaran::http
