#include "tests/e2e/harness/chromium.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(AnsiToHtmlTest, ColoursBecomeSpansAndTextIsEscaped) {
  const std::string html = AnsiToHtml(
      "a<b> \x1b[38;2;4;181;117mgreen\x1b[0m \x1b[1;31mred\x1b[39;22m \x1b[38;5;196mx\x1b[m"
      "\x1b[?25l end",
      "t");
  EXPECT_THAT(html, HasSubstr("<title>t</title>"));
  EXPECT_THAT(html, HasSubstr("a&lt;b&gt; <span style=\"color:#04b575;\">green</span> "));
  EXPECT_THAT(html, HasSubstr("<span style=\"color:#cd3131;font-weight:bold;\">red</span> "));
  EXPECT_THAT(html, HasSubstr("<span style=\"color:#ff0000;\">x</span> end"));
  EXPECT_THAT(html, Not(HasSubstr("\x1b")));
}

TEST(AnsiToHtmlTest, PlainTextIsUnchanged) {
  EXPECT_THAT(AnsiToHtml("4 nodes ███░░ 75%\n", "t"), HasSubstr("<pre>4 nodes ███░░ 75%\n</pre>"));
}

}  // namespace
}  // namespace trimaran::e2e
