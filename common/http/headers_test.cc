#include "common/http/headers.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran::http {
namespace {

using ::testing::ElementsAre;
using ::testing::Optional;

TEST(HeadersTest, LookupIsCaseInsensitive) {
  Headers h{{"Content-Type", "application/json"}};
  EXPECT_THAT(h.Get("content-type"), Optional(absl::string_view("application/json")));
  EXPECT_THAT(h.Get("CONTENT-TYPE"), Optional(absl::string_view("application/json")));
  EXPECT_EQ(h.Get("Content-Length"), std::nullopt);
  EXPECT_EQ(h.GetOr("Content-Length", "0"), "0");
  EXPECT_TRUE(h.Has("content-TYPE"));
}

TEST(HeadersTest, AddKeepsRepeatsSetReplacesThem) {
  Headers h;
  h.Add("Warning", "a");
  h.Add("warning", "b");
  h.Add("X-Other", "x");
  EXPECT_THAT(h.GetAll("WARNING"), ElementsAre("a", "b"));
  EXPECT_EQ(h.Get("Warning"), "a");
  h.Set("WARNING", "c");
  EXPECT_THAT(h.GetAll("warning"), ElementsAre("c"));
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(h.Remove("x-other"), 1);
  EXPECT_EQ(h.Remove("x-other"), 0);
  EXPECT_EQ(h.size(), 1u);
}

}  // namespace
}  // namespace trimaran::http
