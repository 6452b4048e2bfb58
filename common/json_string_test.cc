#include "common/json_string.h"

#include <string>

#include "gtest/gtest.h"

namespace trimaran {
namespace {

TEST(JsonStringTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(JsonQuote(""), "\"\"");
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonQuote("l1\nl2\tx\ry"), "\"l1\\nl2\\tx\\ry\"");
  EXPECT_EQ(JsonQuote(std::string("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(JsonQuote(std::string("nul\0end", 7)), "\"nul\\u0000end\"");
  EXPECT_EQ(JsonQuote("caf\xc3\xa9"), "\"caf\xc3\xa9\"");  // UTF-8 as is
}

TEST(JsonStringTest, AppendsToWhatIsThere) {
  std::string out = "{\"k\":";
  AppendJsonString(out, "v");
  EXPECT_EQ(out, "{\"k\":\"v\"");
}

}  // namespace
}  // namespace trimaran
