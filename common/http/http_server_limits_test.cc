// HttpServer against hostile clients (issue 30 point 5): raw sockets, so the test sends
// exactly the bytes a client library would not.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/http/http_server.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::http {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::trimaran::testing::IsOk;

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Sends `data`; false once the peer stops reading or closes.
bool SendAll(int fd, absl::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Everything the server sends until it closes or `timeout` passes.
std::string ReadAll(int fd, absl::Duration timeout = absl::Seconds(10)) {
  std::string out;
  const absl::Time deadline = absl::Now() + timeout;
  char buf[4096];
  while (absl::Now() < deadline) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    if (poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Sends `request` (from a thread, so a server answering early is seen) and returns the
// answer.
std::string Exchange(int port, std::string request) {
  const int fd = Connect(port);
  if (fd < 0) return "connect failed";
  std::thread sender([fd, request = std::move(request)] { SendAll(fd, request); });
  std::string answer = ReadAll(fd);
  shutdown(fd, SHUT_RDWR);
  sender.join();
  close(fd);
  return answer;
}

class HttpServerLimitsTest : public ::testing::Test {
 protected:
  void StartServer(HttpServerOptions options) {
    options.name = "limits";
    TRIMARAN_ASSERT_OK_AND_ASSIGN(server_, HttpServer::Create(std::move(options)));
    ASSERT_THAT(server_->AddRoute(
                    {.path = "/ok",
                     .handler = [](const ServerRequest&, ServerResponse& r) { r.body = "ok"; }}),
                IsOk());
    ASSERT_THAT(server_->AddRoute({.path = "/echo",
                                   .methods = {"POST"},
                                   .handler =
                                       [](const ServerRequest& q, ServerResponse& r) {
                                         r.body = absl::StrCat("len=", q.body.size());
                                       }}),
                IsOk());
    ASSERT_THAT(server_->Start(), IsOk());
  }

  // The server still answers a plain GET.
  void ExpectServing() {
    EXPECT_THAT(
        Exchange(server_->port(), "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        StartsWith("HTTP/1.1 200"));
  }

  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerLimitsTest, OversizedHeaderIs431AndClosed) {
  StartServer({});
  const std::string answer =
      Exchange(server_->port(),
               absl::StrCat("GET /ok HTTP/1.1\r\nX-Big: ", std::string(1 << 20, 'a'), "\r\n\r\n"));
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 431"));
  EXPECT_THAT(answer, HasSubstr("Connection: close"));
  ExpectServing();
}

TEST_F(HttpServerLimitsTest, HeaderLineWithoutEndIs431) {
  StartServer({});
  // 1 MiB of request head that never ends a line: refused at 64 KiB, not buffered.
  EXPECT_THAT(
      Exchange(server_->port(), absl::StrCat("GET /ok HTTP/1.1\r\nX: ", std::string(1 << 20, 'a'))),
      StartsWith("HTTP/1.1 431"));
  EXPECT_THAT(Exchange(server_->port(), absl::StrCat("GET /", std::string(1 << 20, 'a'))),
              StartsWith("HTTP/1.1 414"));
  ExpectServing();
}

TEST_F(HttpServerLimitsTest, TooManyHeadersIs431) {
  StartServer({});
  std::string req = "GET /ok HTTP/1.1\r\n";
  for (int i = 0; i < 10'000; ++i) absl::StrAppend(&req, "X-", i, ": 1\r\n");
  req += "\r\n";
  EXPECT_THAT(Exchange(server_->port(), req), StartsWith("HTTP/1.1 431"));
  // Exactly max_headers is fine.
  std::string at = "GET /ok HTTP/1.1\r\nConnection: close\r\n";
  for (int i = 1; i < 100; ++i) absl::StrAppend(&at, "X-", i, ": 1\r\n");
  at += "\r\n";
  EXPECT_THAT(Exchange(server_->port(), at), StartsWith("HTTP/1.1 200"));
}

TEST_F(HttpServerLimitsTest, BodyLimitsIncludingChunked) {
  StartServer({.max_request_body_bytes = 1000});
  const int port = server_->port();
  EXPECT_THAT(Exchange(port, absl::StrCat("POST /echo HTTP/1.1\r\nConnection: close\r\n"
                                          "Content-Length: 1000\r\n\r\n",
                                          std::string(1000, 'a'))),
              HasSubstr("len=1000"));
  // Declared 100 MB: refused at once, nothing read.
  const absl::Time start = absl::Now();
  EXPECT_THAT(
      Exchange(port, absl::StrCat("POST /echo HTTP/1.1\r\nContent-Length: 100000000\r\n\r\n",
                                  std::string(1 << 20, 'a'))),
      StartsWith("HTTP/1.1 413"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  // Chunked within the limit reaches the handler de-chunked.
  EXPECT_THAT(Exchange(port,
                       "POST /echo HTTP/1.1\r\nConnection: close\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n3e8\r\n" +
                           std::string(1000, 'b') + "\r\n0\r\n\r\n"),
              HasSubstr("len=1000"));
  // Chunked without end: refused at the limit.
  std::string endless = "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 100'000; ++i) endless += "a\r\n0123456789\r\n";
  EXPECT_THAT(Exchange(port, endless), StartsWith("HTTP/1.1 413"));
  ExpectServing();
}

TEST_F(HttpServerLimitsTest, SlowClientGets408) {
  StartServer({.request_head_timeout = absl::Milliseconds(500)});
  const int fd = Connect(server_->port());
  ASSERT_GE(fd, 0);
  const absl::Time start = absl::Now();
  // A byte every 100 ms: never idle long enough for a read timeout, but the head's
  // deadline passes.
  std::atomic<bool> done{false};
  std::thread loris([&] {
    SendAll(fd, "GET /ok HTTP/1.1\r\nX: ");
    while (!done.load() && SendAll(fd, "a")) absl::SleepFor(absl::Milliseconds(100));
  });
  const std::string answer = ReadAll(fd, absl::Seconds(5));
  const absl::Duration took = absl::Now() - start;
  done.store(true);
  loris.join();
  close(fd);
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 408"));
  EXPECT_LT(took, absl::Seconds(3));
  ExpectServing();
}

TEST_F(HttpServerLimitsTest, ConnectionFloodIsCappedAndProbesRecover) {
  StartServer({.worker_threads = 2, .max_connections = 4});
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(Connect(server_->port()));
  absl::SleepFor(absl::Milliseconds(200));
  // The fifth is refused by the accept loop.
  EXPECT_THAT(Exchange(server_->port(), "GET /ok HTTP/1.1\r\n\r\n"), StartsWith("HTTP/1.1 503"));
  for (int fd : idle) close(fd);
  absl::SleepFor(absl::Milliseconds(200));
  ExpectServing();
}

TEST_F(HttpServerLimitsTest, KeepAliveAndPipelining) {
  StartServer({});
  const std::string answer =
      Exchange(server_->port(),
               "POST /echo HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
               "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"
               "GET /ok HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(answer, HasSubstr("len=3"));
  EXPECT_THAT(answer, HasSubstr("len=2"));
  EXPECT_THAT(answer, HasSubstr("\r\n\r\nok"));
}

}  // namespace
}  // namespace trimaran::http
