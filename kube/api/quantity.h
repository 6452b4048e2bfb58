#pragma once
// resource.Quantity with Kubernetes' semantics (k8s.io/apimachinery/pkg/api/resource).
//
// A Quantity is an exact fixed-point decimal number plus the format it was written in
// (DecimalSI "1.5k", BinarySI "1Gi", DecimalExponent "1e3"), which only affects its
// canonical string form. Accepted syntax (Kubernetes' grammar):
//
//   <quantity>     ::= <signedNumber><suffix>
//   <signedNumber> ::= optional "+" or "-", then <digits>, <digits>".", "."<digits>
//                      or <digits>"."<digits> ("1.", ".5" and "1.G" are accepted)
//   <suffix>       ::= <binarySI> Ki Mi Gi Ti Pi Ei | <decimalSI> n u m "" k M G T P E
//                    | <decimalExponent> "e" or "E", optional sign, digits
//                      (an integer exponent with |exponent| <= 2^31-1)
//
// No whitespace is allowed anywhere (callers trim JSON strings, as upstream does).
// Errors: InvalidArgument for syntax, OutOfRange for magnitude (see below).
//
// Range and precision (Trimaran's documented choices):
//   - Values are exact to 1n (10^-9). Finer digits round the magnitude up, i.e. away
//     from zero, exactly as upstream: "0.1n" -> 1n, "-0.1n" -> -1n, "3.001n" -> 4n.
//   - |value| must not exceed 2^63-1 base units. Larger values ("16Ei", "1e19",
//     "99999999999999999999") are rejected by Parse with OutOfRange ("quantity too
//     large") and never wrapped. ParseSaturating (the API codec's reader) caps them at
//     2^63-1 instead. Upstream keeps such decimal values in an infinite-precision
//     decimal (whose Value() wraps) and silently caps BinarySI ones at 2^63-1.
//   - A number must contain at least one digit. Upstream's scanner also accepts digitless
//     text such as ".", "-", "e3" or "Ki" as zero; Trimaran rejects it.
//
// Format: a binary suffix gives BinarySI (except that a non-zero value with magnitude
// below 1, such as "0.000000000001Ki", becomes DecimalSI, as upstream); a decimal suffix
// or none gives DecimalSI; an exponent gives DecimalExponent.
//
// Thread-safety: a value type; const methods are safe for concurrent use.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trimaran::kube {

// How String() renders a quantity; never affects its value or comparisons.
enum class QuantityFormat {
  kDecimalSI,        // "1500m", "1.5k" -> canonical "1500m", "1500"
  kBinarySI,         // "1Gi", "1536Mi"; values that are not whole numbers of base
                     // units, or whose magnitude is below 1024, render as DecimalSI
  kDecimalExponent,  // "1e3", "12e6"
};

class Quantity {
 public:
  // Zero, DecimalSI.
  Quantity() = default;

  // Parses `text`. Errors are InvalidArgument (syntax, naming the text) or
  // OutOfRange (too large). Empty text is an error. Does not allocate on success.
  static absl::StatusOr<Quantity> Parse(std::string_view text);
  // As Parse, but a magnitude beyond 2^63-1 base units ("10E", "1e30", "16Ei") is not an
  // error: it saturates at +-(2^63-1) base units, keeping the sign and the format the
  // text was written in (so Value() and MilliValue() return the int64 limits). This is
  // what the API codec uses, because the apiserver admits such values: upstream caps
  // BinarySI values at 2^63-1 the same way at parse time, and keeps larger decimal
  // values exact but then wraps in Value() (10E reads as 0 bytes there); saturating
  // instead means a pod requesting "10E" of memory fits no node. Syntax errors are
  // still InvalidArgument.
  static absl::StatusOr<Quantity> ParseSaturating(std::string_view text);

  // Exact constructors. The format is kept as given (as upstream's NewMilliQuantity
  // and NewQuantity do). FromValue(INT64_MIN) saturates to -(2^63-1), the bottom of
  // the range.
  static Quantity FromMilli(int64_t milli, QuantityFormat format = QuantityFormat::kDecimalSI);
  static Quantity FromValue(int64_t value, QuantityFormat format = QuantityFormat::kDecimalSI);

  // Integer value in base units, rounded away from zero as upstream does (ceil for
  // positive values: "1.5" -> 2, "1m" -> 1; "-1.5" -> -2), saturating at the int64
  // limits. Never saturates for a parsed quantity, whose |value| is at most 2^63-1.
  int64_t Value() const;
  // Value in thousandths of a base unit (cpu millicores), rounded away from zero,
  // saturating ("0.0001" -> 1, "-0.0005" -> -1).
  int64_t MilliValue() const;
  // Value in units of 10^scale, rounded away from zero, saturating. Meaningful for
  // scale -9..18; beyond 18 every non-zero value is +-1, below -9 values are scaled up.
  int64_t ScaledValue(int scale) const;
  // The value as the nearest double, or within one rounding of it for |value| >= 2^53n
  // (for ratios in scoring and reports).
  double AsApproximateDouble() const;

  bool IsZero() const { return nanos_ == 0; }
  // -1, 0 or 1.
  int Sign() const { return nanos_ < 0 ? -1 : (nanos_ > 0 ? 1 : 0); }
  QuantityFormat format() const { return format_; }

  // Canonical form, as Kubernetes serialises it ("1500m" -> "1500m", "1.5" -> "1500m",
  // "1000" -> "1k", "1536Mi" -> "1536Mi", "1.5Gi" -> "1536Mi", "1e3" -> "1e3",
  // "0.1Ki" -> "102400m"). Parse(String()) gives the same value, and String() of that
  // is the same string, with one upstream exception: a BinarySI whole number >= 1024
  // that is not a multiple of 1024 prints as a plain integer ("2000"), which reparses
  // as DecimalSI and then prints "2k" (a fixed point from then on). Unlike upstream,
  // which echoes the input text when it looks canonical (so "+1k", "01k" and "1.500"
  // print as typed), this is always the canonical form.
  std::string String() const;

  // Arithmetic keeps this quantity's format, except that a zero quantity takes the
  // format of `other` (as upstream, so 0 + "1Gi" prints "1Gi"). Results beyond the
  // range saturate at +-(2^63-1) base units and return false; otherwise true.
  bool Add(const Quantity& other);
  bool Sub(const Quantity& other);
  void Neg() { nanos_ = -nanos_; }

  // Numeric comparison (format is ignored).
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.nanos_ == b.nanos_; }
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return a.nanos_ <=> b.nanos_;
  }
  int Cmp(const Quantity& other) const {
    return nanos_ < other.nanos_ ? -1 : (nanos_ > other.nanos_ ? 1 : 0);
  }

 private:
  Quantity(__int128 nanos, QuantityFormat format) : nanos_(nanos), format_(format) {}

  // The value in units of 10^-9, exact. Invariant: |nanos_| <= (2^63-1) * 10^9, so
  // Neg() never overflows.
  __int128 nanos_ = 0;
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
};

}  // namespace trimaran::kube
