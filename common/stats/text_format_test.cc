#include "common/stats/text_format.h"

#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trimaran::stats {
namespace {

TEST(TextFormatTest, ContentType) {
  EXPECT_STREQ(kPrometheusTextContentType, "text/plain; version=0.0.4; charset=utf-8");
}

TEST(TextFormatTest, FormatValueMatchesGoClient) {
  // Expected strings are what Go's strconv.FormatFloat(v, 'g', -1, 64) prints, which is
  // what client_golang writes: the exponent form for exponents < -4 or >= 6.
  struct TestCase {
    std::string name;
    double value;
    std::string want;
  };
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<TestCase> cases = {
      {"zero", 0, "0"},
      {"negative zero", -0.0, "0"},
      {"one", 1, "1"},
      {"minus one", -1, "-1"},
      {"integer", 1024, "1024"},
      {"largest fixed integer", 999999, "999999"},
      {"six digits", 123456, "123456"},
      {"hundred thousand", 100000, "100000"},
      {"million", 1e6, "1e+06"},
      {"seven digits", 1234567, "1.234567e+06"},
      {"big", 1e100, "1e+100"},
      {"max", std::numeric_limits<double>::max(), "1.7976931348623157e+308"},
      {"fraction", 0.25, "0.25"},
      {"mixed", 123.456, "123.456"},
      {"bucket bound", 0.005, "0.005"},
      {"milli", 0.001, "0.001"},
      {"smallest fixed", 0.0001, "0.0001"},
      {"first exponent", 0.00001, "1e-05"},
      {"negative small", -2.5e-7, "-2.5e-07"},
      {"shortest round trip", 0.1 + 0.2, "0.30000000000000004"},
      {"denormal", 5e-324, "5e-324"},
      {"negative fraction", -12.5, "-12.5"},
      {"nan", std::numeric_limits<double>::quiet_NaN(), "NaN"},
      {"plus inf", inf, "+Inf"},
      {"minus inf", -inf, "-Inf"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(FormatValue(tc.value), tc.want);
  }
}

TEST(TextFormatTest, Escaping) {
  struct TestCase {
    std::string name;
    std::string in;
    std::string want_label_value;
    std::string want_help;
  };
  const std::vector<TestCase> cases = {
      {"plain", "abc", "abc", "abc"},
      {"empty", "", "", ""},
      {"backslash", R"(a\b)", R"(a\\b)", R"(a\\b)"},
      {"quote", R"(say "hi")", R"(say \"hi\")", R"(say "hi")"},
      {"newline", "a\nb", R"(a\nb)", R"(a\nb)"},
      {"all", "\\\"\n", R"(\\\"\n)", "\\\\\"\\n"},
      {"utf8 unchanged",
       "n\xc3\xb8"
       "de",
       "n\xc3\xb8"
       "de",
       "n\xc3\xb8"
       "de"},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    std::string label_value;
    AppendEscapedLabelValue(tc.in, label_value);
    EXPECT_EQ(label_value, tc.want_label_value);
    std::string help;
    AppendEscapedHelp(tc.in, help);
    EXPECT_EQ(help, tc.want_help);
  }
}

TEST(TextFormatTest, NameValidation) {
  struct TestCase {
    std::string name;
    bool valid_metric;
    bool valid_label;
  };
  const std::vector<TestCase> cases = {
      {"trimaran_bugs_total", true, true},  {"_leading_underscore", true, true},
      {"__reserved", true, true},  // Reserved, but the regex matches; Registry rejects it.
      {"CamelCase9", true, true},           {"job:rate5m:sum", true, false},
      {":leading_colon", true, false},      {"", false, false},
      {"9starts_with_digit", false, false}, {"has-dash", false, false},
      {"has space", false, false},          {"has.dot", false, false},
      {"n\xc3\xb8", false, false},
  };
  for (const TestCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(IsValidMetricName(tc.name), tc.valid_metric);
    EXPECT_EQ(IsValidLabelName(tc.name), tc.valid_label);
  }
}

}  // namespace
}  // namespace trimaran::stats
