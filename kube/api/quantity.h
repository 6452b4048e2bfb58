#pragma once
// resource.Quantity with Kubernetes' semantics (k8s.io/apimachinery/pkg/api/resource).
//
// A Quantity is an exact fixed-point decimal number plus the format it was written in
// (DecimalSI "1.5k", BinarySI "1Gi", DecimalExponent "1e3"), which only affects its
// canonical string form. Accepted syntax (Kubernetes' grammar):
//
//   <quantity>  ::= <signedNumber><suffix>
//   <signedNumber> ::= "+" | "-" (optional) followed by digits, "." digits, or both
//   <suffix>    ::= <binarySI> Ki Mi Gi Ti Pi Ei | <decimalSI> n u m "" k M G T P E
//                 | <decimalExponent> e<signedNumber> or E<signedNumber> (integer exponent)
//
// Range and precision (Trimaran's documented choice): values are exact to 1n (10^-9);
// finer digits round up (towards +infinity, as Kubernetes does),
// and |value| must not exceed 2^63-1 base units. Larger values are rejected with
// OutOfRange ("quantity too large"), never wrapped.
//
// Value() and MilliValue() round up to the next integer (as upstream's Value()/
// MilliValue(): ceil) and saturate at the int64 limits.
//
// Thread-safety: a value type; const methods are safe for concurrent use.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trimaran::kube {

enum class QuantityFormat {
  kDecimalSI,        // "1500m", "1.5k" -> canonical "1500", "1k"
  kBinarySI,         // "1Gi", "1536Mi"
  kDecimalExponent,  // "1e3", "12e6"
};

class Quantity {
 public:
  // Zero, DecimalSI.
  Quantity() = default;

  // Parses `text`. Errors are InvalidArgument (syntax, naming the text) or
  // OutOfRange (too large). Empty text is an error.
  static absl::StatusOr<Quantity> Parse(std::string_view text);

  // Exact constructors.
  static Quantity FromMilli(int64_t milli, QuantityFormat format = QuantityFormat::kDecimalSI);
  static Quantity FromValue(int64_t value, QuantityFormat format = QuantityFormat::kDecimalSI);

  // Integer value in base units, rounded up (ceil), saturating at int64 limits.
  int64_t Value() const;
  // Value in thousandths of a base unit (cpu millicores), rounded up, saturating.
  int64_t MilliValue() const;
  // Value in units of 10^scale (scale -9..18), rounded up, saturating.
  int64_t ScaledValue(int scale) const;
  // Exact value as a double (for ratios in scoring and reports).
  double AsApproximateDouble() const;

  bool IsZero() const { return nanos_ == 0; }
  // -1, 0 or 1.
  int Sign() const { return nanos_ < 0 ? -1 : (nanos_ > 0 ? 1 : 0); }
  QuantityFormat format() const { return format_; }

  // Canonical form, as Kubernetes serialises it ("1500m" -> "1500m", "1.5" -> "1500m",
  // "1000" -> "1k", "1536Mi" -> "1536Mi", "1.5Gi" -> "1536Mi").
  std::string String() const;

  // Arithmetic keeps this quantity's format. Results beyond the range saturate and
  // return false; otherwise true.
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

  // The value in units of 10^-9, exact.
  __int128 nanos_ = 0;
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
};

}  // namespace trimaran::kube
