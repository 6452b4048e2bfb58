#include "kube/api/quantity.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace trimaran::kube {
namespace {

using int128 = __int128;
using uint128 = unsigned __int128;

constexpr int64_t kNanosPerUnit = 1'000'000'000;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
// The largest magnitude, (2^63-1) base units, in nanos: 28 decimal digits.
constexpr uint128 kMaxNanos = static_cast<uint128>(kInt64Max) * kNanosPerUnit;
constexpr int64_t kMaxNanosDigits = 28;
// The most significant digits whose value always fits a uint64 (10^19 - 1 < 2^64).
constexpr size_t kUint64Digits = 19;
// The largest exponent after "e", as upstream (an int32 whose negation fits).
constexpr int64_t kMaxExponent = std::numeric_limits<int32_t>::max();

// 10^0 .. 10^38; 10^38 < 2^127.
constexpr std::array<uint128, 39> kPow10 = [] {
  std::array<uint128, 39> p{};
  p[0] = 1;
  for (size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
  return p;
}();
constexpr int64_t kMaxPow10 = 38;

// Error text names the input, escaped and shortened so that a hostile megabyte string
// cannot become a megabyte log line. (Debian's Abseil has its own absl::string_view.)
std::string Quoted(std::string_view text) {
  constexpr size_t kMaxShown = 64;
  const size_t shown = text.size() <= kMaxShown ? text.size() : kMaxShown;
  return absl::StrCat("\"", absl::CHexEscape(absl::string_view(text.data(), shown)),
                      shown < text.size() ? "\"..." : "\"");
}

absl::Status InvalidQuantity(std::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("invalid quantity ", Quoted(text)));
}

absl::Status QuantityTooLarge(std::string_view text) {
  return absl::OutOfRangeError(
      absl::StrCat("quantity too large: ", Quoted(text), " exceeds 2^63-1 base units"));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The mantissa's digits, which may straddle the '.': logically int_part + frac_part.
struct Digits {
  std::string_view int_part;
  std::string_view frac_part;

  size_t size() const { return int_part.size() + frac_part.size(); }
  unsigned operator[](size_t i) const {
    const char c = i < int_part.size() ? int_part[i] : frac_part[i - int_part.size()];
    return static_cast<unsigned>(c - '0');
  }
};

// What a suffix means: value = mantissa * 10^exp10 * 2^exp2.
struct Suffix {
  int64_t exp10 = 0;
  int exp2 = 0;
  QuantityFormat format = QuantityFormat::kDecimalSI;
};

// Parses a decimal exponent "[+-]digits" (after the 'e'). Leading zeros are allowed.
std::optional<int64_t> ParseExponent(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  int64_t value = 0;
  for (char c : s) {
    if (!IsDigit(c)) return std::nullopt;
    value = value * 10 + (c - '0');
    if (value > kMaxExponent) return std::nullopt;
  }
  return negative ? -value : value;
}

std::optional<Suffix> ParseSuffix(std::string_view s) {
  using enum QuantityFormat;
  if (s.empty()) return Suffix{0, 0, kDecimalSI};
  if (s.size() == 1) {
    switch (s[0]) {
      case 'n':
        return Suffix{-9, 0, kDecimalSI};
      case 'u':
        return Suffix{-6, 0, kDecimalSI};
      case 'm':
        return Suffix{-3, 0, kDecimalSI};
      case 'k':
        return Suffix{3, 0, kDecimalSI};
      case 'M':
        return Suffix{6, 0, kDecimalSI};
      case 'G':
        return Suffix{9, 0, kDecimalSI};
      case 'T':
        return Suffix{12, 0, kDecimalSI};
      case 'P':
        return Suffix{15, 0, kDecimalSI};
      case 'E':
        return Suffix{18, 0, kDecimalSI};
      default:
        return std::nullopt;
    }
  }
  if (s.size() == 2 && s[1] == 'i') {
    switch (s[0]) {
      case 'K':
        return Suffix{0, 10, kBinarySI};
      case 'M':
        return Suffix{0, 20, kBinarySI};
      case 'G':
        return Suffix{0, 30, kBinarySI};
      case 'T':
        return Suffix{0, 40, kBinarySI};
      case 'P':
        return Suffix{0, 50, kBinarySI};
      case 'E':
        return Suffix{0, 60, kBinarySI};
      default:
        return std::nullopt;
    }
  }
  if (s[0] == 'e' || s[0] == 'E') {
    std::optional<int64_t> exp10 = ParseExponent(s.substr(1));
    if (!exp10.has_value()) return std::nullopt;
    return Suffix{*exp10, 0, kDecimalExponent};
  }
  return std::nullopt;
}

// ceil(D * 10^t), where D is the integer spelled by digits[lo, hi) and digits[lo] != 0,
// or nullopt if that exceeds kMaxNanos.
std::optional<uint128> ScaleDecimal(const Digits& digits, size_t lo, size_t hi, int64_t t) {
  const auto len = static_cast<int64_t>(hi - lo);
  if (t >= 0) {
    // D >= 10^(len-1), so D * 10^t >= 10^(len-1+t) >= 10^28 > kMaxNanos.
    if (len + t > kMaxNanosDigits) return std::nullopt;
    uint128 v = 0;
    for (size_t i = lo; i < hi; ++i) v = v * 10 + digits[i];
    v *= kPow10[t];
    if (v > kMaxNanos) return std::nullopt;
    return v;
  }
  // Drop the last -t digits; any non-zero among them rounds the magnitude up.
  const int64_t keep = len + t > 0 ? len + t : 0;
  if (keep > kMaxNanosDigits) return std::nullopt;
  const size_t split = lo + static_cast<size_t>(keep);
  uint128 v = 0;
  for (size_t i = lo; i < split; ++i) v = v * 10 + digits[i];
  for (size_t i = split; i < hi; ++i) {
    if (digits[i] != 0) {
      ++v;
      break;
    }
  }
  if (v > kMaxNanos) return std::nullopt;
  return v;
}

// ceil(D * 10^t * 2^b) for b in [1, 60], with D as for ScaleDecimal.
std::optional<uint128> ScaleBinary(const Digits& digits, size_t lo, size_t hi, int64_t t, int b) {
  if (t >= 0) {
    std::optional<uint128> v = ScaleDecimal(digits, lo, hi, t);
    if (!v.has_value() || *v > (kMaxNanos >> b)) return std::nullopt;
    return *v << b;
  }
  const int64_t drop = -t;
  if (hi - lo <= kUint64Digits) {
    // Fast path: D < 2^64, so D * 2^b < 2^124 < 10^38.
    uint128 d = 0;
    for (size_t i = lo; i < hi; ++i) d = d * 10 + digits[i];
    const uint128 p = d << b;
    if (drop > kMaxPow10) return 1;  // 0 < p / 10^drop < 1.
    uint128 v = p / kPow10[drop];
    if (p % kPow10[drop] != 0) ++v;
    if (v > kMaxNanos) return std::nullopt;
    return v;
  }
  // Slow path for long mantissas with digits below 1n ("1.0000000000000000000001Ki"):
  // multiply the decimal digits by 2^b exactly, then round as a decimal.
  std::string product(hi - lo, '0');
  uint128 carry = 0;
  for (size_t i = hi; i > lo; --i) {
    const uint128 x = (static_cast<uint128>(digits[i - 1]) << b) + carry;
    product[i - 1 - lo] = static_cast<char>('0' + static_cast<int>(x % 10));
    carry = x / 10;
  }
  std::string high;
  for (; carry != 0; carry /= 10)
    high.push_back(static_cast<char>('0' + static_cast<int>(carry % 10)));
  product.insert(product.begin(), high.rbegin(), high.rend());
  return ScaleDecimal(Digits{product, {}}, 0, product.size(), t);
}

struct Decimal {
  uint128 magnitude;  // in units of 10^exponent, no trailing zeros unless zero
  int exponent;
};

// Upstream's canonical decimal: strip trailing zeros into the exponent, then lower the
// exponent to a multiple of 3 (1.5 -> 1500e-3, 1e4 -> 10e3).
Decimal CanonicalDecimal(uint128 nanos) {
  Decimal d{nanos, -9};
  // 128-bit division is slow; most values fit 64 bits.
  if (nanos <= std::numeric_limits<uint64_t>::max()) {
    auto m = static_cast<uint64_t>(nanos);
    while (m >= 10 && m % 10 == 0) {
      m /= 10;
      ++d.exponent;
    }
    d.magnitude = m;
  }
  while (d.magnitude >= 10 && d.magnitude % 10 == 0) {
    d.magnitude /= 10;
    ++d.exponent;
  }
  const int r = ((d.exponent % 3) + 3) % 3;
  d.magnitude *= kPow10[r];
  d.exponent -= r;
  return d;
}

// Writes `v` in decimal ending just before `end`; returns the first character.
char* WriteDigits(uint128 v, char* end) {
  while (v > std::numeric_limits<uint64_t>::max()) {
    *--end = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  auto u = static_cast<uint64_t>(v);
  do {
    *--end = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  } while (u != 0);
  return end;
}

int128 Clamp(int128 nanos, bool* ok) {
  const auto max = static_cast<int128>(kMaxNanos);
  if (nanos > max) {
    *ok = false;
    return max;
  }
  if (nanos < -max) {
    *ok = false;
    return -max;
  }
  *ok = true;
  return nanos;
}

}  // namespace

absl::StatusOr<Quantity> Quantity::ParseSaturating(std::string_view text) {
  absl::StatusOr<Quantity> q = Parse(text);
  if (q.ok() || q.status().code() != absl::StatusCode::kOutOfRange) return q;
  // Only a syntactically valid text is OutOfRange; its sign and format are those of the
  // text (the first character, and the suffix).
  QuantityFormat format = QuantityFormat::kDecimalSI;
  if (text.size() >= 2 && text.back() == 'i') {
    format = QuantityFormat::kBinarySI;
  } else if (text.find_first_of("eE") != std::string_view::npos &&
             text.find_first_of("eE") + 1 < text.size()) {
    format = QuantityFormat::kDecimalExponent;
  }
  const auto max = static_cast<int128>(kMaxNanos);
  return Quantity(!text.empty() && text[0] == '-' ? -max : max, format);
}

absl::StatusOr<Quantity> Quantity::Parse(std::string_view text) {
  size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    negative = text[pos] == '-';
    ++pos;
  }
  const size_t int_begin = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  const std::string_view int_part = text.substr(int_begin, pos - int_begin);
  std::string_view frac_part;
  if (pos < text.size() && text[pos] == '.') {
    const size_t frac_begin = ++pos;
    while (pos < text.size() && IsDigit(text[pos])) ++pos;
    frac_part = text.substr(frac_begin, pos - frac_begin);
  }
  if (int_part.empty() && frac_part.empty()) return InvalidQuantity(text);
  const std::optional<Suffix> suffix = ParseSuffix(text.substr(pos));
  if (!suffix.has_value()) return InvalidQuantity(text);

  const Digits digits{int_part, frac_part};
  size_t lo = 0;
  size_t hi = digits.size();
  while (lo < hi && digits[lo] == 0) ++lo;
  while (hi > lo && digits[hi - 1] == 0) --hi;
  if (lo == hi) return Quantity(0, suffix->format);

  // value = D * 10^(exp10 - |frac| + trailing zeros) * 2^exp2, in nanos: one more 10^9.
  const int64_t t = suffix->exp10 - static_cast<int64_t>(frac_part.size()) +
                    static_cast<int64_t>(digits.size() - hi) + 9;
  const std::optional<uint128> magnitude = suffix->exp2 == 0
                                               ? ScaleDecimal(digits, lo, hi, t)
                                               : ScaleBinary(digits, lo, hi, t, suffix->exp2);
  if (!magnitude.has_value()) return QuantityTooLarge(text);

  QuantityFormat format = suffix->format;
  if (format == QuantityFormat::kBinarySI && *magnitude < static_cast<uint128>(kNanosPerUnit)) {
    format = QuantityFormat::kDecimalSI;  // As upstream: 0 < |value| < 1 is not binary.
  }
  const auto nanos = static_cast<int128>(*magnitude);
  return Quantity(negative ? -nanos : nanos, format);
}

Quantity Quantity::FromMilli(int64_t milli, QuantityFormat format) {
  return Quantity(static_cast<int128>(milli) * 1'000'000, format);
}

Quantity Quantity::FromValue(int64_t value, QuantityFormat format) {
  if (value == kInt64Min) value = -kInt64Max;
  return Quantity(static_cast<int128>(value) * kNanosPerUnit, format);
}

int64_t Quantity::Value() const { return ScaledValue(0); }

int64_t Quantity::MilliValue() const { return ScaledValue(-3); }

int64_t Quantity::ScaledValue(int scale) const {
  if (nanos_ == 0) return 0;
  const uint128 magnitude =
      nanos_ < 0 ? static_cast<uint128>(-nanos_) : static_cast<uint128>(nanos_);
  const int64_t down = static_cast<int64_t>(scale) + 9;  // divide nanos by 10^down
  uint128 result;
  if (down >= 0) {
    if (down > kMaxPow10) {
      result = 1;  // magnitude < 10^28, so the quotient is 0 and rounds away to 1.
    } else {
      result = magnitude / kPow10[down];
      if (magnitude % kPow10[down] != 0) ++result;
    }
  } else {
    const int64_t up = -down;
    constexpr uint128 kSaturated = static_cast<uint128>(1) << 64;
    if (up > kMaxPow10 || magnitude > kSaturated / kPow10[up]) {
      result = kSaturated;
    } else {
      result = magnitude * kPow10[up];
    }
  }
  if (nanos_ > 0) {
    return result > static_cast<uint128>(kInt64Max) ? kInt64Max : static_cast<int64_t>(result);
  }
  constexpr uint128 kMinMagnitude = static_cast<uint128>(kInt64Max) + 1;
  return result >= kMinMagnitude ? kInt64Min : -static_cast<int64_t>(result);
}

double Quantity::AsApproximateDouble() const {
  constexpr int128 kExactInDouble = static_cast<int128>(1) << 53;
  if (nanos_ > -kExactInDouble && nanos_ < kExactInDouble) {
    // Both operands are exact, so the quotient is correctly rounded.
    return static_cast<double>(static_cast<int64_t>(nanos_)) / static_cast<double>(kNanosPerUnit);
  }
  const auto units = static_cast<int64_t>(nanos_ / kNanosPerUnit);
  const auto frac = static_cast<int64_t>(nanos_ % kNanosPerUnit);
  return static_cast<double>(units) +
         static_cast<double>(frac) / static_cast<double>(kNanosPerUnit);
}

std::string Quantity::String() const {
  if (nanos_ == 0) return "0";
  const uint128 magnitude =
      nanos_ < 0 ? static_cast<uint128>(-nanos_) : static_cast<uint128>(nanos_);

  // Longest: "-" + 28 digits + "e-9" or a two-letter suffix.
  char buf[48];
  char* const end = buf + sizeof(buf);
  char* suffix_begin = end;
  uint128 number;

  QuantityFormat format = format_;
  // As upstream's CanonicalizeBytes: BinarySI only for whole values of magnitude >= 1024.
  if (format == QuantityFormat::kBinarySI &&
      (magnitude < static_cast<uint128>(1024) * kNanosPerUnit || magnitude % kNanosPerUnit != 0)) {
    format = QuantityFormat::kDecimalSI;
  }

  if (format == QuantityFormat::kBinarySI) {
    static constexpr std::array<std::string_view, 7> kBinarySuffixes = {"",   "Ki", "Mi", "Gi",
                                                                        "Ti", "Pi", "Ei"};
    number = magnitude / kNanosPerUnit;
    size_t power = 0;
    while (number >= 1024 && number % 1024 == 0) {
      number /= 1024;
      ++power;
    }
    const std::string_view s = kBinarySuffixes[power];  // power <= 6 as number < 2^63.
    suffix_begin -= s.size();
    s.copy(suffix_begin, s.size());
  } else {
    const Decimal d = CanonicalDecimal(magnitude);
    number = d.magnitude;
    if (format == QuantityFormat::kDecimalSI) {
      // Exponents run from -9 (nanos) to 18 (|value| < 10^19), all of which have a suffix.
      static constexpr std::array<std::string_view, 10> kDecimalSuffixes = {
          "n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
      const std::string_view s = kDecimalSuffixes[static_cast<size_t>((d.exponent + 9) / 3)];
      suffix_begin -= s.size();
      s.copy(suffix_begin, s.size());
    } else if (d.exponent != 0) {  // kDecimalExponent, or an out-of-enum value as upstream.
      suffix_begin = WriteDigits(static_cast<uint128>(d.exponent < 0 ? -d.exponent : d.exponent),
                                 suffix_begin);
      if (d.exponent < 0) *--suffix_begin = '-';
      *--suffix_begin = 'e';
    }
  }
  char* begin = WriteDigits(number, suffix_begin);
  if (nanos_ < 0) *--begin = '-';
  return std::string(begin, end);
}

bool Quantity::Add(const Quantity& other) {
  if (nanos_ == 0) format_ = other.format_;
  bool ok;
  nanos_ = Clamp(nanos_ + other.nanos_, &ok);
  return ok;
}

bool Quantity::Sub(const Quantity& other) {
  if (nanos_ == 0) format_ = other.format_;
  bool ok;
  nanos_ = Clamp(nanos_ - other.nanos_, &ok);
  return ok;
}

}  // namespace trimaran::kube
