#pragma once
// FakeTransport: an in-memory HttpTransport for unit tests. It answers from a script
// of rules and records every request it receives.
//
// A rule matches on the method ("" = any) and a URL prefix, and answers with one of
//   - a canned HttpResponse (any status; 4xx/5xx are responses, not errors),
//   - an absl::Status error (what CurlTransport returns for connection failures,
//     timeouts, TLS problems),
//   - a canned stream: chunks delivered one by one to HttpRequest::on_chunk (or
//     concatenated into the body when the request is not streaming),
//   - an open FakeStream that the test feeds while Send blocks (watches),
//   - a handler function computing the answer.
// Rules are tried in the order they were added; the first one matching wins. A rule
// added with `times` = N answers N requests and is then dropped, so "fail once, then
// succeed" is two rules; `times` = 0 means forever. A request no rule matches gets an
// HTTP 404 response whose body says so.
//
//   FakeTransport fake;
//   fake.AddError("GET", "https://api/pods", absl::UnavailableError("reset"), /*times=*/1);
//   fake.AddResponse("GET", "https://api/pods", 200, R"({"items":[]})");
//   ... code under test ...
//   EXPECT_EQ(fake.Requests().size(), 2);
//
// Thread-safety: safe for concurrent use (Send from many threads while the test adds
// rules, feeds streams or reads the record). Handlers and on_chunk run on the Send
// caller's thread without the fake's lock held.

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/http/transport.h"

namespace trimaran::http::testing {

// A stream the test drives while a streaming Send is blocked on it.
class FakeStream {
 public:
  FakeStream() = default;
  FakeStream(const FakeStream&) = delete;
  FakeStream& operator=(const FakeStream&) = delete;

  // Queues a chunk for the client.
  void Push(std::string chunk);
  // Ends the response normally once queued chunks are delivered.
  void Close();
  // Makes Send return `status` (e.g. UnavailableError: connection reset) once queued
  // chunks are delivered.
  void Fail(absl::Status status);

  // Waits until a Send is attached to this stream. False on timeout.
  bool WaitForClient(absl::Duration timeout) const;
  // Waits until the client stopped (on_chunk returned false or its stop_token fired)
  // or the stream ended. False on timeout.
  bool WaitForEnd(absl::Duration timeout) const;
  // True once the client stopped reading (on_chunk returned false or stop requested).
  bool ClientStopped() const;

 private:
  friend class FakeTransport;
  // Serves one request: blocks delivering chunks until closed, failed or stopped.
  absl::StatusOr<HttpResponse> Serve(const HttpRequest& request, HttpResponse head);
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::deque<std::string> pending_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<absl::Status> failure_ ABSL_GUARDED_BY(mu_);
  bool attached_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_requested_ ABSL_GUARDED_BY(mu_) = false;
  bool client_stopped_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
};

class FakeTransport final : public HttpTransport {
 public:
  using Handler = std::function<absl::StatusOr<HttpResponse>(const HttpRequest&)>;

  FakeTransport() = default;
  FakeTransport(const FakeTransport&) = delete;
  FakeTransport& operator=(const FakeTransport&) = delete;

  // Answers with an HTTP response.
  void AddResponse(std::string method, std::string url_prefix, int status_code, std::string body,
                   Headers headers = {}, int times = 0);
  // Answers with a transport error (Send returns `status`).
  void AddError(std::string method, std::string url_prefix, absl::Status status, int times = 0);
  // Answers with a 2xx (or other) response whose body arrives as `chunks`.
  void AddStream(std::string method, std::string url_prefix, std::vector<std::string> chunks,
                 int status_code = 200, Headers headers = {}, int times = 0);
  // Answers the next matching request with a stream the test feeds; returns it.
  std::shared_ptr<FakeStream> AddOpenStream(std::string method, std::string url_prefix,
                                            int status_code = 200, Headers headers = {});
  // Answers by calling `handler` (which may itself call request.on_chunk).
  void AddHandler(std::string method, std::string url_prefix, Handler handler, int times = 0);
  // Drops every rule.
  void ClearRules();

  absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override;

  // Every request received, in order (copies).
  std::vector<HttpRequest> Requests() const;
  // The most recent request, or nullopt when none arrived.
  std::optional<HttpRequest> LastRequest() const;
  int RequestCount() const;
  void ClearRequests();

 private:
  struct Rule {
    std::string method;
    std::string url_prefix;
    int remaining = 0;  // 0: forever
    Handler handler;
  };
  void AddRule(std::string method, std::string url_prefix, int times, Handler handler);

  mutable absl::Mutex mu_;
  std::vector<Rule> rules_ ABSL_GUARDED_BY(mu_);
  std::vector<HttpRequest> requests_ ABSL_GUARDED_BY(mu_);
};

}  // namespace trimaran::http::testing
