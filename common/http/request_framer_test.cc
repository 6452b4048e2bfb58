#include "common/http/request_framer.h"

#include <string>

#include "gtest/gtest.h"

namespace trimaran::http {
namespace {

constexpr RequestLimits kLimits{
    .max_request_line_bytes = 32, .max_header_bytes = 128, .max_headers = 3, .max_body_bytes = 10};

// Feeds `text` one byte at a time (as the parser reads it) and returns how much was taken.
size_t Feed(RequestFramer& f, const std::string& text) {
  size_t used = 0;
  for (char c : text) {
    if (f.Consume(std::string(1, c)) != 1) break;
    ++used;
  }
  return used;
}

TEST(RequestFramerTest, GetWithoutBodyEndsAfterItsHead) {
  RequestFramer f(kLimits);
  const std::string head = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  EXPECT_EQ(f.Consume(head + "GET /next"), head.size());
  EXPECT_TRUE(f.message_done());
  EXPECT_EQ(f.Consume("more"), 0u);
  f.BeginRequest();
  EXPECT_TRUE(f.idle());
  EXPECT_EQ(f.Consume("GET / HTTP/1.1\r\n\r\n"), 18u);
}

TEST(RequestFramerTest, ContentLengthBodyExactlyAtTheLimit) {
  RequestFramer f(kLimits);
  const std::string req = "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789";
  EXPECT_EQ(f.Consume(req + "extra"), req.size());
  EXPECT_TRUE(f.message_done());
  EXPECT_FALSE(f.failed());
}

TEST(RequestFramerTest, ContentLengthOneOverIs413BeforeTheBody) {
  RequestFramer f(kLimits);
  const std::string head = "POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n";
  EXPECT_EQ(f.Consume(head + "0"), head.size());
  EXPECT_EQ(f.Consume("0"), 0u);
  EXPECT_TRUE(f.failed());
  EXPECT_EQ(f.error_status(), 413);
}

TEST(RequestFramerTest, ChunkedBodyCountsEveryChunk) {
  RequestFramer ok(kLimits);
  const std::string at =
      "POST / HTTP/1.1\r\nTransfer-Encoding: "
      "chunked\r\n\r\n5\r\n01234\r\n5;x=y\r\n56789\r\n0\r\n\r\n";
  EXPECT_EQ(Feed(ok, at), at.size());
  EXPECT_TRUE(ok.message_done());

  RequestFramer over(kLimits);
  const std::string big =
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n6\r\n";
  EXPECT_LT(Feed(over, big), big.size());
  EXPECT_EQ(over.error_status(), 413);

  // A chunked body that never ends is refused at the limit, not buffered.
  RequestFramer endless(RequestLimits{.max_body_bytes = 1000});
  std::string stream = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 200; ++i) stream += "a\r\n0123456789\r\n";
  EXPECT_LT(endless.Consume(stream), stream.size());
  EXPECT_EQ(endless.error_status(), 413);
}

TEST(RequestFramerTest, HeadLimits) {
  struct Case {
    std::string name;
    std::string text;
    int status;
  };
  const Case cases[] = {
      {"request line", "GET /" + std::string(40, 'a') + " HTTP/1.1\r\n", 414},
      {"endless request line", std::string(1000, 'G'), 414},
      {"head bytes", "GET / HTTP/1.1\r\nA: " + std::string(200, 'x') + "\r\n\r\n", 431},
      {"header count", "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", 431},
      {"bad length", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"two lengths", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
      {"length and chunked",
       "POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"gzip coding", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 400},
      {"no colon", "GET / HTTP/1.1\r\nnocolon\r\n\r\n", 400},
      {"bad chunk size", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
      {"trailer", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n\r\n", 400},
  };
  for (const Case& c : cases) {
    RequestFramer f(kLimits);
    EXPECT_LT(Feed(f, c.text), c.text.size()) << c.name;
    EXPECT_TRUE(f.failed()) << c.name;
    EXPECT_EQ(f.error_status(), c.status) << c.name << ": " << f.error();
  }
}

TEST(RequestFramerTest, HeadExactlyAtTheLimits) {
  // Request line of exactly 32 bytes (LF included), 3 headers, 128 head bytes.
  std::string line = "GET /" + std::string(16, 'a') + " HTTP/1.1\r\n";
  ASSERT_EQ(line.size(), 32u);
  std::string head = line + "A: 1\r\nB: 2\r\n";
  const std::string last_prefix = "C: ";
  const size_t pad = 128 - head.size() - last_prefix.size() - 2 - 2;
  head += last_prefix + std::string(pad, 'x') + "\r\n\r\n";
  ASSERT_EQ(head.size(), 128u);
  RequestFramer f(kLimits);
  EXPECT_EQ(Feed(f, head), head.size());
  EXPECT_TRUE(f.message_done()) << f.error();
}

}  // namespace
}  // namespace trimaran::http
