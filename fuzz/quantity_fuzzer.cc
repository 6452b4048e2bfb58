// Fuzzes Quantity::Parse (kube/api/quantity.h), which every resource list of every pod
// and node goes through.
//
// The input is one quantity text, or two separated by kSeparator (fuzz_util.h) for the
// arithmetic checks. Invariants, for every text Parse accepts:
//   - canonical form: Parse(String()) gives the same value, and after that one pass
//     String() is a fixed point (the BinarySI exception of quantity.h);
//   - the accessors agree with each other: Sign and IsZero with the value, MilliValue
//     with Value, the double's sign with Sign;
//   - arithmetic: a + b - b == a whenever neither step saturated, Neg twice is the
//     identity, comparisons are consistent with ==.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "kube/api/quantity.h"

namespace trimaran::kube {
namespace {

std::string Show(const Quantity& q) { return q.String(); }

void CheckOne(std::string_view text, const Quantity& q) {
  const std::string canonical = q.String();
  absl::StatusOr<Quantity> again = Quantity::Parse(canonical);
  FUZZ_CHECK(again.ok()) << "\"" << text << "\" prints \"" << canonical
                         << "\", which does not parse: " << again.status();
  FUZZ_CHECK(*again == q) << "\"" << text << "\" prints \"" << canonical << "\", another value";
  const std::string fixed = again->String();
  absl::StatusOr<Quantity> third = Quantity::Parse(fixed);
  FUZZ_CHECK(third.ok() && third->String() == fixed)
      << "\"" << text << "\": \"" << fixed << "\" is not a fixed point";

  FUZZ_CHECK(q.IsZero() == (q.Sign() == 0)) << text;
  FUZZ_CHECK(q.Sign() == (q > Quantity()) - (q < Quantity())) << text;
  // Rounding is away from zero, so Value and MilliValue keep the sign of any non-zero
  // quantity ("1n" is 1 and 1m).
  const int64_t value = q.Value();
  const int64_t milli = q.MilliValue();
  FUZZ_CHECK((value > 0) == (q.Sign() > 0) && (value < 0) == (q.Sign() < 0))
      << text << ": Value " << value;
  FUZZ_CHECK((milli > 0) == (q.Sign() > 0) && (milli < 0) == (q.Sign() < 0))
      << text << ": MilliValue " << milli;
  for (int scale = -12; scale <= 21; scale += 3) (void)q.ScaledValue(scale);
  const double approx = q.AsApproximateDouble();
  FUZZ_CHECK((approx > 0) == (q.Sign() > 0) && (approx < 0) == (q.Sign() < 0))
      << text << ": AsApproximateDouble " << approx;

  Quantity negated = q;
  negated.Neg();
  FUZZ_CHECK(negated.Sign() == -q.Sign()) << text;
  negated.Neg();
  FUZZ_CHECK(negated == q) << text;
}

void CheckPair(const Quantity& a, const Quantity& b) {
  FUZZ_CHECK((a == b) == (a.Cmp(b) == 0) && (a < b) == (a.Cmp(b) < 0))
      << Show(a) << " vs " << Show(b);
  FUZZ_CHECK(a.Cmp(b) == -b.Cmp(a)) << Show(a) << " vs " << Show(b);
  Quantity sum = a;
  if (!sum.Add(b)) return;  // saturated: documented, nothing more to compare
  Quantity back = sum;
  if (!back.Sub(b)) return;
  FUZZ_CHECK(back == a) << Show(a) << " + " << Show(b) << " - " << Show(b) << " = " << Show(back);
  // Sub is Add of the negation.
  Quantity diff = a;
  Quantity neg_b = b;
  neg_b.Neg();
  Quantity via_add = a;
  const bool sub_ok = diff.Sub(b);
  const bool add_ok = via_add.Add(neg_b);
  FUZZ_CHECK(sub_ok == add_ok && diff == via_add) << Show(a) << " - " << Show(b);
}

}  // namespace
}  // namespace trimaran::kube

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using trimaran::kube::Quantity;
  const std::vector<std::string_view> texts = trimaran::fuzz::SplitInput(data, size, 2);
  std::vector<Quantity> parsed;
  for (std::string_view text : texts) {
    absl::StatusOr<Quantity> q = Quantity::Parse(text);
    if (!q.ok()) {
      FUZZ_CHECK(absl::IsInvalidArgument(q.status()) || absl::IsOutOfRange(q.status()))
          << "\"" << text << "\": " << q.status();
      continue;
    }
    trimaran::kube::CheckOne(text, *q);
    parsed.push_back(*q);
  }
  if (parsed.size() == 2) trimaran::kube::CheckPair(parsed[0], parsed[1]);
  return 0;
}
