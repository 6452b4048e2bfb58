#include "common/url_escape.h"

#include <string>

#include "gtest/gtest.h"

namespace trimaran {
namespace {

TEST(QueryEscapeTest, KeepsUnreservedAndEncodesTheRest) {
  EXPECT_EQ(QueryEscape(""), "");
  EXPECT_EQ(QueryEscape("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(QueryEscape("a=b,c!=d e/f"), "a%3Db%2Cc%21%3Dd%20e%2Ff");
  EXPECT_EQ(QueryEscape("ns/pod+1&x?"), "ns%2Fpod%2B1%26x%3F");
  EXPECT_EQ(QueryEscape(std::string("\x00\xff\n", 3)), "%00%FF%0A");
  EXPECT_EQ(QueryEscape("sum(rate(x{a=\"b\"}[5m]))"),
            "sum%28rate%28x%7Ba%3D%22b%22%7D%5B5m%5D%29%29");
}

}  // namespace
}  // namespace trimaran
