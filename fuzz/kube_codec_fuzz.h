#pragma once
// The invariant shared by the kube/api codec fuzzers (pod_json_fuzzer.cc,
// node_json_fuzzer.cc): whatever the decoder accepts, the encoder writes back in a form
// the decoder accepts again, and after one normalising pass encode/decode is the
// identity.
//
// One pass normalises because the encoder is canonical, not lossless: a metav1.Time is
// written with second precision and a Quantity in its canonical form (a BinarySI 2000
// prints "2000" and reparses as DecimalSI; kube/api/quantity.h). So x1 = decode(input)
// need not equal decode(encode(x1)), but x2 = decode(encode(x1)) must equal
// x3 = decode(encode(x2)), and encode(x3) == encode(x2) byte for byte.
//
// The metav1.Time gap these fuzzers found (years outside four digits written unpadded)
// is fixed: the encoder pads the year and the decoder refuses a UTC year beyond 0-9999,
// as Go cannot write one.

#include <algorithm>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "fuzz/fuzz_util.h"

namespace trimaran::fuzz {

template <typename T, typename Decode, typename Encode>
void CheckRoundTrip(const T& first, Decode decode, Encode encode, std::string_view what) {
  const std::string once = encode(first);
  absl::StatusOr<T> second = decode(once);
  FUZZ_CHECK(second.ok()) << what << ": the encoder's output does not decode: " << second.status()
                          << "\n"
                          << once;
  const std::string twice = encode(*second);
  absl::StatusOr<T> third = decode(twice);
  FUZZ_CHECK(third.ok()) << what << ": the re-encoded output does not decode: " << third.status()
                         << "\n"
                         << twice;
  FUZZ_CHECK(*third == *second) << what << ": decode(encode(x)) != x after one pass\n" << twice;
  const std::string thrice = encode(*third);
  FUZZ_CHECK(thrice == twice) << what << ": encode is not stable after one pass\n"
                              << twice << "\n"
                              << thrice;
}

}  // namespace trimaran::fuzz
