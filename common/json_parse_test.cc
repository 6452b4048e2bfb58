#include "common/json_parse.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trimaran {
namespace {

std::string Nested(int depth, char open = '[', char close = ']') {
  return std::string(static_cast<size_t>(depth), open) +
         std::string(static_cast<size_t>(depth), close);
}

TEST(ParseJsonDocumentTest, ParsesObject) {
  rapidjson::Document doc;
  ASSERT_TRUE(ParseJsonDocument(R"({"a":[1,2,{"b":null}]})", doc, JsonLimits{}, "t").ok());
  ASSERT_TRUE(doc.IsObject());
  EXPECT_EQ(doc["a"].Size(), 3u);
}

TEST(ParseJsonDocumentTest, DepthExactlyAtLimitParses) {
  rapidjson::Document doc;
  const JsonLimits limits{.max_bytes = 1 << 20, .max_depth = 8};
  EXPECT_TRUE(ParseJsonDocument(Nested(8), doc, limits, "t").ok());
  EXPECT_TRUE(doc.IsArray());
}

TEST(ParseJsonDocumentTest, DepthOneOverLimitIsInvalidArgument) {
  rapidjson::Document doc;
  const JsonLimits limits{.max_bytes = 1 << 20, .max_depth = 8};
  absl::Status s = ParseJsonDocument(Nested(9), doc, limits, "ExtenderArgs");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              ::testing::HasSubstr("ExtenderArgs: JSON nested deeper than 8 levels at offset"));
  EXPECT_TRUE(doc.IsNull());
}

TEST(ParseJsonDocumentTest, ObjectsCountAsLevels) {
  const JsonLimits limits{.max_bytes = 1 << 20, .max_depth = 2};
  rapidjson::Document doc;
  EXPECT_TRUE(ParseJsonDocument(R"({"a":{"b":1}})", doc, limits, "t").ok());
  EXPECT_FALSE(ParseJsonDocument(R"({"a":{"b":[]}})", doc, limits, "t").ok());
  EXPECT_FALSE(ParseJsonDocument(R"([{"b":[]}])", doc, limits, "t").ok());
  // Siblings do not add up.
  EXPECT_TRUE(ParseJsonDocument(R"([[],[],{"a":1}])", doc, limits, "t").ok());
}

TEST(ParseJsonDocumentTest, MillionOpenBracketsDoNotCrash) {
  rapidjson::Document doc;
  absl::Status s = ParseJsonDocument(std::string(1'000'000, '['), doc, JsonLimits{}, "t");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("deeper than 512"));
  s = ParseJsonDocument(std::string(1'000'000, '{'), doc, JsonLimits{}, "t");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  // {"a":{"a":... deep objects.
  std::string deep;
  for (int i = 0; i < 100'000; ++i) deep += R"({"a":)";
  s = ParseJsonDocument(deep, doc, JsonLimits{}, "t");
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("deeper than 512"));
}

TEST(ParseJsonDocumentTest, SizeExactlyAtLimitParsesOneOverIsResourceExhausted) {
  const std::string text = R"({"k":"0123456789"})";  // 18 bytes
  rapidjson::Document doc;
  const JsonLimits at{.max_bytes = text.size(), .max_depth = 4};
  EXPECT_TRUE(ParseJsonDocument(text, doc, at, "t").ok());
  const JsonLimits under{.max_bytes = text.size() - 1, .max_depth = 4};
  absl::Status s = ParseJsonDocument(text, doc, under, "TokenReview");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "TokenReview: JSON text of 18 bytes is over the limit of 17 bytes");
}

TEST(ParseJsonDocumentTest, MalformedAndNulAreInvalidArgument) {
  rapidjson::Document doc;
  absl::Status s = ParseJsonDocument("{\"a\":", doc, JsonLimits{}, "t");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("t: not JSON: "));
  s = ParseJsonDocument(absl::string_view("[1]\0[", 5), doc, JsonLimits{}, "t");
  EXPECT_EQ(s.message(), "t: not JSON: NUL byte at offset 3");
  EXPECT_FALSE(ParseJsonDocument("", doc, JsonLimits{}, "t").ok());
}

TEST(ParseJsonDocumentTest, BadDepthLimitIsRefused) {
  rapidjson::Document doc;
  EXPECT_FALSE(ParseJsonDocument("1", doc, JsonLimits{.max_depth = 0}, "t").ok());
  EXPECT_FALSE(
      ParseJsonDocument("1", doc, JsonLimits{.max_depth = kMaxJsonMaxDepth + 1}, "t").ok());
  EXPECT_TRUE(ParseJsonDocument("1", doc, JsonLimits{.max_depth = kMaxJsonMaxDepth}, "t").ok());
  EXPECT_TRUE(ParseJsonDocument(Nested(kMaxJsonMaxDepth), doc,
                                JsonLimits{.max_depth = kMaxJsonMaxDepth}, "t")
                  .ok());
}

TEST(ParseJsonDocumentTest, FlagsArePassedThrough) {
  rapidjson::Document doc;
  EXPECT_FALSE(ParseJsonDocument("[NaN]", doc, JsonLimits{}, "t").ok());
  EXPECT_TRUE(
      ParseJsonDocument<rapidjson::kParseNanAndInfFlag>("[NaN]", doc, JsonLimits{}, "t").ok());
}

// A SAX handler of the caller's own sees the events; the limit still applies.
struct CountingHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, CountingHandler> {
  int arrays = 0;
  bool StartArray() {
    ++arrays;
    return true;
  }
};

TEST(ParseJsonSaxTest, ForwardsEventsAndLimitsDepth) {
  CountingHandler h;
  EXPECT_TRUE(ParseJsonSax(Nested(3), h, JsonLimits{.max_depth = 3}, "t").ok());
  EXPECT_EQ(h.arrays, 3);
  CountingHandler deep;
  EXPECT_FALSE(ParseJsonSax(Nested(4), deep, JsonLimits{.max_depth = 3}, "t").ok());
  EXPECT_EQ(deep.arrays, 3);  // the fourth never reached the handler
}

}  // namespace
}  // namespace trimaran
