#include "common/http/curl_transport.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/http/http_server.h"
#include "common/http/status_mapping.h"
#include "common/http/testing/test_certs.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::http {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Optional;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

std::string MakeTempDir() {
  std::string tmpl = ::testing::TempDir() + "trimaran_http_XXXXXX";
  char* dir = mkdtemp(tmpl.data());
  EXPECT_NE(dir, nullptr);
  return tmpl;
}

// Routes shared by the plain and TLS fixtures.
void AddTestRoutes(HttpServer& server, absl::Notification* release, absl::Mutex* ports_mu,
                   std::set<std::string>* remote_addrs) {
  // Echoes the method, a header, the query and the body.
  ASSERT_THAT(
      server.AddRoute({.path = "/echo",
                       .methods = {"GET", "POST", "PUT", "PATCH", "DELETE"},
                       .help = "echo",
                       .handler =
                           [=](const ServerRequest& req, ServerResponse& res) {
                             if (ports_mu != nullptr) {
                               absl::MutexLock lock(ports_mu);
                               remote_addrs->insert(req.remote_addr);
                             }
                             res.headers.Add("X-Echo", std::string(req.headers.GetOr("X-Test")));
                             res.body = absl::StrCat(req.method, " ", req.path,
                                                     "?q=", req.Query("q"), " body=", req.body);
                           }}),
      IsOk());
  // /status/<code> answers with that code.
  ASSERT_THAT(server.AddRoute({.path = "/status/",
                               .prefix = true,
                               .help = "fixed status",
                               .handler =
                                   [](const ServerRequest& req, ServerResponse& res) {
                                     int code = 0;
                                     (void)absl::SimpleAtoi(req.path.substr(8), &code);
                                     res.status = code;
                                     if (code == 503) res.headers.Add("Retry-After", "2");
                                     res.body = absl::StrCat("status ", code);
                                   }}),
              IsOk());
  // /sleep?ms=N answers after N ms, or at once when the test releases its handlers.
  ASSERT_THAT(
      server.AddRoute({.path = "/sleep",
                       .help = "sleeps",
                       .handler =
                           [release](const ServerRequest& req, ServerResponse& res) {
                             int ms = 0;
                             (void)absl::SimpleAtoi(req.Query("ms"), &ms);
                             release->WaitForNotificationWithTimeout(absl::Milliseconds(ms));
                             res.body = "late";
                           }}),
      IsOk());
  // /stream?n=N sends N chunks 10ms apart (n=0: until the client goes away).
  ASSERT_THAT(
      server.AddRoute({.path = "/stream",
                       .help = "chunked stream",
                       .handler =
                           [](const ServerRequest& req, ServerResponse& res) {
                             int n = 0;
                             (void)absl::SimpleAtoi(req.Query("n"), &n);
                             res.content_type = "application/json";
                             res.stream = [n](ChunkWriter& w) {
                               for (int i = 0; n == 0 || i < n; ++i) {
                                 if (i > 0)
                                   std::this_thread::sleep_for(std::chrono::milliseconds(10));
                                 if (!w.Write(absl::StrCat("{\"i\":", i, "}\n"))) return;
                               }
                             };
                           }}),
      IsOk());
  // Sends one chunk, then stays silent until the test releases it.
  ASSERT_THAT(server.AddRoute({.path = "/stall",
                               .help = "one chunk then silence",
                               .handler =
                                   [release](const ServerRequest&, ServerResponse& res) {
                                     res.stream = [release](ChunkWriter& w) {
                                       w.Write("first\n");
                                       release->WaitForNotificationWithTimeout(absl::Seconds(10));
                                     };
                                   }}),
              IsOk());
  ASSERT_THAT(server.AddRoute({.path = "/peer",
                               .help = "client certificate subject",
                               .handler =
                                   [](const ServerRequest& req, ServerResponse& res) {
                                     res.body = absl::StrCat(
                                         req.peer_certificate_subject,
                                         "|cn=", req.peer_certificate_common_name, "|dns=",
                                         absl::StrJoin(req.peer_certificate_dns_names, ","));
                                   }}),
              IsOk());
}

class CurlTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(server_,
                                  HttpServer::Create({.name = "test", .worker_threads = 16}));
    AddTestRoutes(*server_, &release_, &mu_, &remote_addrs_);
    ASSERT_THAT(server_->Start(), IsOk());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(transport_, CurlTransport::Create());
  }
  void TearDown() override {
    release_.Notify();
    transport_.reset();  // closes keep-alive connections before the server stops
    if (server_ != nullptr) server_->Stop();
  }

  std::string Url(absl::string_view path) const { return absl::StrCat(server_->url(), path); }

  absl::Notification release_;
  absl::Mutex mu_;
  std::set<std::string> remote_addrs_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<CurlTransport> transport_;
};

TEST_F(CurlTransportTest, MethodsHeadersAndBodies) {
  struct TestCase {
    std::string method;
    std::string body;
    std::string want_body;
  };
  const std::vector<TestCase> cases = {
      {"GET", "", "GET /echo?q=a b body="},
      {"POST", R"({"kind":"Binding"})", R"(POST /echo?q=a b body={"kind":"Binding"})"},
      {"PUT", "put-body", "PUT /echo?q=a b body=put-body"},
      {"PATCH", "[]", "PATCH /echo?q=a b body=[]"},
      {"DELETE", "", "DELETE /echo?q=a b body="},
      {"POST", "", "POST /echo?q=a b body="},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.method + " " + tc.body);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(
        HttpResponse r,
        transport_->Send({.method = tc.method,
                          .url = Url("/echo?q=a%20b"),
                          .headers = {{"X-Test", "hello"}, {"Content-Type", "application/json"}},
                          .body = tc.body}));
    EXPECT_EQ(r.status_code, 200);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.body, tc.want_body);
    EXPECT_THAT(r.headers.Get("x-echo"), Optional(absl::string_view("hello")));
    EXPECT_THAT(r.headers.Get("content-type"),
                Optional(absl::string_view("text/plain; charset=utf-8")));
  }
}

TEST_F(CurlTransportTest, HeadHasNoBody) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r,
                                transport_->Send({.method = "HEAD", .url = Url("/echo")}));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(r.body, "");
}

TEST_F(CurlTransportTest, ErrorStatusesAreResponsesNotErrors) {
  struct TestCase {
    int code;
    absl::StatusCode mapped;
  };
  for (const TestCase& tc : std::vector<TestCase>{{404, absl::StatusCode::kNotFound},
                                                  {409, absl::StatusCode::kAborted},
                                                  {500, absl::StatusCode::kUnavailable},
                                                  {503, absl::StatusCode::kUnavailable}}) {
    SCOPED_TRACE(tc.code);
    std::string url = Url(absl::StrCat("/status/", tc.code));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r, transport_->Send({.url = url}));
    EXPECT_EQ(r.status_code, tc.code);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.body, absl::StrCat("status ", tc.code));
    EXPECT_THAT(StatusFromResponse(r, {.method = "GET", .target = url}),
                StatusIs(tc.mapped, HasSubstr(absl::StrCat("(HTTP ", tc.code, ")"))));
    if (tc.code == 503) {
      EXPECT_THAT(RetryAfter(r), Optional(absl::Seconds(2)));
    }
  }
}

TEST_F(CurlTransportTest, UnknownPathIs404) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r, transport_->Send({.url = Url("/nope")}));
  EXPECT_EQ(r.status_code, 404);
}

TEST_F(CurlTransportTest, TotalTimeout) {
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<HttpResponse> r =
      transport_->Send({.url = Url("/sleep?ms=5000"), .timeout = absl::Milliseconds(100)});
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_THAT(r,
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       AllOf(HasSubstr(absl::StrCat("GET ", Url("/sleep?ms=5000"), ": timed out")),
                             HasSubstr("curl 28"))));
  EXPECT_GE(elapsed, std::chrono::milliseconds(100));
  EXPECT_LT(elapsed, std::chrono::seconds(2));
  EXPECT_TRUE(IsRetryable(r.status()));
}

TEST_F(CurlTransportTest, TransportDefaultTimeout) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      auto transport, CurlTransport::Create({.default_timeout = absl::Milliseconds(100)}));
  EXPECT_THAT(transport->Send({.url = Url("/sleep?ms=5000")}),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  // A request's own timeout wins over the default.
  EXPECT_THAT(transport->Send({.url = Url("/sleep?ms=200"), .timeout = absl::Seconds(5)}), IsOk());
}

// A bound but not listening socket: connecting to it is refused, and nobody else can
// take the port while the test runs.
class RefusingPort {
 public:
  RefusingPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    socklen_t len = sizeof(addr);
    EXPECT_EQ(getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
  }
  ~RefusingPort() { close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST_F(CurlTransportTest, ConnectionRefusedNamesHostPort) {
  RefusingPort refusing;
  std::string url = absl::StrCat("http://127.0.0.1:", refusing.port(), "/api");
  absl::StatusOr<HttpResponse> r = transport_->Send({.url = url});
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kUnavailable,
                          AllOf(HasSubstr(absl::StrCat("GET ", url, ": connection refused")),
                                HasSubstr("(curl 7: "))));
  EXPECT_TRUE(IsRetryable(r.status()));
}

TEST_F(CurlTransportTest, ImplicitPortIsNamed) {
  // Nothing listens on loopback port 80 in the test environment: the message names the
  // scheme's default port, which the URL leaves implicit.
  absl::StatusOr<HttpResponse> r = transport_->Send({.url = "http://127.0.0.1/x"});
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kUnavailable,
                          HasSubstr("GET http://127.0.0.1/x (127.0.0.1:80): ")));
}

TEST_F(CurlTransportTest, InvalidRequests) {
  struct TestCase {
    std::string name;
    HttpRequest request;
    std::string want;
  };
  std::vector<TestCase> cases;
  cases.push_back({"malformed url", {.url = "http://[::1"}, "malformed url"});
  cases.push_back({"relative url", {.url = "/api/v1/pods"}, "malformed url"});
  cases.push_back({"unsupported scheme", {.url = "ftp://127.0.0.1/x"}, "unsupported scheme"});
  cases.push_back({"bad method", {.method = "get", .url = Url("/echo")}, "invalid http method"});
  cases.push_back(
      {"two CA sources",
       {.url = "https://127.0.0.1:1/", .tls = TlsOptions{.ca_file = "/x", .ca_pem = "y"}},
       "both a file and PEM data are set for the CA"});
  cases.push_back({"cert without key",
                   {.url = "https://127.0.0.1:1/", .tls = TlsOptions{.client_cert_file = "/x"}},
                   "must be given together"});
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_THAT(transport_->Send(tc.request),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(tc.want)));
  }
  EXPECT_THAT(CurlTransport::Create({.tls = {.client_key_file = "f", .client_key_pem = "k"}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(CurlTransportTest, StreamDeliversChunksAsTheyArrive) {
  std::vector<std::string> chunks;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      HttpResponse r,
      transport_->Send({.url = Url("/stream?n=5"), .on_chunk = [&](absl::string_view chunk) {
                          chunks.emplace_back(chunk);
                          return true;
                        }}));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(r.body, "");
  EXPECT_THAT(r.headers.Get("Transfer-Encoding"), Optional(absl::string_view("chunked")));
  // The server pauses between chunks, so they arrive (and are delivered) separately.
  EXPECT_GE(chunks.size(), 3u);
  EXPECT_EQ(absl::StrJoin(chunks, ""), "{\"i\":0}\n{\"i\":1}\n{\"i\":2}\n{\"i\":3}\n{\"i\":4}\n");
}

TEST_F(CurlTransportTest, StreamStopsWhenCallbackReturnsFalse) {
  int calls = 0;
  auto start = std::chrono::steady_clock::now();
  // n=0: the server streams until the client goes away.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      HttpResponse r,
      transport_->Send(
          {.url = Url("/stream?n=0"), .on_chunk = [&](absl::string_view) { return ++calls < 2; }}));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(calls, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // The transport stays usable.
  EXPECT_THAT(transport_->Send({.url = Url("/echo")}), IsOk());
}

TEST_F(CurlTransportTest, StreamErrorStatusIsCollectedIntoBody) {
  int calls = 0;
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      HttpResponse r,
      transport_->Send({.url = Url("/status/410"), .on_chunk = [&](absl::string_view) {
                          ++calls;
                          return true;
                        }}));
  EXPECT_EQ(r.status_code, 410);
  EXPECT_EQ(r.body, "status 410");
  EXPECT_EQ(calls, 0);
}

TEST_F(CurlTransportTest, StreamHasNoDefaultTotalTimeout) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto transport,
                                CurlTransport::Create({.default_timeout = absl::Milliseconds(20)}));
  int calls = 0;
  // 10 chunks 10ms apart outlast the 20ms unary default.
  EXPECT_THAT(transport->Send({.url = Url("/stream?n=10"),
                               .on_chunk =
                                   [&](absl::string_view) {
                                     ++calls;
                                     return true;
                                   }}),
              IsOk());
  EXPECT_GE(calls, 1);
}

TEST_F(CurlTransportTest, CollectedBodiesAreCapped) {
  // An endless body (a stream read without on_chunk) stops at the cap.
  EXPECT_THAT(transport_->Send({.url = Url("/stream?n=0"), .max_body_bytes = 100}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       ::testing::HasSubstr("response body exceeds 100 bytes")));
  // Error documents too; a body within the cap is whole.
  EXPECT_THAT(transport_->Send({.url = Url("/status/500"), .max_body_bytes = 5}),
              StatusIs(absl::StatusCode::kResourceExhausted));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      HttpResponse r, transport_->Send({.url = Url("/status/500"), .max_body_bytes = 10}));
  EXPECT_EQ(r.body, "status 500");
  // The transport's default applies to requests that set none.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto small, CurlTransport::Create({.default_max_body_bytes = 64}));
  EXPECT_THAT(small->Send({.url = Url("/stream?n=20")}),
              StatusIs(absl::StatusCode::kResourceExhausted));
  // A 2xx stream handed to on_chunk is not collected, so not capped here.
  int calls = 0;
  EXPECT_THAT(small->Send({.url = Url("/stream?n=20"),
                           .on_chunk =
                               [&](absl::string_view) {
                                 ++calls;
                                 return true;
                               }}),
              IsOk());
  EXPECT_GE(calls, 1);
}

TEST_F(CurlTransportTest, StreamIdleTimeout) {
  std::string got;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<HttpResponse> r = transport_->Send({.url = Url("/stall"),
                                                     .idle_timeout = absl::Milliseconds(300),
                                                     .on_chunk = [&](absl::string_view c) {
                                                       got.append(c.data(), c.size());
                                                       return true;
                                                     }});
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kDeadlineExceeded,
                          HasSubstr("timed out: no data for 300ms (idle timeout)")));
  EXPECT_EQ(got, "first\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST_F(CurlTransportTest, StopTokenCancelsStream) {
  std::stop_source stop;
  std::atomic<int> calls{0};
  std::jthread stopper([&] {
    while (calls.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    stop.request_stop();
  });
  absl::StatusOr<HttpResponse> r = transport_->Send({.url = Url("/stream?n=0"),
                                                     .on_chunk =
                                                         [&](absl::string_view) {
                                                           ++calls;
                                                           return true;
                                                         },
                                                     .stop_token = stop.get_token()});
  EXPECT_THAT(r, StatusIs(absl::StatusCode::kCancelled, HasSubstr("cancelled")));
}

TEST_F(CurlTransportTest, StopTokenCancelsIdleStream) {
  std::stop_source stop;
  std::jthread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop.request_stop();
  });
  auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(transport_->Send({.url = Url("/stall"),
                                .on_chunk = [](absl::string_view) { return true; },
                                .stop_token = stop.get_token()}),
              StatusIs(absl::StatusCode::kCancelled));
  // curl's progress callback runs at least once a second while idle.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST_F(CurlTransportTest, AlreadyStoppedTokenFailsFast) {
  std::stop_source stop;
  stop.request_stop();
  EXPECT_THAT(transport_->Send({.url = Url("/echo"), .stop_token = stop.get_token()}),
              StatusIs(absl::StatusCode::kCancelled));
}

TEST_F(CurlTransportTest, ReusesConnections) {
  for (int i = 0; i < 20; ++i) {
    ASSERT_THAT(transport_->Send({.url = Url("/echo")}), IsOk());
  }
  absl::MutexLock lock(&mu_);
  EXPECT_EQ(remote_addrs_.size(), 1u);
  EXPECT_EQ(transport_->IdleHandlesForTest(), 1);
}

TEST_F(CurlTransportTest, ConcurrentSends) {
  constexpr int kThreads = 8;
  constexpr int kRequests = 50;
  std::atomic<int> ok{0};
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kRequests; ++i) {
          std::string body = absl::StrCat("t", t, "-", i);
          absl::StatusOr<HttpResponse> r =
              transport_->Send({.method = "POST", .url = Url("/echo"), .body = body});
          if (r.ok() && r->status_code == 200 && r->body == "POST /echo?q= body=" + body) ++ok;
        }
      });
    }
  }
  EXPECT_EQ(ok.load(), kThreads * kRequests);
  EXPECT_GE(transport_->IdleHandlesForTest(), 1);
  EXPECT_LE(transport_->IdleHandlesForTest(), kThreads);
  absl::MutexLock lock(&mu_);
  // Connections are reused: far fewer than one per request.
  EXPECT_LE(remote_addrs_.size(), static_cast<size_t>(2 * kThreads));
}

// TLS: one PKI for the suite, a server with a certificate and one requiring client
// certificates.
class CurlTransportTlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(MakeTempDir());
    absl::StatusOr<testing::TestPki> pki = testing::MakeTestPki(*dir_);
    ASSERT_THAT(pki, IsOk());
    pki_ = new testing::TestPki(*std::move(pki));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete pki_;
    delete dir_;
  }

  void SetUp() override {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(tls_server_, HttpServer::Create({
                                                   .name = "tls",
                                                   .tls_cert_file = pki_->server.cert_file,
                                                   .tls_key_file = pki_->server.key_file,
                                               }));
    AddTestRoutes(*tls_server_, &release_, nullptr, nullptr);
    ASSERT_THAT(tls_server_->Start(), IsOk());
    TRIMARAN_ASSERT_OK_AND_ASSIGN(mtls_server_, HttpServer::Create({
                                                    .name = "mtls",
                                                    .tls_cert_file = pki_->server.cert_file,
                                                    .tls_key_file = pki_->server.key_file,
                                                    .client_ca_file = pki_->ca.cert_file,
                                                }));
    AddTestRoutes(*mtls_server_, &release_, nullptr, nullptr);
    ASSERT_THAT(mtls_server_->Start(), IsOk());
  }
  void TearDown() override { release_.Notify(); }

  static std::string* dir_;
  static testing::TestPki* pki_;
  absl::Notification release_;
  std::unique_ptr<HttpServer> tls_server_;
  std::unique_ptr<HttpServer> mtls_server_;
};
std::string* CurlTransportTlsTest::dir_ = nullptr;
testing::TestPki* CurlTransportTlsTest::pki_ = nullptr;

TEST_F(CurlTransportTlsTest, PerRequestTlsOptions) {
  const testing::TestPki& pki = *pki_;
  struct TestCase {
    std::string name;
    bool mtls;  // against the server requiring client certificates
    TlsOptions tls;
    absl::StatusCode want;
    std::string want_text;  // in the error message, or in the /peer body when OK
  };
  const std::vector<TestCase> cases = {
      {"right CA file", false, {.ca_file = pki.ca.cert_file}, absl::StatusCode::kOk, ""},
      {"right CA data", false, {.ca_pem = pki.ca.cert_pem}, absl::StatusCode::kOk, ""},
      {"wrong CA file",
       false,
       {.ca_file = pki.other_ca.cert_file},
       absl::StatusCode::kFailedPrecondition,
       "TLS certificate verification failed"},
      {"wrong CA data",
       false,
       {.ca_pem = pki.other_ca.cert_pem},
       absl::StatusCode::kFailedPrecondition,
       "TLS certificate verification failed"},
      {"system trust store",
       false,
       {},
       absl::StatusCode::kFailedPrecondition,
       "TLS certificate verification failed"},
      {"missing CA file",
       false,
       {.ca_file = *dir_ + "/absent.crt"},
       absl::StatusCode::kFailedPrecondition,
       "TLS CA certificates cannot be loaded"},
      {"insecure skip verify",
       false,
       {.ca_file = pki.other_ca.cert_file, .insecure_skip_verify = true},
       absl::StatusCode::kOk,
       ""},
      {"server name in SANs",
       false,
       {.ca_file = pki.ca.cert_file, .server_name = "server.test"},
       absl::StatusCode::kOk,
       ""},
      {"server name not in SANs",
       false,
       {.ca_file = pki.ca.cert_file, .server_name = "other.test"},
       absl::StatusCode::kFailedPrecondition,
       "TLS certificate verification failed"},
      {"client cert files",
       true,
       {.ca_file = pki.ca.cert_file,
        .client_cert_file = pki.client.cert_file,
        .client_key_file = pki.client.key_file},
       absl::StatusCode::kOk,
       "CN=test-client"},
      {"client cert common name",
       true,
       {.ca_file = pki.ca.cert_file,
        .client_cert_file = pki.client.cert_file,
        .client_key_file = pki.client.key_file},
       absl::StatusCode::kOk,
       "|cn=test-client|dns="},
      {"client cert data",
       true,
       {.ca_pem = pki.ca.cert_pem,
        .client_cert_pem = pki.client.cert_pem,
        .client_key_pem = pki.client.key_pem},
       absl::StatusCode::kOk,
       "CN=test-client"},
      {"client cert not given",
       true,
       {.ca_file = pki.ca.cert_file},
       absl::StatusCode::kUnavailable,
       "127.0.0.1"},
      {"client cert from another CA",
       true,
       {.ca_file = pki.ca.cert_file,
        .client_cert_pem = pki.other_ca.cert_pem,
        .client_key_pem = pki.other_ca.key_pem},
       absl::StatusCode::kUnavailable,
       "127.0.0.1"},
      {"client key not matching",
       true,
       {.ca_file = pki.ca.cert_file,
        .client_cert_pem = pki.client.cert_pem,
        .client_key_pem = pki.server.key_pem},
       absl::StatusCode::kFailedPrecondition,
       "TLS client certificate or key cannot be used"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    // A fresh transport per case, so no pooled connection hides the handshake.
    TRIMARAN_ASSERT_OK_AND_ASSIGN(auto transport, CurlTransport::Create());
    const HttpServer& server = tc.mtls ? *mtls_server_ : *tls_server_;
    absl::StatusOr<HttpResponse> r =
        transport->Send({.url = server.url() + "/peer", .tls = tc.tls});
    if (tc.want == absl::StatusCode::kOk) {
      ASSERT_THAT(r, IsOk());
      EXPECT_EQ(r->status_code, 200);
      EXPECT_THAT(r->body, HasSubstr(tc.want_text));
    } else {
      EXPECT_THAT(r, StatusIs(tc.want, HasSubstr(tc.want_text)));
    }
  }
}

TEST_F(CurlTransportTlsTest, TransportDefaultsAndOverride) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto transport,
                                CurlTransport::Create({.tls = {.ca_pem = pki_->ca.cert_pem}}));
  EXPECT_THAT(transport->Send({.url = tls_server_->url() + "/echo"}), IsOk());
  // A request's TlsOptions replace the defaults as a whole.
  EXPECT_THAT(transport->Send({.url = tls_server_->url() + "/echo",
                               .tls = TlsOptions{.ca_pem = pki_->other_ca.cert_pem}}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("TLS certificate verification failed")));
  // And the pooled connection made with the right CA is not reused for the wrong one.
  EXPECT_THAT(transport->Send({.url = tls_server_->url() + "/echo"}), IsOk());
  // Stopping the server does not wait for the transport's idle TLS connection.
  auto start = std::chrono::steady_clock::now();
  tls_server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST_F(CurlTransportTlsTest, StreamOverTls) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto transport,
                                CurlTransport::Create({.tls = {.ca_file = pki_->ca.cert_file}}));
  std::string got;
  int calls = 0;
  EXPECT_THAT(transport->Send({.url = tls_server_->url() + "/stream?n=0",
                               .on_chunk =
                                   [&](absl::string_view c) {
                                     got.append(c.data(), c.size());
                                     return ++calls < 3;
                                   }}),
              IsOk());
  EXPECT_THAT(got, HasSubstr("{\"i\":0}\n"));
}

}  // namespace
}  // namespace trimaran::http
