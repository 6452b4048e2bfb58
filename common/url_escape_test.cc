#include "common/url_escape.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace trimaran {
namespace {

TEST(QueryEscapeTest, KeepsUnreservedAndEncodesTheRest) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""},
      {"AZaz09-._~", "AZaz09-._~"},
      {"a=b,c!=d e/f", "a%3Db%2Cc%21%3Dd%20e%2Ff"},
      {"ns/pod+1&x?", "ns%2Fpod%2B1%26x%3F"},
      {std::string("\x00\xff\n", 3), "%00%FF%0A"},
      {"sum(rate(x{a=\"b\"}[5m]))", "sum%28rate%28x%7Ba%3D%22b%22%7D%5B5m%5D%29%29"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(QueryEscape(in), want) << in;
}

}  // namespace
}  // namespace trimaran
