#include "common/http/testing/fake_transport.h"

#include <string>
#include <thread>
#include <vector>

#include "common/http/status_mapping.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::http::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

TEST(FakeTransportTest, CannedResponsesByMethodAndPrefix) {
  FakeTransport fake;
  fake.AddResponse("GET", "https://api/api/v1/nodes", 200, R"({"items":[]})",
                   {{"Content-Type", "application/json"}});
  fake.AddResponse("POST", "https://api/api/v1/namespaces/default/pods", 409, "exists");
  fake.AddResponse("", "https://prom/", 503, "down", {{"Retry-After", "4"}});

  struct TestCase {
    std::string method;
    std::string url;
    int want_status;
    std::string want_body;
  };
  const std::vector<TestCase> cases = {
      {"GET", "https://api/api/v1/nodes?limit=500", 200, R"({"items":[]})"},
      {"POST", "https://api/api/v1/namespaces/default/pods", 409, "exists"},
      {"GET", "https://prom/api/v1/query", 503, "down"},
      {"DELETE", "https://prom/x", 503, "down"},
      {"PUT", "https://api/api/v1/nodes/n1", 404,
       "FakeTransport: no rule for PUT https://api/api/v1/nodes/n1"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.method + " " + tc.url);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r, fake.Send({.method = tc.method, .url = tc.url}));
    EXPECT_EQ(r.status_code, tc.want_status);
    EXPECT_EQ(r.body, tc.want_body);
  }
  EXPECT_EQ(fake.RequestCount(), 5);
  ASSERT_TRUE(fake.LastRequest().has_value());
  EXPECT_EQ(fake.LastRequest()->method, "PUT");
}

TEST(FakeTransportTest, ScriptedFailureThenSuccess) {
  FakeTransport fake;
  fake.AddError("GET", "https://api/", absl::UnavailableError("connection reset"), /*times=*/2);
  fake.AddResponse("GET", "https://api/", 200, "ok");
  EXPECT_THAT(fake.Send({.url = "https://api/x"}), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(fake.Send({.url = "https://api/x"}), StatusIs(absl::StatusCode::kUnavailable));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r, fake.Send({.url = "https://api/x"}));
  EXPECT_EQ(r.body, "ok");
  TRIMARAN_ASSERT_OK_AND_ASSIGN(r, fake.Send({.url = "https://api/x"}));
  EXPECT_EQ(r.body, "ok");
}

TEST(FakeTransportTest, RecordsRequests) {
  FakeTransport fake;
  fake.AddResponse("", "", 200, "");
  ASSERT_THAT(fake.Send({.method = "POST",
                         .url = "https://api/binding",
                         .headers = {{"Authorization", "Bearer t"}},
                         .body = "{}"}),
              IsOk());
  std::vector<HttpRequest> requests = fake.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].url, "https://api/binding");
  EXPECT_EQ(requests[0].headers.GetOr("authorization"), "Bearer t");
  EXPECT_EQ(requests[0].body, "{}");
  fake.ClearRequests();
  EXPECT_EQ(fake.RequestCount(), 0);
}

TEST(FakeTransportTest, HandlerComputesAnswer) {
  FakeTransport fake;
  fake.AddHandler("GET", "https://api/",
                  [](const HttpRequest& req) -> absl::StatusOr<HttpResponse> {
                    return HttpResponse{.status_code = 200, .body = "echo " + req.url};
                  });
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r, fake.Send({.url = "https://api/a"}));
  EXPECT_EQ(r.body, "echo https://api/a");
}

TEST(FakeTransportTest, CannedStream) {
  FakeTransport fake;
  fake.AddStream("GET", "https://api/watch", {"a", "b", "c"});
  fake.AddStream("GET", "https://api/gone", {"expired"}, 410);

  std::vector<std::string> got;
  ASSERT_THAT(fake.Send({.url = "https://api/watch",
                         .on_chunk =
                             [&](absl::string_view c) {
                               got.emplace_back(c);
                               return true;
                             }}),
              IsOk());
  EXPECT_THAT(got, ElementsAre("a", "b", "c"));

  // The callback stops the stream early.
  got.clear();
  ASSERT_THAT(fake.Send({.url = "https://api/watch",
                         .on_chunk =
                             [&](absl::string_view c) {
                               got.emplace_back(c);
                               return false;
                             }}),
              IsOk());
  EXPECT_THAT(got, ElementsAre("a"));

  // Without a callback, the chunks form the body.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse r, fake.Send({.url = "https://api/watch"}));
  EXPECT_EQ(r.body, "abc");

  // A non-2xx stream is collected into the body, as CurlTransport does.
  got.clear();
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      r, fake.Send({.url = "https://api/gone", .on_chunk = [&](absl::string_view c) {
                      got.emplace_back(c);
                      return true;
                    }}));
  EXPECT_EQ(r.status_code, 410);
  EXPECT_EQ(r.body, "expired");
  EXPECT_TRUE(got.empty());
  EXPECT_THAT(StatusFromResponse(r, {.method = "GET"}), StatusIs(absl::StatusCode::kAborted));
}

TEST(FakeTransportTest, OpenStreamFedByTest) {
  FakeTransport fake;
  std::shared_ptr<FakeStream> stream = fake.AddOpenStream("GET", "https://api/watch");
  absl::Mutex mu;
  std::vector<std::string> got;
  absl::StatusOr<HttpResponse> result;
  std::jthread client([&] {
    result = fake.Send({.url = "https://api/watch?watch=1", .on_chunk = [&](absl::string_view c) {
                          absl::MutexLock lock(&mu);
                          got.emplace_back(c);
                          return true;
                        }});
  });
  ASSERT_TRUE(stream->WaitForClient(absl::Seconds(5)));
  stream->Push("e1");
  stream->Push("e2");
  stream->Close();
  client.join();
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->status_code, 200);
  EXPECT_THAT(got, ElementsAre("e1", "e2"));
  EXPECT_FALSE(stream->ClientStopped());
  // The open stream answered once; the next request falls through.
  TRIMARAN_ASSERT_OK_AND_ASSIGN(HttpResponse next, fake.Send({.url = "https://api/watch"}));
  EXPECT_EQ(next.status_code, 404);
}

TEST(FakeTransportTest, OpenStreamFailsOrIsCancelled) {
  {
    FakeTransport fake;
    std::shared_ptr<FakeStream> stream = fake.AddOpenStream("GET", "https://api/watch");
    stream->Push("e1");
    stream->Fail(absl::UnavailableError("connection reset"));
    int calls = 0;
    EXPECT_THAT(fake.Send({.url = "https://api/watch",
                           .on_chunk =
                               [&](absl::string_view) {
                                 ++calls;
                                 return true;
                               }}),
                StatusIs(absl::StatusCode::kUnavailable, HasSubstr("connection reset")));
    EXPECT_EQ(calls, 1);
  }
  {
    FakeTransport fake;
    std::shared_ptr<FakeStream> stream = fake.AddOpenStream("GET", "https://api/watch");
    std::stop_source stop;
    absl::StatusOr<HttpResponse> result;
    std::jthread client([&] {
      result = fake.Send({.url = "https://api/watch",
                          .on_chunk = [](absl::string_view) { return true; },
                          .stop_token = stop.get_token()});
    });
    ASSERT_TRUE(stream->WaitForClient(absl::Seconds(5)));
    stop.request_stop();
    ASSERT_TRUE(stream->WaitForEnd(absl::Seconds(5)));
    client.join();
    EXPECT_THAT(result, StatusIs(absl::StatusCode::kCancelled));
    EXPECT_TRUE(stream->ClientStopped());
  }
  {
    FakeTransport fake;
    std::shared_ptr<FakeStream> stream = fake.AddOpenStream("GET", "https://api/watch");
    stream->Push("e1");
    stream->Push("e2");
    EXPECT_THAT(fake.Send({.url = "https://api/watch",
                           .on_chunk = [](absl::string_view) { return false; }}),
                IsOk());
    EXPECT_TRUE(stream->ClientStopped());
  }
}

}  // namespace
}  // namespace trimaran::http::testing
