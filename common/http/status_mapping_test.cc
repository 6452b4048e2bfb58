#include "common/http/status_mapping.h"

#include <string>
#include <vector>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::http {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

TEST(StatusFromHttpTest, CanonicalTable) {
  struct TestCase {
    std::string name;
    int http_code;
    std::string method;
    absl::StatusCode want;
    bool retryable;
  };
  const std::vector<TestCase> cases = {
      {"200 ok", 200, "GET", absl::StatusCode::kOk, false},
      {"201 created", 201, "POST", absl::StatusCode::kOk, false},
      {"204 no content", 204, "DELETE", absl::StatusCode::kOk, false},
      {"101 unexpected", 101, "GET", absl::StatusCode::kFailedPrecondition, false},
      {"302 not followed", 302, "GET", absl::StatusCode::kFailedPrecondition, false},
      {"400 bad request", 400, "POST", absl::StatusCode::kInvalidArgument, false},
      {"401 unauthenticated", 401, "GET", absl::StatusCode::kUnauthenticated, false},
      {"403 forbidden", 403, "GET", absl::StatusCode::kPermissionDenied, false},
      {"404 not found", 404, "GET", absl::StatusCode::kNotFound, false},
      {"405 other 4xx", 405, "GET", absl::StatusCode::kFailedPrecondition, false},
      {"408 request timeout", 408, "GET", absl::StatusCode::kUnavailable, true},
      {"409 on create", 409, "POST", absl::StatusCode::kAlreadyExists, false},
      {"409 on update", 409, "PUT", absl::StatusCode::kAborted, false},
      {"409 on patch", 409, "PATCH", absl::StatusCode::kAborted, false},
      {"410 gone on watch", 410, "GET", absl::StatusCode::kAborted, false},
      {"412 precondition", 412, "DELETE", absl::StatusCode::kFailedPrecondition, false},
      {"415 other 4xx", 415, "POST", absl::StatusCode::kFailedPrecondition, false},
      {"422 invalid", 422, "POST", absl::StatusCode::kInvalidArgument, false},
      {"429 throttled", 429, "GET", absl::StatusCode::kUnavailable, true},
      {"500 server error", 500, "GET", absl::StatusCode::kUnavailable, true},
      {"502 bad gateway", 502, "GET", absl::StatusCode::kUnavailable, true},
      {"503 unavailable", 503, "GET", absl::StatusCode::kUnavailable, true},
      {"504 gateway timeout", 504, "GET", absl::StatusCode::kUnavailable, true},
      {"0 nonsense", 0, "GET", absl::StatusCode::kUnknown, false},
      {"600 nonsense", 600, "GET", absl::StatusCode::kUnknown, false},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    absl::Status s = StatusFromHttp(tc.http_code, "body", {.method = tc.method, .target = "x"});
    EXPECT_EQ(s.code(), tc.want) << s;
    EXPECT_EQ(IsRetryable(s), tc.retryable);
    if (!s.ok()) {
      EXPECT_THAT(std::string(s.message()), HasSubstr(absl::StrCat("(HTTP ", tc.http_code, ")")));
    }
  }
}

TEST(StatusFromHttpTest, MessageNamesOperationAndCompactsBody) {
  absl::Status s = StatusFromHttp(404, "  {\n  \"message\": \"pods \\\"web\\\" not found\"\n}\n",
                                  {.method = "GET", .target = "pod default/web"});
  EXPECT_EQ(
      s.message(),
      "GET pod default/web: not found (HTTP 404): { \"message\": \"pods \\\"web\\\" not found\" }");

  EXPECT_EQ(StatusFromHttp(410, "", {.method = "GET"}).message(), "GET: gone: re-list (HTTP 410)");
  EXPECT_EQ(StatusFromHttp(500, "", {}).message(), "internal server error (HTTP 500)");

  std::string big(2000, 'x');
  std::string msg(StatusFromHttp(500, big, {}).message());
  EXPECT_LT(msg.size(), 600u);
  EXPECT_THAT(msg, ::testing::EndsWith("..."));
}

TEST(StatusFromResponseTest, AddsRetryAfter) {
  HttpResponse r{.status_code = 429, .headers = {{"retry-after", "7"}}, .body = "slow down"};
  absl::Status s = StatusFromResponse(r, {.method = "GET", .target = "/api"});
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("(retry after 7s)")));
  EXPECT_THAT(StatusFromResponse(HttpResponse{.status_code = 200}, {}), IsOk());
}

TEST(StatusFromCurlTest, CanonicalTable) {
  struct TestCase {
    std::string name;
    CURLcode code;
    long os_errno;
    absl::StatusCode want;
    std::string summary;
  };
  const std::vector<TestCase> cases = {
      {"ok", CURLE_OK, 0, absl::StatusCode::kOk, ""},
      {"timeout", CURLE_OPERATION_TIMEDOUT, 0, absl::StatusCode::kDeadlineExceeded, "timed out"},
      {"refused", CURLE_COULDNT_CONNECT, ECONNREFUSED, absl::StatusCode::kUnavailable,
       "connection refused"},
      {"unreachable", CURLE_COULDNT_CONNECT, EHOSTUNREACH, absl::StatusCode::kUnavailable,
       "host unreachable"},
      {"resolve", CURLE_COULDNT_RESOLVE_HOST, 0, absl::StatusCode::kUnavailable,
       "cannot resolve host"},
      {"reset", CURLE_RECV_ERROR, ECONNRESET, absl::StatusCode::kUnavailable, "connection reset"},
      {"send", CURLE_SEND_ERROR, EPIPE, absl::StatusCode::kUnavailable, "send failed"},
      {"partial", CURLE_PARTIAL_FILE, 0, absl::StatusCode::kUnavailable, "response cut short"},
      {"nothing", CURLE_GOT_NOTHING, 0, absl::StatusCode::kUnavailable, "empty reply"},
      {"handshake", CURLE_SSL_CONNECT_ERROR, 0, absl::StatusCode::kUnavailable,
       "TLS handshake failed"},
      {"verify", CURLE_PEER_FAILED_VERIFICATION, 0, absl::StatusCode::kFailedPrecondition,
       "TLS certificate verification failed"},
      {"ca file", CURLE_SSL_CACERT_BADFILE, 0, absl::StatusCode::kFailedPrecondition,
       "TLS CA certificates cannot be loaded"},
      {"client cert", CURLE_SSL_CERTPROBLEM, 0, absl::StatusCode::kFailedPrecondition,
       "TLS client certificate"},
      {"url", CURLE_URL_MALFORMAT, 0, absl::StatusCode::kInvalidArgument, "malformed url"},
      {"protocol", CURLE_UNSUPPORTED_PROTOCOL, 0, absl::StatusCode::kInvalidArgument,
       "unsupported protocol"},
      {"callback", CURLE_ABORTED_BY_CALLBACK, 0, absl::StatusCode::kCancelled, "cancelled"},
      {"memory", CURLE_OUT_OF_MEMORY, 0, absl::StatusCode::kResourceExhausted, "out of memory"},
      {"other", CURLE_FAILED_INIT, 0, absl::StatusCode::kInternal, "transfer failed"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    absl::Status s = StatusFromCurl(tc.code, "GET https://127.0.0.1:6443/api", "", tc.os_errno);
    EXPECT_EQ(s.code(), tc.want) << s;
    if (s.ok()) continue;
    EXPECT_THAT(std::string(s.message()),
                HasSubstr(absl::StrCat("GET https://127.0.0.1:6443/api: ", tc.summary)));
    EXPECT_THAT(std::string(s.message()),
                HasSubstr(absl::StrCat("(curl ", static_cast<int>(tc.code), ": ")));
  }
}

TEST(StatusFromCurlTest, KeepsCurlTextAndOsError) {
  absl::Status s = StatusFromCurl(CURLE_COULDNT_CONNECT, "GET http://127.0.0.1:1/x",
                                  "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't "
                                  "connect to server",
                                  ECONNREFUSED);
  EXPECT_EQ(s.message(),
            "GET http://127.0.0.1:1/x: connection refused (curl 7: Failed to connect to 127.0.0.1 "
            "port 1 after 0 ms: Couldn't connect to server)");
  // An OS error the summary does not already state is kept.
  EXPECT_EQ(StatusFromCurl(CURLE_SEND_ERROR, "GET u", "send failure", EPIPE).message(),
            "GET u: send failed (curl 55: send failure; Broken pipe)");
  // Without curl's buffer, curl_easy_strerror is used.
  EXPECT_EQ(StatusFromCurl(CURLE_OPERATION_TIMEDOUT, "GET u").message(),
            "GET u: timed out (curl 28: Timeout was reached)");
}

TEST(IsRetryableTest, OnlyTransientCodes) {
  EXPECT_TRUE(IsRetryable(absl::UnavailableError("x")));
  EXPECT_TRUE(IsRetryable(absl::DeadlineExceededError("x")));
  EXPECT_FALSE(IsRetryable(absl::OkStatus()));
  EXPECT_FALSE(IsRetryable(absl::AbortedError("x")));
  EXPECT_FALSE(IsRetryable(absl::NotFoundError("x")));
  EXPECT_FALSE(IsRetryable(absl::FailedPreconditionError("x")));
  EXPECT_FALSE(IsRetryable(absl::CancelledError("x")));
}

TEST(RetryAfterTest, ParsesDeltaSeconds) {
  struct TestCase {
    std::string value;
    std::optional<absl::Duration> want;
  };
  const std::vector<TestCase> cases = {
      {"0", absl::ZeroDuration()},
      {"120", absl::Seconds(120)},
      {" 5 ", absl::Seconds(5)},
      {"", std::nullopt},
      {"-1", std::nullopt},
      {"1.5", std::nullopt},
      {"Wed, 21 Oct 2015 07:28:00 GMT", std::nullopt},
      {"99999999999", std::nullopt},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.value);
    EXPECT_EQ(ParseRetryAfter(tc.value), tc.want);
  }
  EXPECT_THAT(RetryAfter(HttpResponse{.status_code = 503, .headers = {{"Retry-After", "3"}}}),
              Optional(absl::Seconds(3)));
  EXPECT_EQ(RetryAfter(HttpResponse{.status_code = 503}), std::nullopt);
}

}  // namespace
}  // namespace trimaran::http
