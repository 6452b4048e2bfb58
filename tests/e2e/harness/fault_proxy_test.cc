// FaultProxy against a local cpp-httplib upstream (common/http HttpServer), with
// CurlTransport clients, over plain HTTP and over TLS on both legs. 127.0.0.1 only.
#include "tests/e2e/harness/fault_proxy.h"

#include <stdlib.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/http/curl_transport.h"
#include "common/http/http_server.h"
#include "common/http/testing/test_certs.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::e2e {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

std::string MakeTempDir() {
  std::string tmpl = ::testing::TempDir() + "trimaran_fault_proxy_XXXXXX";
  char* dir = ::mkdtemp(tmpl.data());
  return dir == nullptr ? "" : std::string(dir);
}

bool Eventually(const std::function<bool()>& cond, absl::Duration timeout = absl::Seconds(5)) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (cond()) return true;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return cond();
}

// The parameter: TLS on both legs (client -> proxy and proxy -> upstream).
class FaultProxyTest : public ::testing::TestWithParam<bool> {
 protected:
  bool tls() const { return GetParam(); }

  void SetUp() override {
    dir_ = MakeTempDir();
    ASSERT_FALSE(dir_.empty());
    // A short keep-alive, so that the proxy meets upstream connections closed while idle.
    http::HttpServerOptions server_options{
        .name = "upstream", .worker_threads = 16, .keep_alive_timeout = absl::Seconds(1)};
    if (tls()) {
      TRIMARAN_ASSERT_OK_AND_ASSIGN(pki_, http::testing::MakeTestPki(dir_));
      server_options.tls_cert_file = pki_.server.cert_file;
      server_options.tls_key_file = pki_.server.key_file;
    }
    TRIMARAN_ASSERT_OK_AND_ASSIGN(upstream_, http::HttpServer::Create(server_options));
    // Every path: counts it and echoes "<METHOD> <path> <body>".
    TRIMARAN_ASSERT_OK(upstream_->AddRoute(
        {.path = "/",
         .prefix = true,
         .methods = {"GET", "POST", "PUT", "PATCH", "DELETE"},
         .handler = [this](const http::ServerRequest& req, http::ServerResponse& res) {
           {
             absl::MutexLock lock(&mu_);
             ++seen_[absl::StrCat(req.method, " ", req.path)];
           }
           res.body = absl::StrCat(req.method, " ", req.path, " ", req.body);
         }}));
    // A chunked stream: "first\n", then (once the test allows it) "second\n".
    TRIMARAN_ASSERT_OK(upstream_->AddRoute(
        {.path = "/stream",
         .handler = [this](const http::ServerRequest& req, http::ServerResponse& res) {
           {
             absl::MutexLock lock(&mu_);
             ++seen_[absl::StrCat(req.method, " ", req.path)];
           }
           res.content_type = "application/json";
           res.stream = [this](http::ChunkWriter& w) {
             if (!w.Write("first\n")) return;
             const absl::Time deadline = absl::Now() + absl::Seconds(10);
             while (!continue_stream_.HasBeenNotified() && !w.Stopping() &&
                    absl::Now() < deadline) {
               absl::SleepFor(absl::Milliseconds(5));
             }
             w.Write("second\n");
           };
         }}));
    TRIMARAN_ASSERT_OK(upstream_->Start());
    StartProxy({});
    http::CurlTransportOptions client_options{.default_timeout = absl::Seconds(10)};
    if (tls()) client_options.tls.ca_file = proxy_->ca_file();
    TRIMARAN_ASSERT_OK_AND_ASSIGN(client_, http::CurlTransport::Create(client_options));
  }

  void TearDown() override {
    if (!continue_stream_.HasBeenNotified()) continue_stream_.Notify();
    client_.reset();
    proxy_.reset();
    if (upstream_) upstream_->Stop();
  }

  void StartProxy(FaultProxyOptions options) {
    proxy_.reset();
    options.upstream = upstream_->url();
    options.io_timeout = absl::Seconds(5);
    if (options.max_hold == absl::Minutes(2)) options.max_hold = absl::Seconds(3);
    if (tls()) {
      options.upstream_ca_file = pki_.ca.cert_file;
      options.tls_cert_dir = dir_ + "/proxy";
    }
    TRIMARAN_ASSERT_OK_AND_ASSIGN(proxy_, FaultProxy::Start(options));
  }

  absl::StatusOr<http::HttpResponse> Send(const std::string& method, const std::string& target,
                                          const std::string& body = "") {
    http::HttpRequest req;
    req.method = method;
    req.url = proxy_->url() + target;
    req.body = body;
    if (!body.empty()) req.headers.Set("Content-Type", "application/json");
    return client_->Send(req);
  }

  int Seen(const std::string& method_and_path) {
    absl::MutexLock lock(&mu_);
    auto it = seen_.find(method_and_path);
    return it == seen_.end() ? 0 : it->second;
  }

  std::string dir_;
  http::testing::TestPki pki_;
  std::unique_ptr<http::HttpServer> upstream_;
  std::unique_ptr<FaultProxy> proxy_;
  std::unique_ptr<http::CurlTransport> client_;
  absl::Notification continue_stream_;
  absl::Mutex mu_;
  std::map<std::string, int> seen_ ABSL_GUARDED_BY(mu_);
};

INSTANTIATE_TEST_SUITE_P(PlainAndTls, FaultProxyTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Tls" : "Plain";
                         });

constexpr char kBinding[] = "/api/v1/namespaces/default/pods/p-1/binding";

TEST_P(FaultProxyTest, ForwardsOverOneKeepAliveConnectionAndCounts) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      RuleId binds,
      proxy_->AddRule(FaultRule::Count({.method = "POST", .path_regex = kBindingPathRegex})));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(RuleId gets, proxy_->AddRule(FaultRule::Count({.method = "GET"})));
  const int64_t mark = proxy_->NextSeq();
  for (int i = 0; i < 3; ++i) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, Send("POST", kBinding, "{\"i\":1}"));
    EXPECT_EQ(r.status_code, 200);
    EXPECT_EQ(r.body, absl::StrCat("POST ", kBinding, " {\"i\":1}"));
  }
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, Send("GET", "/api/v1/nodes?limit=500"));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(r.body, "GET /api/v1/nodes ");

  EXPECT_EQ(proxy_->Hits(binds), 3);
  EXPECT_EQ(proxy_->Hits(gets), 1);
  EXPECT_EQ(Seen(absl::StrCat("POST ", kBinding)), 3);
  EXPECT_EQ(proxy_->CountRequests({.method = "POST", .path_regex = kBindingPathRegex}, mark), 3);
  EXPECT_EQ(
      proxy_->CountRequests({.method = "POST", .path_regex = kBindingPathRegex}, proxy_->NextSeq()),
      0);
  EXPECT_EQ(proxy_->CountRequests(
                {.predicate = [](const ProxiedRequest& q) { return q.body == "{\"i\":1}"; }}),
            3);
  std::vector<RequestRecord> log = proxy_->Requests();
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[3].request.query, "limit=500");
  EXPECT_EQ(log[3].outcome, "forwarded");
  EXPECT_EQ(log[3].upstream_status, 200);
  // Keep-alive on the client side: one connection for all four.
  EXPECT_EQ(proxy_->AcceptedConnections(), 1);
}

TEST_P(FaultProxyTest, ChunkedRequestBodyAndRawClient) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<SocketStream> raw,
      SocketStream::Connect("127.0.0.1", proxy_->port(), absl::Now() + absl::Seconds(5)));
  SslCtxPtr ctx;
  if (tls()) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(ctx, MakeClientTlsContext(proxy_->ca_file()));
    TRIMARAN_ASSERT_OK(raw->StartTlsClient(*ctx, "127.0.0.1", absl::Now() + absl::Seconds(5)));
  }
  TRIMARAN_ASSERT_OK(
      raw->WriteAll("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
                    absl::Now() + absl::Seconds(5)));
  std::string in;
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (in.find("hello world") == std::string::npos) {
    absl::StatusOr<size_t> n = raw->ReadSome(&in, 4096, deadline);
    ASSERT_THAT(n, IsOk());
    ASSERT_GT(*n, 0u) << in;
  }
  EXPECT_THAT(in, HasSubstr("HTTP/1.1 200"));
  EXPECT_THAT(in, HasSubstr("POST /echo hello world"));
  EXPECT_EQ(proxy_->CountRequests(
                {.predicate = [](const ProxiedRequest& q) { return q.body == "hello world"; }}),
            1);
}

TEST_P(FaultProxyTest, HangHoldsThenForwardsWithinTheDeadline) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      RuleId hang,
      proxy_->AddRule(FaultRule::Hang({.path_regex = "/slow"}, absl::Milliseconds(800)).Times(1)));
  absl::Time start = absl::Now();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, Send("GET", "/slow"));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(790));
  EXPECT_EQ(proxy_->Hits(hang), 1);
  // Times(1): the next one is not held.
  start = absl::Now();
  TRIMARAN_ASSERT_OK(Send("GET", "/slow").status());
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(700));

  // An unbounded hang is capped by max_hold (3 s here)...
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      RuleId forever,
      proxy_->AddRule(FaultRule::Hang({.path_regex = "/forever"}, absl::InfiniteDuration())));
  start = absl::Now();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(r, Send("GET", "/forever"));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(2900));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  // ... or released early; the upstream only sees the request after the release.
  std::thread t([&] { EXPECT_THAT(Send("GET", "/forever"), IsOk()); });
  ASSERT_TRUE(Eventually([&] { return proxy_->HeldRequests() == 1; }));
  EXPECT_EQ(Seen("GET /forever"), 1);
  proxy_->ReleaseRule(forever);
  t.join();
  EXPECT_EQ(Seen("GET /forever"), 2);
  EXPECT_EQ(proxy_->HeldRequests(), 0);
  // Removing the rule releases what it holds, too.
  std::thread t2([&] { EXPECT_THAT(Send("GET", "/forever"), IsOk()); });
  ASSERT_TRUE(Eventually([&] { return proxy_->HeldRequests() == 1; }));
  proxy_->RemoveRule(forever);
  t2.join();
  EXPECT_EQ(Seen("GET /forever"), 3);
}

TEST_P(FaultProxyTest, HangThenCloseNeverReachesUpstream) {
  TRIMARAN_ASSERT_OK(proxy_->AddRule(
      FaultRule::Hang({.path_regex = "/x"}, absl::Milliseconds(100), AfterHang::kClose)));
  EXPECT_FALSE(Send("POST", "/x", "{}").ok());
  EXPECT_EQ(Seen("POST /x"), 0);
  EXPECT_EQ(proxy_->Requests().back().outcome, "hung-closed");
}

TEST_P(FaultProxyTest, CloseRuleClosesWithoutAnswer) {
  TRIMARAN_ASSERT_OK(proxy_->AddRule(FaultRule::Close({.method = "DELETE"}).Times(1)));
  EXPECT_FALSE(Send("DELETE", "/api/v1/pods/x").ok());
  EXPECT_EQ(Seen("DELETE /api/v1/pods/x"), 0);
  EXPECT_EQ(proxy_->Requests().back().outcome, "closed");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, Send("DELETE", "/api/v1/pods/x"));
  EXPECT_EQ(r.status_code, 200);
}

TEST_P(FaultProxyTest, UpstreamKeepAliveClosedWhileIdleIsReplaced) {
  TRIMARAN_ASSERT_OK(Send("POST", "/a", "{}").status());
  absl::SleepFor(absl::Milliseconds(1600));  // the upstream closes its idle connection
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, Send("POST", "/a", "{}"));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(Seen("POST /a"), 2);
  EXPECT_EQ(proxy_->AcceptedConnections(), 1);  // the client kept its connection
  EXPECT_EQ(proxy_->UpstreamConnects(), 2);
}

TEST_P(FaultProxyTest, Canned429WithRetryAfterWithoutUpstream) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      RuleId limited,
      proxy_->AddRule(
          FaultRule::Respond({.method = "GET", .path_regex = "/api/v1/nodes"},
                             CannedResponse::KubeStatus(429, "TooManyRequests", "slow down",
                                                        {{"Retry-After", "60"}}))
              .Times(2)));
  for (int i = 0; i < 2; ++i) {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, Send("GET", "/api/v1/nodes"));
    EXPECT_EQ(r.status_code, 429);
    EXPECT_EQ(r.headers.GetOr("Retry-After"), "60");
    EXPECT_THAT(r.body, HasSubstr("\"reason\":\"TooManyRequests\""));
    EXPECT_THAT(r.body, HasSubstr("\"code\":429"));
  }
  EXPECT_EQ(Seen("GET /api/v1/nodes"), 0);
  // Exhausted: forwarded again, on the same kept-alive connection.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, Send("GET", "/api/v1/nodes"));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(Seen("GET /api/v1/nodes"), 1);
  EXPECT_EQ(proxy_->Hits(limited), 2);
  EXPECT_EQ(proxy_->AcceptedConnections(), 1);
}

TEST_P(FaultProxyTest, WatchAnsweredWithEmptyBodyAndClose) {
  TRIMARAN_ASSERT_OK(proxy_->AddRule(FaultRule::Respond(
      {.watch = true},
      CannedResponse{
          .status = 200, .headers = {{"Content-Type", "application/json"}}, .close = true})));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, Send("GET", "/api/v1/pods?watch=1"));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(Seen("GET /api/v1/pods"), 0);
  // The connection was closed: the next request uses a new one.
  TRIMARAN_ASSERT_OK(Send("GET", "/api/v1/pods").status());
  EXPECT_EQ(proxy_->AcceptedConnections(), 2);
}

TEST_P(FaultProxyTest, ReplacedResponseAfterTheUpstreamActed) {
  TRIMARAN_ASSERT_OK(proxy_->AddRule(
      FaultRule::ReplaceResponse({.method = "POST", .path_regex = kBindingPathRegex},
                                 CannedResponse::KubeStatus(504, "Timeout", "injected"))
          .Times(1)));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, Send("POST", kBinding, "{}"));
  EXPECT_EQ(r.status_code, 504);
  EXPECT_THAT(r.body, HasSubstr("injected"));
  EXPECT_EQ(Seen(absl::StrCat("POST ", kBinding)), 1);  // committed upstream
  RequestRecord rec = proxy_->Requests().back();
  EXPECT_EQ(rec.outcome, "replaced");
  EXPECT_EQ(rec.upstream_status, 200);
  EXPECT_EQ(rec.client_status, 504);
  // The next one passes (a new upstream connection).
  TRIMARAN_ASSERT_OK_AND_ASSIGN(r, Send("POST", kBinding, "{}"));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(Seen(absl::StrCat("POST ", kBinding)), 2);
}

TEST_P(FaultProxyTest, StreamIsForwardedIncrementally) {
  std::string first;
  absl::Notification got_first;
  std::string all;
  http::HttpRequest req;
  req.url = proxy_->url() + "/stream";
  req.timeout = absl::Seconds(10);
  req.on_chunk = [&](absl::string_view chunk) {
    all.append(chunk.data(), chunk.size());
    if (!got_first.HasBeenNotified() && all.find('\n') != std::string::npos) got_first.Notify();
    return true;
  };
  std::thread t([&] {
    absl::StatusOr<http::HttpResponse> r = client_->Send(req);
    EXPECT_THAT(r, IsOk());
  });
  // The upstream has not finished (it waits for continue_stream_), yet the client has
  // the first event.
  EXPECT_TRUE(got_first.WaitForNotificationWithTimeout(absl::Seconds(5)));
  EXPECT_EQ(all, "first\n");
  continue_stream_.Notify();
  t.join();
  EXPECT_EQ(all, "first\nsecond\n");
  EXPECT_EQ(proxy_->Requests().back().outcome, "forwarded");
}

TEST_P(FaultProxyTest, CutClosesKeepAliveConnectionsAndStreamsMidway) {
  // An idle keep-alive connection (its own client, so that the stream gets another).
  http::CurlTransportOptions idle_options{.default_timeout = absl::Seconds(10)};
  if (tls()) idle_options.tls.ca_file = proxy_->ca_file();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto idle, http::CurlTransport::Create(idle_options));
  auto send_idle = [&](const std::string& path) {
    http::HttpRequest req;
    req.url = proxy_->url() + path;
    return idle->Send(req);
  };
  TRIMARAN_ASSERT_OK(send_idle("/warm").status());
  absl::Notification got_first;
  http::HttpRequest req;
  req.url = proxy_->url() + "/stream";
  req.timeout = absl::Seconds(10);
  req.on_chunk = [&](absl::string_view) {
    if (!got_first.HasBeenNotified()) got_first.Notify();
    return true;
  };
  absl::StatusOr<http::HttpResponse> streamed;
  std::thread t([&] { streamed = client_->Send(req); });
  ASSERT_TRUE(got_first.WaitForNotificationWithTimeout(absl::Seconds(5)));
  EXPECT_EQ(proxy_->CutConnections(/*also_next=*/1), 2);
  t.join();
  EXPECT_FALSE(streamed.ok()) << "a stream cut mid-way must fail, not end cleanly";
  // The idle connection is gone too: the client connects again, and that next new
  // connection is cut right after accept; then service resumes.
  EXPECT_FALSE(send_idle("/after").ok());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, send_idle("/after"));
  EXPECT_EQ(r.status_code, 200);
  EXPECT_EQ(Seen("GET /after"), 1);
  EXPECT_EQ(proxy_->AcceptedConnections(), 4);
}

TEST_P(FaultProxyTest, GateHoldsWatchesUntilReleased) {
  proxy_->GateWatches();
  std::string body;
  std::thread t([&] {
    http::HttpRequest req;
    req.url = proxy_->url() + "/api/v1/pods?watch=true&resourceVersion=1";
    req.timeout = absl::Seconds(10);
    req.on_chunk = [&](absl::string_view chunk) {
      body.append(chunk.data(), chunk.size());
      return true;
    };
    EXPECT_THAT(client_->Send(req), IsOk());
  });
  ASSERT_TRUE(Eventually([&] { return proxy_->HeldRequests() == 1; }));
  // Other requests pass meanwhile; the watch has not reached the upstream.
  TRIMARAN_ASSERT_OK(Send("GET", "/api/v1/pods").status());
  EXPECT_EQ(Seen("GET /api/v1/pods"), 1);
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_EQ(Seen("GET /api/v1/pods"), 1);
  proxy_->ReleaseWatches();
  t.join();
  EXPECT_EQ(Seen("GET /api/v1/pods"), 2);
  EXPECT_EQ(body, "GET /api/v1/pods ");
  EXPECT_EQ(proxy_->CountRequests({.watch = true}), 1);
}

TEST_P(FaultProxyTest, GatedWatchIsClosedAtMaxHold) {
  StartProxy({.max_hold = absl::Milliseconds(300)});
  proxy_->GateWatches();
  const absl::Time start = absl::Now();
  EXPECT_FALSE(Send("GET", "/api/v1/pods?watch=1").ok());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(290));
  EXPECT_EQ(proxy_->Requests().back().outcome, "gate-expired");
  EXPECT_EQ(Seen("GET /api/v1/pods"), 0);
}

TEST_P(FaultProxyTest, PauseFreezesEverythingUntilResume) {
  TRIMARAN_ASSERT_OK(Send("GET", "/warm").status());
  proxy_->Pause();
  std::atomic<bool> done{false};
  std::thread t([&] {
    EXPECT_THAT(Send("GET", "/during-pause"), IsOk());
    done = true;
  });
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_FALSE(done.load());
  EXPECT_EQ(Seen("GET /during-pause"), 0);
  proxy_->Resume();
  t.join();
  EXPECT_EQ(Seen("GET /during-pause"), 1);
}

TEST_P(FaultProxyTest, PauseIsBoundedByMaxHold) {
  StartProxy({.max_hold = absl::Milliseconds(300)});
  TRIMARAN_ASSERT_OK(Send("GET", "/warm").status());
  ASSERT_EQ(proxy_->OpenConnections(), 1);
  proxy_->Pause();
  std::thread t([&] { EXPECT_THAT(Send("GET", "/during-pause"), IsOk()); });
  // The paused connection gives up after max_hold and closes; nothing reached upstream.
  EXPECT_TRUE(Eventually([&] { return proxy_->OpenConnections() == 0; }, absl::Seconds(3)));
  EXPECT_EQ(Seen("GET /during-pause"), 0);
  // The client's retry waits in the listen backlog until the proxy resumes.
  proxy_->Resume();
  t.join();
  EXPECT_EQ(Seen("GET /during-pause"), 1);
}

TEST_P(FaultProxyTest, StopEndsHeldPausedAndStreamingRequestsPromptly) {
  TRIMARAN_ASSERT_OK(
      proxy_->AddRule(FaultRule::Hang({.path_regex = "/held"}, absl::InfiniteDuration())));
  std::thread held([&] { EXPECT_FALSE(Send("GET", "/held").ok()); });
  absl::Notification got_first;
  std::thread stream([&] {
    http::HttpRequest req;
    req.url = proxy_->url() + "/stream";
    req.timeout = absl::Seconds(10);
    req.on_chunk = [&](absl::string_view) {
      if (!got_first.HasBeenNotified()) got_first.Notify();
      return true;
    };
    EXPECT_FALSE(client_->Send(req).ok());
  });
  ASSERT_TRUE(Eventually([&] { return proxy_->HeldRequests() == 1; }));
  ASSERT_TRUE(got_first.WaitForNotificationWithTimeout(absl::Seconds(5)));
  proxy_->Pause();
  const absl::Time start = absl::Now();
  proxy_->Stop();
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  held.join();
  stream.join();
  EXPECT_EQ(proxy_->OpenConnections(), 0);
}

TEST_P(FaultProxyTest, UpstreamDownIsA502) {
  const std::string url = upstream_->url();
  upstream_->Stop();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(http::HttpResponse r, Send("GET", "/x"));
  EXPECT_EQ(r.status_code, 502);
  EXPECT_THAT(r.body, HasSubstr("fault proxy"));
  EXPECT_THAT(proxy_->Requests().back().outcome, HasSubstr("upstream-error"));
}

TEST(FaultProxyOptionsTest, RefusesNonLoopbackUpstreamsAndMissingCa) {
  EXPECT_THAT(FaultProxy::Start({.upstream = "http://10.1.2.3:80"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(FaultProxy::Start({.upstream = "http://example.com:80"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(FaultProxy::Start({.upstream = "https://127.0.0.1:6443"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(FaultProxy::Start({.upstream = "ftp://127.0.0.1:21"}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(auto proxy, FaultProxy::Start({.upstream = "http://127.0.0.1:1"}));
  EXPECT_THAT(proxy->AddRule(FaultRule::Count({.path_regex = "(["})),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(proxy->url(), absl::StrCat("http://127.0.0.1:", proxy->port()));
}

}  // namespace
}  // namespace trimaran::e2e
