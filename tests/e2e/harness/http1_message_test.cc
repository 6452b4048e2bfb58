#include "tests/e2e/harness/http1_message.h"

#include <string>

#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::e2e {
namespace {

using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

TEST(Http1MessageTest, ParsesARequestHead) {
  const std::string raw =
      "GET /api/v1/pods?watch=true&resourceVersion=5 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n"
      "Accept:  application/json \r\n\r\n";
  EXPECT_EQ(FindHeadEnd(raw), raw.size());
  EXPECT_EQ(FindHeadEnd(raw.substr(0, raw.size() - 1)), 0u);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Http1Head head, ParseRequestHead(raw));
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.path(), "/api/v1/pods");
  EXPECT_EQ(head.query(), "watch=true&resourceVersion=5");
  EXPECT_EQ(head.headers.GetOr("accept"), "application/json");
  EXPECT_TRUE(head.KeepAlive());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(BodyFramer framer, BodyFramer::ForRequest(head));
  EXPECT_EQ(framer.kind(), BodyFramer::Kind::kNone);
  EXPECT_TRUE(framer.done());
}

TEST(Http1MessageTest, RefusesMalformedHeads) {
  EXPECT_THAT(ParseRequestHead("GET /\r\n\r\n"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseRequestHead("GET / HTTP/2\r\n\r\n"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseRequestHead("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseRequestHead("GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseResponseHead("HTTP/1.1 2000 OK\r\n\r\n"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      Http1Head conflicting,
      ParseRequestHead("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n"));
  EXPECT_THAT(BodyFramer::ForRequest(conflicting), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Http1MessageTest, ResponseFramingFollowsRfc9112) {
  auto framing = [](const std::string& head_text, const std::string& method) {
    absl::StatusOr<Http1Head> head = ParseResponseHead(head_text);
    EXPECT_THAT(head, IsOk());
    absl::StatusOr<BodyFramer> f = BodyFramer::ForResponse(*head, method);
    EXPECT_THAT(f, IsOk());
    return f->kind();
  };
  using Kind = BodyFramer::Kind;
  EXPECT_EQ(framing("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "HEAD"), Kind::kNone);
  EXPECT_EQ(framing("HTTP/1.1 204 No Content\r\n\r\n", "GET"), Kind::kNone);
  EXPECT_EQ(framing("HTTP/1.1 304 Not Modified\r\n\r\n", "GET"), Kind::kNone);
  EXPECT_EQ(framing("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "GET"),
            Kind::kChunked);
  EXPECT_EQ(framing("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "GET"), Kind::kLength);
  EXPECT_EQ(framing("HTTP/1.1 200 OK\r\n\r\n", "GET"), Kind::kUntilClose);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Http1Head h10, ParseResponseHead("HTTP/1.0 200 OK\r\n\r\n"));
  EXPECT_FALSE(h10.KeepAlive());
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Http1Head closing,
                                ParseResponseHead("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"));
  EXPECT_FALSE(closing.KeepAlive());
}

TEST(Http1MessageTest, ChunkedBodyEndsAtTheLastChunkEvenByteByByte) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(
      Http1Head head, ParseResponseHead("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
  const std::string body =
      "7;ext=1\r\n{\"a\":1}\r\n"
      "1\r\n\n\r\n"
      "0\r\nTrailer: x\r\n\r\n";
  // Whole, with trailing bytes of the next message.
  {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(BodyFramer f, BodyFramer::ForResponse(head, "GET"));
    std::string payload;
    f.CollectPayload(&payload, 1024);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(size_t used, f.Consume(body + "HTTP/1.1 200"));
    EXPECT_EQ(used, body.size());
    EXPECT_TRUE(f.done());
    EXPECT_EQ(payload, "{\"a\":1}\n");
  }
  // One byte at a time: done exactly at the last byte.
  {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(BodyFramer f, BodyFramer::ForResponse(head, "GET"));
    for (size_t i = 0; i < body.size(); ++i) {
      ASSERT_FALSE(f.done()) << i;
      TRIMARAN_ASSERT_OK_AND_ASSIGN(size_t used, f.Consume(body.substr(i, 1)));
      EXPECT_EQ(used, 1u);
    }
    EXPECT_TRUE(f.done());
  }
  // Bad framing.
  {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(BodyFramer f, BodyFramer::ForResponse(head, "GET"));
    EXPECT_THAT(f.Consume("zz\r\n"), StatusIs(absl::StatusCode::kInvalidArgument));
  }
  {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(BodyFramer f, BodyFramer::ForResponse(head, "GET"));
    EXPECT_THAT(f.Consume("1\r\nab\r\n"), StatusIs(absl::StatusCode::kInvalidArgument));
  }
  // Truncated at close.
  {
    TRIMARAN_ASSERT_OK_AND_ASSIGN(BodyFramer f, BodyFramer::ForResponse(head, "GET"));
    TRIMARAN_ASSERT_OK(f.Consume("5\r\nab").status());
    EXPECT_FALSE(f.FinishAtClose());
  }
}

TEST(Http1MessageTest, ContentLengthBodyAndPayloadLimit) {
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Http1Head head,
                                ParseRequestHead("POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\n"));
  TRIMARAN_ASSERT_OK_AND_ASSIGN(BodyFramer f, BodyFramer::ForRequest(head));
  std::string payload;
  f.CollectPayload(&payload, 4);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(size_t a, f.Consume("01234"));
  EXPECT_EQ(a, 5u);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(size_t b, f.Consume("56789GET"));
  EXPECT_EQ(b, 5u);
  EXPECT_TRUE(f.done());
  EXPECT_EQ(payload, "0123");
  EXPECT_TRUE(f.payload_truncated());
}

TEST(Http1MessageTest, SerializesResponseHeads) {
  EXPECT_EQ(SerializeResponseHead(429, "", {{"Retry-After", "60"}}),
            "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 60\r\n\r\n");
  EXPECT_EQ(SerializeResponseHead(299, "Odd", {}), "HTTP/1.1 299 Odd\r\n\r\n");
}

}  // namespace
}  // namespace trimaran::e2e
