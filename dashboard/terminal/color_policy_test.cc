#include "dashboard/terminal/color_policy.h"

#include "gtest/gtest.h"

namespace trimaran::dashboard::terminal {
namespace {

TEST(ShouldColorTest, OnlyOnATerminal) {
  EXPECT_TRUE(ShouldColor(false, true, nullptr));
  EXPECT_FALSE(ShouldColor(false, false, nullptr));  // a pipe or a file
}

TEST(ShouldColorTest, NoColorFlagWins) { EXPECT_FALSE(ShouldColor(true, true, nullptr)); }

TEST(ShouldColorTest, NoColorEnvironmentWhenNonEmpty) {
  EXPECT_FALSE(ShouldColor(false, true, "1"));
  EXPECT_FALSE(ShouldColor(false, true, "0"));  // any non-empty value, as no-color.org says
  EXPECT_TRUE(ShouldColor(false, true, ""));    // set but empty: ignored
}

}  // namespace
}  // namespace trimaran::dashboard::terminal
