#include "dashboard/web/decisions.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "common/http/testing/fake_transport.h"
#include "common/testing/temp_dir_for_test.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::dashboard::web {
namespace {

using ::testing::HasSubstr;

constexpr char kDoc[] =
    R"({"capacity":1000,"decisions":[{"time":"2026-11-26T21:00:00.123Z","pod":"default/web-1",)"
    R"("uid":"u1","profile":"trimaran","result":"Bound","node":"node-7","evaluatedNodes":5,)"
    R"("feasibleNodes":3,"fallbacks":[],"message":"","top":[{"node":"node-7","total":412,)"
    R"("scores":{"TargetLoadPacking":97}}]}]})";

TEST(HttpDecisionsSourceTest, FetchesWithTheTokenAndLimit) {
  http::testing::FakeTransport transport;
  transport.AddResponse("GET", "https://sched:10259/debug/decisions?limit=7", 200, kDoc);
  HttpDecisionsOptions o;
  o.url = "https://sched:10259/";
  o.bearer_token = "tok";
  o.tls.ca_file = "/ca.pem";
  HttpDecisionsSource source(transport, o);
  absl::StatusOr<std::string> got = source.Fetch(7);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, kDoc);
  ASSERT_EQ(transport.Requests().size(), 1u);
  EXPECT_EQ(transport.Requests()[0].headers.GetOr("Authorization"), "Bearer tok");
  ASSERT_TRUE(transport.Requests()[0].tls.has_value());
  EXPECT_EQ(transport.Requests()[0].tls->ca_file, "/ca.pem");
  EXPECT_EQ(source.Describe(), "https://sched:10259/");
}

TEST(HttpDecisionsSourceTest, TokenFileIsReadEveryCall) {
  trimaran::testing::TempDirForTest tmp;
  const std::string dir = tmp.path();
  const std::string path = tmp.Write("token", "first\n");
  http::testing::FakeTransport transport;
  transport.AddResponse("GET", "https://s/debug/decisions", 200, kDoc);
  HttpDecisionsOptions o;
  o.url = "https://s";
  o.bearer_token = "ignored";
  o.bearer_token_file = path;
  HttpDecisionsSource source(transport, o);
  ASSERT_TRUE(source.Fetch(1).ok());
  std::ofstream(path) << "second";
  ASSERT_TRUE(source.Fetch(1).ok());
  ASSERT_EQ(transport.Requests().size(), 2u);
  EXPECT_EQ(transport.Requests()[0].headers.GetOr("Authorization"), "Bearer first");
  EXPECT_EQ(transport.Requests()[1].headers.GetOr("Authorization"), "Bearer second");

  o.bearer_token_file = dir + "/missing";
  HttpDecisionsSource broken(transport, o);
  absl::StatusOr<std::string> got = broken.Fetch(1);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(got.status().message(), HasSubstr("token file"));
}

TEST(HttpDecisionsSourceTest, TokenSourceIsAskedEveryCall) {
  http::testing::FakeTransport transport;
  transport.AddResponse("GET", "https://s/debug/decisions", 200, kDoc);
  int calls = 0;
  HttpDecisionsOptions o;
  o.url = "https://s";
  o.bearer_token = "fallback";
  o.token_source = [&calls]() -> absl::StatusOr<std::string> {
    if (++calls == 2) return absl::UnauthenticatedError("exec plugin failed");
    return absl::StrCat("exec-", calls);
  };
  HttpDecisionsSource source(transport, o);
  ASSERT_TRUE(source.Fetch(1).ok());
  absl::Status s = source.Fetch(1).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(s.message(), HasSubstr("credentials: exec plugin failed"));
  ASSERT_TRUE(source.Fetch(1).ok());
  ASSERT_EQ(transport.Requests().size(), 2u);  // the failed call sent nothing
  EXPECT_EQ(transport.Requests()[0].headers.GetOr("Authorization"), "Bearer exec-1");
  EXPECT_EQ(transport.Requests()[1].headers.GetOr("Authorization"), "Bearer exec-3");
}

TEST(HttpDecisionsSourceTest, ErrorsAreClear) {
  http::testing::FakeTransport transport;
  transport.AddResponse("GET", "https://forbidden/", 403, "forbidden: User \"x\" cannot get path");
  transport.AddResponse("GET", "https://garbage/", 200, "<html>");
  transport.AddResponse("GET", "https://wrongshape/", 200, R"({"items":[]})");
  transport.AddError("GET", "https://down/", absl::UnavailableError("connection refused"));
  auto fetch = [&](const std::string& url) {
    HttpDecisionsOptions o;
    o.url = url;
    HttpDecisionsSource s(transport, o);
    return s.Fetch(10).status();
  };
  absl::Status s = fetch("https://forbidden");
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(s.message(), HasSubstr("HTTP 403: forbidden"));
  s = fetch("https://garbage");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("not JSON"));
  s = fetch("https://wrongshape");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("\"decisions\" array"));
  s = fetch("https://down");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("connection refused"));
}

}  // namespace
}  // namespace trimaran::dashboard::web
