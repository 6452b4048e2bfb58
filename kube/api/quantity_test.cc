#include "kube/api/quantity.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/testing/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// Counts allocations, to check that Parse does not allocate on success. The replacement
// operators apply to this test binary only. GCC cannot see that the replaced new and
// delete are a malloc/free pair, hence the pragma.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
thread_local int64_t allocations = 0;
}  // namespace

void* operator new(size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return ::operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace trimaran::kube {
namespace {

using ::testing::HasSubstr;
using ::trimaran::testing::IsOk;
using ::trimaran::testing::StatusIs;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

constexpr QuantityFormat kDec = QuantityFormat::kDecimalSI;
constexpr QuantityFormat kBin = QuantityFormat::kBinarySI;
constexpr QuantityFormat kExp = QuantityFormat::kDecimalExponent;

// Debian's Abseil has its own absl::string_view, which absl::StrCat takes.
absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Parses text that the test knows is valid.
Quantity Q(std::string_view text) {
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  EXPECT_THAT(q, IsOk()) << text;
  return q.ok() ? *q : Quantity();
}

// Whether q prints as a plain integer only because it is BinarySI: a whole number
// >= 1024 that is not a multiple of 1024 ("2000"). Reparsed, that text is DecimalSI and
// prints in DecimalSI's canonical form ("2k"), as upstream.
bool PrintsAsBinaryInteger(const Quantity& q) {
  const int64_t value = q.Value();
  return q.format() == kBin && q == Quantity::FromValue(value) &&
         (value >= 1024 || value <= -1024) && value % 1024 != 0;
}

// Parse(String()) restores the value, and String() is a fixed point (after one more
// round for the BinarySI case above).
void ExpectRoundTrip(const Quantity& q) {
  const std::string s = q.String();
  SCOPED_TRACE(s);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity back, Quantity::Parse(s));
  EXPECT_EQ(back, q);
  const std::string t = back.String();
  if (PrintsAsBinaryInteger(q)) {
    EXPECT_EQ(back.format(), kDec);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity again, Quantity::Parse(t));
    EXPECT_EQ(again, q);
    EXPECT_EQ(again.String(), t);
  } else {
    EXPECT_EQ(t, s);
  }
}

struct ParseCase {
  std::string_view input;
  std::string_view canonical;
  QuantityFormat format;
};

// Checks input, "+" input and "-" input against the canonical string and format.
void CheckParse(const ParseCase& c) {
  SCOPED_TRACE(c.input);
  TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity q, Quantity::Parse(c.input));
  EXPECT_EQ(q.String(), c.canonical);
  EXPECT_EQ(q.format(), c.format);

  TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity plus, Quantity::Parse(absl::StrCat("+", A(c.input))));
  EXPECT_EQ(plus, q);
  EXPECT_EQ(plus.format(), c.format);

  TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity minus, Quantity::Parse(absl::StrCat("-", A(c.input))));
  EXPECT_EQ(minus.format(), c.format);
  if (q.IsZero()) {
    EXPECT_EQ(minus.String(), "0");  // never "-0"
    EXPECT_TRUE(minus.IsZero());
  } else {
    EXPECT_EQ(minus.String(), absl::StrCat("-", A(c.canonical)));
    EXPECT_EQ(minus.Sign(), -q.Sign());
    Quantity negated = q;
    negated.Neg();
    EXPECT_EQ(minus, negated);
  }
}

// Upstream's TestQuantityParse table, with the expected value written as its canonical
// string (which is exact) and format.
TEST(QuantityParseTest, UpstreamTable) {
  const ParseCase kCases[] = {
      {"0", "0", kDec},
      {"0n", "0", kDec},
      {"0u", "0", kDec},
      {"0m", "0", kDec},
      {"0Ki", "0", kBin},
      {"0k", "0", kDec},
      {"0Mi", "0", kBin},
      {"0M", "0", kDec},
      {"0Gi", "0", kBin},
      {"0G", "0", kDec},
      {"0Ti", "0", kBin},
      {"0T", "0", kDec},
      {"0e5", "0", kExp},
      {"0.000", "0", kDec},
      {"000", "0", kDec},

      // Quantity-less numbers are allowed.
      {"1", "1", kDec},

      // Binary suffixes.
      {"1Ki", "1Ki", kBin},
      {"8Ki", "8Ki", kBin},
      {"7Mi", "7Mi", kBin},
      {"6Gi", "6Gi", kBin},
      {"5Ti", "5Ti", kBin},
      {"4Pi", "4Pi", kBin},
      {"3Ei", "3Ei", kBin},
      {"10Ti", "10Ti", kBin},
      {"100Ti", "100Ti", kBin},

      // Decimal suffixes.
      {"5n", "5n", kDec},
      {"4u", "4u", kDec},
      {"3m", "3m", kDec},
      {"9", "9", kDec},
      {"8k", "8k", kDec},
      {"50k", "50k", kDec},
      {"7M", "7M", kDec},
      {"6G", "6G", kDec},
      {"5T", "5T", kDec},
      {"40T", "40T", kDec},
      {"300T", "300T", kDec},
      {"2P", "2P", kDec},
      {"1E", "1E", kDec},

      // Decimal exponents.
      {"1E-3", "1e-3", kExp},
      {"1e3", "1e3", kExp},
      {"1E6", "1e6", kExp},
      {"1e9", "1e9", kExp},
      {"1E12", "1e12", kExp},
      {"1e15", "1e15", kExp},
      {"1E18", "1e18", kExp},
      {"1e+3", "1e3", kExp},
      {"1e003", "1e3", kExp},
      {"1e-0", "1", kExp},

      // Nonstandard but still parsable.
      {"1e14", "100e12", kExp},
      {"1e13", "10e12", kExp},
      {"100.035k", "100035", kDec},

      // Things that look like floating point.
      {"0.001", "1m", kDec},
      {"0.0005k", "500m", kDec},
      {"0.005", "5m", kDec},
      {"0.05", "50m", kDec},
      {"0.5", "500m", kDec},
      {"0.00050k", "500m", kDec},
      {"0.00500", "5m", kDec},
      {"0.05000", "50m", kDec},
      {"0.50000", "500m", kDec},
      {"0.5e0", "500e-3", kExp},
      {"0.5e-1", "50e-3", kExp},
      {"0.5e-2", "5e-3", kExp},
      {"10.035M", "10035k", kDec},
      {"1.2e3", "1200", kExp},
      {"1.3E+6", "1300e3", kExp},
      {"1.40e9", "1400e6", kExp},
      {"1.53E12", "1530e9", kExp},
      {"1.6e15", "1600e12", kExp},
      {"1.7E18", "1700e15", kExp},
      {"9.01", "9010m", kDec},
      {"8.1k", "8100", kDec},
      {"7.123456M", "7123456", kDec},
      {"6.987654321G", "6987654321", kDec},
      {"5.444T", "5444G", kDec},
      {"40.1T", "40100G", kDec},
      {"300.2T", "300200G", kDec},
      {"2.5P", "2500T", kDec},
      {"1.01E", "1010P", kDec},

      // Things that round (up in magnitude, to 1n).
      {"3.001n", "4n", kDec},
      {"1.1E-9", "2e-9", kExp},
      {"0.0000000001", "1n", kDec},
      {"0.0000000005", "1n", kDec},
      {"0.00000000050", "1n", kDec},
      {"0.5e-9", "1e-9", kExp},
      {"0.9n", "1n", kDec},
      {"0.00000012345", "124n", kDec},
      {"0.00000012354", "124n", kDec},
      {"1e-2147483647", "1e-9", kExp},

      // Fractional binary values keep BinarySI but print as DecimalSI when inexact.
      {"100.035Ki", "102435840m", kBin},
      {"0.5Mi", "512Ki", kBin},
      {"0.05Gi", "53687091200m", kBin},
      {"0.025Ti", "27487790694400m", kBin},

      // Things written by trolls.
      {"0.000000000001Ki", "2n", kDec},  // rounds up, and |value| < 1 changes the format
      {".001", "1m", kDec},
      {".0001k", "100m", kDec},
      {"1.", "1", kDec},
      {"1.G", "1G", kDec},
      {"0.", "0", kDec},
      {"00001", "1", kDec},
  };
  for (const ParseCase& c : kCases) CheckParse(c);
}

// Upstream's TestQuantityParseEmit.
TEST(QuantityParseTest, UpstreamParseEmit) {
  const ParseCase kCases[] = {
      {"1Ki", "1Ki", kBin},
      {"1Mi", "1Mi", kBin},
      {"1Gi", "1Gi", kBin},
      {"1024Mi", "1Gi", kBin},
      {"1000M", "1G", kDec},
      {".001Ki", "1024m", kBin},
      {".000001Ki", "1024u", kDec},
      {".000000001Ki", "1024n", kDec},
      {".000000000001Ki", "2n", kDec},
  };
  for (const ParseCase& c : kCases) CheckParse(c);
}

// The examples in the Kubernetes documentation ("Resource units in Kubernetes").
TEST(QuantityParseTest, DocumentationExamples) {
  struct Case {
    std::string_view input;
    int64_t value;
    int64_t milli;
  };
  const Case kCases[] = {
      // Memory: "the following represent roughly the same value".
      {"128974848", 128974848, 128974848000},
      {"129e6", 129000000, 129000000000},
      {"129M", 129000000, 129000000000},
      {"128974848000m", 128974848, 128974848000},
      {"123Mi", 128974848, 128974848000},
      // "400m" of memory is 0.4 bytes, not 400 mebibytes.
      {"400m", 1, 400},
      {"400Mi", 419430400, 419430400000},
      {"64Mi", 67108864, 67108864000},
      {"128Mi", 134217728, 134217728000},
      {"1Gi", 1073741824, 1073741824000},
      {"1G", 1000000000, 1000000000000},
      // CPU: "0.1" is equivalent to "100m"; 1 CPU unit is 1000m.
      {"0.1", 1, 100},
      {"100m", 1, 100},
      {"1", 1, 1000},
      {"0.5", 1, 500},
      {"500m", 1, 500},
      {"250m", 1, 250},
      {"2", 2, 2000},
      {"1.5", 2, 1500},
      {"1500m", 2, 1500},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.input);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity q, Quantity::Parse(c.input));
    EXPECT_EQ(q.Value(), c.value);
    EXPECT_EQ(q.MilliValue(), c.milli);
  }
  EXPECT_EQ(Q("128974848"), Q("123Mi"));
  EXPECT_EQ(Q("128974848"), Q("128974848000m"));
  EXPECT_EQ(Q("129e6"), Q("129M"));
  EXPECT_LT(Q("123Mi"), Q("129M"));
  EXPECT_EQ(Q("0.1"), Q("100m"));
  EXPECT_EQ(Q("0.5"), Q("500m"));
  EXPECT_EQ(Q("1"), Q("1000m"));
}

TEST(QuantityParseTest, DoesNotAllocate) {
  const std::string_view kCases[] = {
      "500m", "1Gi",           "128974848",           "2.5",           "1.5Gi", "129e6",
      "0",    "-0.0000000001", "9223372036854775807", "7.9999999999Ei"};
  for (std::string_view text : kCases) {
    SCOPED_TRACE(text);
    const int64_t before = allocations;
    absl::StatusOr<Quantity> q = Quantity::Parse(text);
    const int64_t after = allocations;
    EXPECT_TRUE(q.ok());
    EXPECT_EQ(after, before);
  }
  // The counter works: an error builds its message on the heap.
  const int64_t before = allocations;
  EXPECT_FALSE(Quantity::Parse("1.5.3").ok());
  EXPECT_GT(allocations, before);
}

TEST(QuantityParseTest, RejectsMalformedText) {
  const std::string_view kCases[] = {
      "",
      "1.5.3",
      "1Mb",
      "e3",
      "E3",
      "--1",
      "+-1",
      "-+1",
      ".",
      "-.",
      "+.",
      "-",
      "+",
      "Ki",
      "m",
      "k",
      "1i",
      "1 Ki",
      "1KiB",
      "  1",
      " 1",
      "1 ",
      "1\n",
      "1.1.M",
      "1+1.0M",
      "0.1mi",
      "0.1am",
      "aoeu",
      ".5i",
      "-3.01i",
      "-3.01e-",
      "1e",
      "1E+",
      "1e-",
      "1e3.5",
      "1e 3",
      "1e3e3",
      "1ee3",
      "1Ee3",
      "1ki",
      "1K",
      "1KI",
      "1Kii",
      "1Mi5",
      "1m5",
      "1mm",
      "0x10",
      "1_000",
      "1,5",
      "Infinity",
      "NaN",
      "\xd9\xa1",  // ARABIC-INDIC DIGIT ONE
      std::string_view("1\0", 2),
      // Exponents must fit an int32 whose negation fits, as upstream.
      "1e2147483648",
      "1e-2147483648",
      "1e4294967297",
      "0e99999999999999999999",
  };
  for (std::string_view text : kCases) {
    SCOPED_TRACE(text);
    EXPECT_THAT(Quantity::Parse(text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid quantity \"")));
  }
  EXPECT_THAT(Quantity::Parse("1.5.3"),
              StatusIs(absl::StatusCode::kInvalidArgument, "invalid quantity \"1.5.3\""));
  EXPECT_THAT(Quantity::Parse(std::string(1000, 'x')),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       absl::StrCat("invalid quantity \"", std::string(64, 'x'), "\"...")));
}

TEST(QuantityParseTest, RejectsValuesBeyondInt64) {
  const std::string_view kCases[] = {
      "16Ei",
      "8Ei",  // 2^63, one more than the largest value.
      "9Ei",
      "1024Ei",
      "9223372036854775807Ki",
      "1180591620717411303424",  // 2^70
      "1e19",
      "1E19",
      "10E",
      "12E",
      "9.3E",
      "99999999999999999999",
      "9223372036854775808",
      "-9223372036854775808",
      "9223372036854775807.000000001",
      "9223372036854775807.0000000001",  // rounds up past the limit
      "9223372036854775807000000000001n",
      "1e100",
      "1e2147483647",
      "-1e2147483647",
      "100000000000000000000000000000000000000000000000000",
      "7.99999999999999999999Ei",  // 2^63 - 0.0115...
      "8.000000000000000000000001Ei",
      "0.00000000000000000000000000000000000000000000000001e70",
  };
  for (std::string_view text : kCases) {
    SCOPED_TRACE(text);
    EXPECT_THAT(Quantity::Parse(text),
                StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("quantity too large")));
  }
  EXPECT_THAT(Quantity::Parse("16Ei"),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("\"16Ei\"")));
}

// What the API codec reads: the apiserver admits "10E", "1e30" and "16Ei", and such
// a request must fit no node rather than fail decoding or wrap.
TEST(QuantityParseSaturatingTest, ValuesBeyondTheRangeSaturate) {
  struct Case {
    std::string_view text;
    int sign;
    QuantityFormat format;
  };
  const Case kCases[] = {
      {"10E", 1, kDec},
      {"9.3E", 1, kDec},
      {"99999999999999999999", 1, kDec},
      {"1e19", 1, kExp},
      {"1E19", 1, kExp},
      {"1e30", 1, kExp},
      {"1e+30", 1, kExp},
      {"1e2147483647", 1, kExp},
      {"16Ei", 1, kBin},
      {"8796093022208Mi", 1, kBin},
      {"-10E", -1, kDec},
      {"-1e30", -1, kExp},
      {"+12E", 1, kDec},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    EXPECT_THAT(Quantity::Parse(c.text), StatusIs(absl::StatusCode::kOutOfRange));
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity q, Quantity::ParseSaturating(c.text));
    EXPECT_EQ(q.Sign(), c.sign);
    EXPECT_EQ(q.format(), c.format);
    EXPECT_EQ(q.Value(), c.sign > 0 ? kInt64Max : -kInt64Max);
    EXPECT_EQ(q.MilliValue(), c.sign > 0 ? kInt64Max : kInt64Min);
    EXPECT_EQ(q, c.sign > 0 ? Quantity::FromValue(kInt64Max) : Quantity::FromValue(-kInt64Max));
    // Above (or below) every value in the range.
    EXPECT_EQ(q.Cmp(Q("9E")), c.sign);
    // Reparses to the same value, and arithmetic stays saturated.
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity again, Quantity::ParseSaturating(q.String()));
    EXPECT_EQ(again, q);
    Quantity sum = q;
    EXPECT_FALSE(sum.Add(c.sign > 0 ? Q("1") : Q("-1")));
    EXPECT_EQ(sum, q);
  }
  // Values in the range are exactly what Parse gives.
  for (std::string_view text : {"9E", "1.5Gi", "-3m", "9223372036854775807", "1e18", "0"}) {
    SCOPED_TRACE(text);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity q, Quantity::ParseSaturating(text));
    EXPECT_EQ(q, Q(text));
    EXPECT_EQ(q.format(), Q(text).format());
  }
  // Syntax errors are still errors.
  for (std::string_view text : {"", "10EE", "E", "1e", "1e2147483648", "10 E", "lots"}) {
    SCOPED_TRACE(text);
    EXPECT_THAT(Quantity::ParseSaturating(text), StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

TEST(QuantityParseTest, AcceptsValuesUpToInt64Max) {
  const ParseCase kCases[] = {
      {"9223372036854775807", "9223372036854775807", kDec},
      {"9223372036854775807.000000000", "9223372036854775807", kDec},
      {"9223372036854775807000000000n", "9223372036854775807", kDec},
      {"9223372036854775.807k", "9223372036854775807", kDec},
      {"9.223372036854775807E", "9223372036854775807", kDec},
      {"9223372036854775807e0", "9223372036854775807", kExp},
      {"9E", "9E", kDec},
      {"9e18", "9e18", kExp},
      {"9.2E", "9200P", kDec},
      {"7Ei", "7Ei", kBin},
      {"8191Pi", "8191Pi", kBin},
      {"8796093022207Ki", "8796093022207Ki", kBin},
      {"7.9999999999999999Ei", "9223372036854775692707849540n", kBin},
      {"1180591620717411303424e-3", "1180591620717411303424e-3", kExp},
  };
  for (const ParseCase& c : kCases) CheckParse(c);
  EXPECT_EQ(Q("9223372036854775807").Value(), kInt64Max);
  EXPECT_EQ(Q("-9223372036854775807").Value(), -kInt64Max);
}

TEST(QuantityParseTest, LongMantissasAreExact) {
  const ParseCase kCases[] = {
      {"0.00000000000000000000000000000000000000000000000001", "1n", kDec},
      {"-0.00000000000000000000000000000000000000000000000001", "-1n", kDec},
      {"000000000000000000000000000000000000000000000000001", "1", kDec},
      {"1.000000000000000000000000000000000000000000000000000", "1", kDec},
      {"100000000000000000000000000000000000000000e-40", "10", kExp},
      {"123456789012345678901234567890e-29", "1234567891e-9", kExp},
      {"1.000000000000000000000000000000000000001", "1000000001n", kDec},
      {"1.0000000000000000000000000001Ki", "1024000000001n", kBin},
      {"0.1234567890123456789012345Ki", "126419751949n", kBin},
      {"1.00000000000000000000000000000000000000000000Ki", "1Ki", kBin},
      {"0.00000000000000000000000000000000000000000000001Ei", "1n", kDec},
      {"0.5000000000000000000000000000000000000000000000Ei", "512Pi", kBin},
      {"9.5000000001Gi", "10200547328107374183n", kBin},
  };
  for (const ParseCase& c : kCases) {
    SCOPED_TRACE(c.input);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity q, Quantity::Parse(c.input));
    EXPECT_EQ(q.String(), c.canonical);
    EXPECT_EQ(q.format(), c.format);
  }
}

// Upstream's TestQuantityString: canonical forms, and other spellings of the same value.
TEST(QuantityStringTest, Canonical) {
  struct Case {
    Quantity in;
    std::string_view expect;
    std::vector<std::string_view> alternates;
    std::string_view reparsed = "";  // String() after Parse(expect), if not expect
  };
  const Case kCases[] = {
      {Quantity::FromValue(1024 * 1024 * 1024, kBin), "1Gi", {"1024Mi"}},
      {Quantity::FromValue(300 * 1024 * 1024, kBin), "300Mi", {"307200Ki"}},
      {Quantity::FromValue(6 * 1024, kBin), "6Ki", {}},
      {Quantity::FromValue(1001LL * 1024 * 1024 * 1024, kBin), "1001Gi", {"1025024Mi"}},
      {Quantity::FromValue(1024LL * 1024 * 1024 * 1024, kBin), "1Ti", {"1024Gi"}},
      {Quantity::FromValue(5, kBin), "5", {"5000m"}},
      {Quantity::FromMilli(500, kBin), "500m", {"0.5"}},
      {Quantity::FromValue(1000000000, kDec), "1G", {"1000M", "0.001T", "1000000k"}},
      {Quantity::FromMilli(1, kDec), "1m", {"1000u", "0.001"}},
      {Quantity::FromMilli(80, kDec), "80m", {}},
      {Quantity::FromMilli(1080, kDec), "1080m", {"1.08", "1080000000n", "1.0800"}},
      {Quantity::FromValue(300000000, kDec), "300M", {}},
      {Quantity::FromValue(1000000000000, kDec), "1T", {}},
      {Quantity::FromValue(1000000000000000000, kDec), "1E", {"1000P"}},
      {Quantity::FromValue(1234567000000, kDec), "1234567M", {}},
      {Quantity::FromMilli(1234567, kBin), "1234567m", {}},
      {Quantity::FromValue(3000, kDec), "3k", {}},
      {Quantity::FromValue(1025, kBin), "1025", {}},
      {Quantity::FromValue(2000, kBin), "2000", {}, "2k"},
      {Quantity::FromValue(-2000, kBin), "-2000", {}, "-2k"},
      {Quantity::FromValue(1023, kBin), "1023", {}},
      {Quantity::FromValue(1024, kBin), "1Ki", {}},
      {Quantity::FromValue(1536, kBin), "1536", {"1.5Ki"}},
      {Quantity::FromValue(0, kDec), "0", {"00", "0.0", "-0"}},
      {Quantity::FromValue(0, kBin), "0", {}},
      {Quantity::FromValue(1000000000, kExp), "1e9", {".001e12"}},
      {Quantity::FromMilli(1, kExp), "1e-3", {"0.001e0"}},
      {Quantity::FromMilli(80, kExp), "80e-3", {}},
      {Quantity::FromValue(300000000, kExp), "300e6", {}},
      {Quantity::FromValue(1000000000000, kExp), "1e12", {}},
      {Quantity::FromValue(1000, kExp), "1e3", {}},
      {Quantity::FromValue(3000, kExp), "3e3", {}},
      {Quantity::FromValue(12000000, kExp), "12e6", {}},
      {Quantity::FromValue(0, kExp), "0", {"00"}},
      {Quantity::FromValue(1, kExp), "1", {}},
      {Quantity::FromMilli(1500, kExp), "1500e-3", {"1.5e0"}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.expect);
    EXPECT_EQ(c.in.String(), c.expect);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity reparsed, Quantity::Parse(c.expect));
    EXPECT_EQ(reparsed, c.in);
    EXPECT_EQ(reparsed.String(), c.reparsed.empty() ? c.expect : c.reparsed);
    ExpectRoundTrip(c.in);
    for (std::string_view alternate : c.alternates) {
      SCOPED_TRACE(alternate);
      TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity q, Quantity::Parse(alternate));
      EXPECT_EQ(q, c.in);
      EXPECT_EQ(q.String(), c.expect);
    }
    if (c.in.Sign() > 0) {
      Quantity negated = c.in;
      negated.Neg();
      EXPECT_EQ(negated.String(), absl::StrCat("-", A(c.expect)));
    }
  }
}

// The examples the brief and the header promise.
TEST(QuantityStringTest, HeaderExamples) {
  const ParseCase kCases[] = {
      {"1.5", "1500m", kDec},        {"0.1", "100m", kDec},
      {"1000", "1k", kDec},          {"1536Mi", "1536Mi", kBin},
      {"1.5Gi", "1536Mi", kBin},     {"1024", "1024", kDec},
      {"1e3", "1e3", kExp},          {"100m", "100m", kDec},
      {"1500m", "1500m", kDec},      {"1n", "1n", kDec},
      {"12e6", "12e6", kExp},        {"1000Mi", "1000Mi", kBin},
      {"0.5Gi", "512Mi", kBin},      {"1.1n", "2n", kDec},
      {"0.1Ki", "102400m", kBin},    {"1.5k", "1500", kDec},
      {"1023Ki", "1023Ki", kBin},    {"1.5Ki", "1536", kBin},
      {"1.001Ki", "1025024m", kBin},
  };
  for (const ParseCase& c : kCases) CheckParse(c);
}

TEST(QuantityValueTest, RoundsAwayFromZero) {
  struct Case {
    std::string_view input;
    int64_t value;
    int64_t milli;
  };
  // Upstream's TestNegativeValueRoundsAwayFromZero, plus the brief's examples.
  const Case kCases[] = {
      {"-.484785E-7466", -1, -1},
      {".484785E-7466", 1, 1},
      {"-.484785E-1", -1, -49},
      {".484785E-1", 1, 49},
      {"-0.0005", -1, -1},
      {"0.0005", 1, 1},
      {"0.0001", 1, 1},
      {"-1500m", -2, -1500},
      {"1500m", 2, 1500},
      {"1.5", 2, 1500},
      {"-1.5", -2, -1500},
      {"1m", 1, 1},
      {"-1m", -1, -1},
      {"1n", 1, 1},
      {"-9.5000000001Gi", -10200547329, -10200547328108},
      {"9.5000000001Gi", 10200547329, 10200547328108},
      {"-1", -1, -1000},
      {"1", 1, 1000},
      {"0", 0, 0},
      {"1.0001", 2, 1001},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.input);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity q, Quantity::Parse(c.input));
    EXPECT_EQ(q.Value(), c.value);
    EXPECT_EQ(q.MilliValue(), c.milli);
    EXPECT_EQ(q.ScaledValue(0), c.value);
    EXPECT_EQ(q.ScaledValue(-3), c.milli);
  }
}

TEST(QuantityValueTest, ScaledValue) {
  struct Case {
    std::string_view input;
    int scale;
    int64_t expected;
  };
  const Case kCases[] = {
      // Upstream's TestScaledValue: 1 at one scale, read at another.
      {"1n", -9, 1},
      {"1n", -6, 1},
      {"1n", -3, 1},
      {"1n", 0, 1},
      {"1u", -9, 1000},
      {"1u", -6, 1},
      {"1u", -3, 1},
      {"1u", 0, 1},
      {"1m", -9, 1000000},
      {"1m", -6, 1000},
      {"1m", -3, 1},
      {"1m", 0, 1},
      {"1", -9, 1000000000},
      {"1", -6, 1000000},
      {"1", -3, 1000},
      {"1", 0, 1},
      {"100", -2, 10000},
      // Large scales.
      {"1", 18, 1},
      {"1E", 18, 1},
      {"1.5E", 18, 2},
      {"-1.5E", 18, -2},
      {"9223372036854775807", 18, 10},
      {"1", 30, 1},
      {"-1", 1000, -1},
      {"1G", 9, 1},
      {"1500M", 9, 2},
      // Saturation.
      {"10", -9, 10000000000},
      {"9223372036854775807", -3, kInt64Max},
      {"-9223372036854775807", -3, kInt64Min},
      {"9223372036854775807", -9, kInt64Max},
      {"9223372036854775807m", -3, kInt64Max},
      {"-9223372036854775807m", -3, -kInt64Max},
      {"9223372036854775.807", -3, kInt64Max},
      {"9223372036854775.808", -3, kInt64Max},
      {"-9223372036854775.808", -3, kInt64Min},
      {"-9223372036854775.809", -3, kInt64Min},
      {"1", -12, 1000000000000},
      {"1", -100, kInt64Max},
      {"-1", -100, kInt64Min},
      {"1n", -18, 1000000000},
      {"1n", -100, kInt64Max},
      {"0", -100, 0},
      {"0", 100, 0},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(absl::StrCat(A(c.input), " at scale ", c.scale));
    EXPECT_EQ(Q(c.input).ScaledValue(c.scale), c.expected);
  }
}

TEST(QuantityValueTest, FromMilliAndFromValue) {
  // Upstream's TestMilliNewSet and TestNewSet.
  struct Case {
    Quantity q;
    std::string_view expect;
    int64_t value;
    int64_t milli;
  };
  const Case kCases[] = {
      {Quantity::FromMilli(1), "1m", 1, 1},
      {Quantity::FromMilli(1000), "1", 1, 1000},
      {Quantity::FromMilli(1234000), "1234", 1234, 1234000},
      {Quantity::FromMilli(1024, kBin), "1024m", 2, 1024},
      {Quantity::FromMilli(1000000, kExp), "1e3", 1000, 1000000},
      {Quantity::FromMilli(1024 * 1024, kBin), "1048576m", 1049, 1048576},
      {Quantity::FromMilli(-1500), "-1500m", -2, -1500},
      {Quantity::FromMilli(kInt64Max), "9223372036854775807m", 9223372036854776, kInt64Max},
      {Quantity::FromMilli(kInt64Min), "-9223372036854775808m", -9223372036854776, kInt64Min},
      {Quantity::FromValue(1), "1", 1, 1000},
      {Quantity::FromValue(1000), "1k", 1000, 1000000},
      {Quantity::FromValue(1234000), "1234k", 1234000, 1234000000},
      {Quantity::FromValue(1024, kBin), "1Ki", 1024, 1024000},
      {Quantity::FromValue(1000000, kExp), "1e6", 1000000, 1000000000},
      {Quantity::FromValue(1024 * 1024, kBin), "1Mi", 1048576, 1048576000},
      {Quantity::FromValue(kInt64Max), "9223372036854775807", kInt64Max, kInt64Max},
      // INT64_MIN is outside the symmetric range and saturates to -(2^63-1).
      {Quantity::FromValue(kInt64Min), "-9223372036854775807", -kInt64Max, kInt64Min},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.expect);
    EXPECT_EQ(c.q.String(), c.expect);
    EXPECT_EQ(c.q.Value(), c.value);
    EXPECT_EQ(c.q.MilliValue(), c.milli);
    TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity reparsed, Quantity::Parse(c.expect));
    EXPECT_EQ(reparsed, c.q);
  }
  EXPECT_EQ(Quantity::FromMilli(1024, kBin).format(), kBin);  // kept, as upstream
  EXPECT_EQ(Quantity().format(), kDec);
  EXPECT_TRUE(Quantity().IsZero());
  EXPECT_EQ(Quantity().String(), "0");
}

TEST(QuantityArithmeticTest, AddAndSub) {
  struct Case {
    std::string_view a;
    std::string_view b;
    std::string_view sum;
    std::string_view difference;
  };
  const Case kCases[] = {
      {"10", "1", "11", "9"},         {"10", "1Ki", "1034", "-1014"},
      {"1Gi", "1Gi", "2Gi", "0"},     {"1Gi", "512Mi", "1536Mi", "512Mi"},
      {"100m", "50m", "150m", "50m"}, {"1", "1n", "1000000001n", "999999999n"},
      {"500m", "1.5", "2", "-1"},     {"1e3", "1e3", "2e3", "0"},
      {"0", "1Gi", "1Gi", "-1Gi"},    {"1Gi", "0", "1Gi", "1Gi"},
      {"0", "0", "0", "0"},           {"-100m", "100m", "0", "-200m"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(absl::StrCat(A(c.a), " and ", A(c.b)));
    Quantity sum = Q(c.a);
    EXPECT_TRUE(sum.Add(Q(c.b)));
    EXPECT_EQ(sum.String(), c.sum);
    Quantity difference = Q(c.a);
    EXPECT_TRUE(difference.Sub(Q(c.b)));
    EXPECT_EQ(difference.String(), c.difference);
    // Add then Sub restores the value.
    EXPECT_TRUE(sum.Sub(Q(c.b)));
    EXPECT_EQ(sum, Q(c.a));
  }
}

TEST(QuantityArithmeticTest, FormatOfResult) {
  // Upstream's TestAdd/TestSub: the receiver's format wins.
  Quantity q = Quantity::FromValue(10, kBin);
  EXPECT_TRUE(q.Add(Quantity::FromValue(1, kDec)));
  EXPECT_EQ(q.format(), kBin);
  q = Quantity::FromValue(10, kDec);
  EXPECT_TRUE(q.Sub(Quantity::FromValue(1, kBin)));
  EXPECT_EQ(q.format(), kDec);

  // Upstream's TestQuantityAddZeroPreservesSuffix and TestQuantitySubZeroPreservesSuffix:
  // a zero receiver takes the other's format, in either order.
  for (std::string_view text : {"100m", "1Gi", "1e3"}) {
    SCOPED_TRACE(text);
    const Quantity value = Q(text);
    Quantity v1 = value;
    EXPECT_TRUE(v1.Add(Q("0")));
    EXPECT_EQ(v1.String(), text);
    Quantity v2 = Q("0");
    EXPECT_TRUE(v2.Add(value));
    EXPECT_EQ(v2.String(), text);
    EXPECT_EQ(v2.format(), value.format());
    Quantity v3 = value;
    EXPECT_TRUE(v3.Sub(Q("0")));
    EXPECT_EQ(v3.String(), text);
    Quantity v4 = Q("0");
    EXPECT_TRUE(v4.Sub(value));
    EXPECT_EQ(v4.String(), absl::StrCat("-", A(text)));
  }
}

TEST(QuantityArithmeticTest, Saturates) {
  const Quantity max = Q("9223372036854775807");
  const Quantity min = Q("-9223372036854775807");

  Quantity q = max;
  EXPECT_FALSE(q.Add(Q("1n")));
  EXPECT_EQ(q, max);
  EXPECT_FALSE(q.Add(max));
  EXPECT_EQ(q, max);
  EXPECT_TRUE(q.Sub(Q("1")));
  EXPECT_EQ(q.Value(), kInt64Max - 1);

  q = min;
  EXPECT_FALSE(q.Sub(Q("1n")));
  EXPECT_EQ(q, min);
  EXPECT_FALSE(q.Add(min));
  EXPECT_EQ(q, min);
  EXPECT_EQ(q.Value(), -kInt64Max);

  q = max;
  EXPECT_TRUE(q.Add(min));
  EXPECT_TRUE(q.IsZero());

  q = Q("7Ei");
  EXPECT_FALSE(q.Add(Q("1Ei")));
  EXPECT_EQ(q.String(), "9223372036854775807");

  q = max;
  q.Neg();
  EXPECT_EQ(q, min);
  q.Neg();
  EXPECT_EQ(q, max);
}

TEST(QuantityArithmeticTest, ManyAddsCancel) {
  // Upstream's TestAddSubRoundTrip, at every scale a parse can produce.
  std::mt19937_64 rng(42);
  for (int scale = -9; scale <= 0; ++scale) {
    SCOPED_TRACE(scale);
    Quantity q;
    std::vector<Quantity> added;
    for (int i = 0; i < 100; ++i) {
      const auto mantissa = static_cast<int64_t>(rng() % 1000000000000ULL);
      TRIMARAN_ASSERT_OK_AND_ASSIGN(Quantity x,
                                    Quantity::Parse(absl::StrCat(mantissa, "e", scale)));
      added.push_back(x);
      EXPECT_TRUE(q.Add(x));
    }
    for (const Quantity& x : added) EXPECT_TRUE(q.Sub(x));
    EXPECT_TRUE(q.IsZero());
  }
}

TEST(QuantityCompareTest, Ordering) {
  struct Case {
    std::string_view x;
    std::string_view y;
    int expect;
  };
  // Upstream's TestQuantityCmp plus cross-format cases.
  const Case kCases[] = {
      {"0", "0", 0},
      {"100m", "50m", 1},
      {"50m", "100m", -1},
      {"10000T", "100Gi", 1},
      {"1Ki", "1024", 0},
      {"1k", "1Ki", -1},
      {"1e3", "1k", 0},
      {"-1", "1n", -1},
      {"0", "-0", 0},
      {"0Ki", "0e9", 0},
      {"9223372036854775807", "9223372036854775806.999999999", 1},
      {"-1n", "0", -1},
      {"0.1", "100m", 0},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(absl::StrCat(A(c.x), " vs ", A(c.y)));
    const Quantity x = Q(c.x);
    const Quantity y = Q(c.y);
    EXPECT_EQ(x.Cmp(y), c.expect);
    EXPECT_EQ(y.Cmp(x), -c.expect);
    EXPECT_EQ(x == y, c.expect == 0);
    EXPECT_EQ(x != y, c.expect != 0);
    EXPECT_EQ(x < y, c.expect < 0);
    EXPECT_EQ(x > y, c.expect > 0);
    EXPECT_EQ(x <= y, c.expect <= 0);
    EXPECT_EQ(x >= y, c.expect >= 0);
  }
}

TEST(QuantitySignTest, SignAndIsZero) {
  EXPECT_EQ(Q("0").Sign(), 0);
  EXPECT_EQ(Q("-0").Sign(), 0);
  EXPECT_EQ(Q("1n").Sign(), 1);
  EXPECT_EQ(Q("-1n").Sign(), -1);
  EXPECT_TRUE(Q("-0.0Ki").IsZero());
  EXPECT_FALSE(Q("1e-100").IsZero());  // rounds up to 1n, never to zero
}

TEST(QuantityDoubleTest, AsApproximateDouble) {
  struct Case {
    std::string_view input;
    double expected;
  };
  // Includes upstream's TestStringQuantityAsApproximateFloat64.
  const Case kCases[] = {
      {"0", 0.0},
      {"1", 1.0},
      {"2Ki", 2048.0},
      {"1.1Ki", 1126.4},
      {"1Mi", 1.048576e+06},
      {"2Gi", 2.147483648e+09},
      {"0.1", 0.1},
      {"100m", 0.1},
      {"-1.5", -1.5},
      {"1n", 1e-9},
      {"123Mi", 128974848.0},
      {"1E", 1e18},
      {"9223372036854775807", 9223372036854775807.0},
      {"-9223372036854775807", -9223372036854775807.0},
      {"7Ei", 8070450532247928832.0},
      {"4503599.627370497", 4503599.627370497},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(Q(c.input).AsApproximateDouble(), c.expected);
  }
  EXPECT_DOUBLE_EQ(Q("9007199.254740993123").AsApproximateDouble(), 9007199.254740993);
}

// Parse(String()) restores the value and String() is a fixed point, for many values in
// every format, spelled in many ways.
TEST(QuantityRoundTripTest, RandomValues) {
  std::mt19937_64 rng(20240601);
  const std::string_view kSuffixes[] = {"",   "n",  "u",   "m",  "k",   "M",   "G",   "T",
                                        "P",  "E",  "Ki",  "Mi", "Gi",  "Ti",  "Pi",  "Ei",
                                        "e0", "e3", "e-3", "E6", "e-9", "e12", "e-12"};
  int parsed = 0;
  for (int i = 0; i < 50000; ++i) {
    std::string text;
    if (rng() % 4 == 0) text += "-";
    const int int_digits = static_cast<int>(rng() % 12);
    const int frac_digits = static_cast<int>(rng() % 12);
    for (int d = 0; d < int_digits; ++d) text += static_cast<char>('0' + rng() % 10);
    if (int_digits == 0 || frac_digits > 0) {
      text += ".";
      for (int d = 0; d < frac_digits; ++d) text += static_cast<char>('0' + rng() % 10);
      if (int_digits == 0 && frac_digits == 0) text += "0";
    }
    text += kSuffixes[rng() % std::size(kSuffixes)];
    SCOPED_TRACE(text);

    absl::StatusOr<Quantity> q = Quantity::Parse(text);
    if (!q.ok()) {
      EXPECT_THAT(q, StatusIs(absl::StatusCode::kOutOfRange));
      continue;
    }
    ++parsed;
    ExpectRoundTrip(*q);
    const std::string s = q->String();
    // The canonical form has no fraction, no leading zeros and no '+'.
    EXPECT_EQ(s.find_first_of(".+"), std::string::npos) << s;
    EXPECT_FALSE(s.size() > 1 && s[0] == '0') << s;
    EXPECT_FALSE(s.size() > 2 && s[0] == '-' && s[1] == '0') << s;
    // Value() and MilliValue() agree with each other and with the double.
    const int64_t value = q->Value();
    const int64_t milli = q->MilliValue();
    const double approx = q->AsApproximateDouble();
    EXPECT_GE(std::abs(static_cast<double>(value)), std::abs(approx) * (1 - 1e-15)) << s;
    EXPECT_LE(std::abs(static_cast<double>(value)), std::abs(approx) * (1 + 1e-15) + 1) << s;
    if (milli != kInt64Max && milli != kInt64Min) {
      EXPECT_LE(std::abs(static_cast<double>(milli) / 1000 - approx),
                1e-3 + std::abs(approx) * 4e-15)
          << s;
    }
  }
  EXPECT_GT(parsed, 35000);
}

TEST(QuantityRoundTripTest, IntegersAndMillis) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const auto raw = static_cast<int64_t>(rng());
    const int shift = static_cast<int>(rng() % 64);
    const int64_t n = raw >> shift;  // all magnitudes
    for (QuantityFormat format : {kDec, kBin, kExp}) {
      ExpectRoundTrip(Quantity::FromValue(n, format));
      ExpectRoundTrip(Quantity::FromMilli(n, format));
      if (n != kInt64Min) {
        EXPECT_EQ(Quantity::FromValue(n, format).Value(), n);
      }
      EXPECT_EQ(Quantity::FromMilli(n, format).MilliValue(), n);
    }
  }
}

}  // namespace
}  // namespace trimaran::kube
