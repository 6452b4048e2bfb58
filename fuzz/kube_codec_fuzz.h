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
#include "kube/api/watch_event.h"

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

// The three decoders of one kind (GET, LIST, one WATCH line), each on the whole input:
// every accepted document round-trips, `check` runs on every decoded object, and a
// watch event carries a Status exactly when its type is ERROR (unless its object did
// not decode; kube/api/watch_event.h). `kind` names the kind in messages ("Pod").
template <typename Codecs, typename Check>
void FuzzKindDecoders(std::string_view json, std::string_view kind, Check check) {
  if (auto object = Codecs::Decode(json); object.ok()) {
    check(*object);
    CheckRoundTrip(*object, Codecs::Decode, Codecs::Encode, kind);
  }
  if (auto list = Codecs::DecodeList(json); list.ok()) {
    for (const auto& item : list->items) check(item);
    CheckRoundTrip(*list, Codecs::DecodeList, Codecs::EncodeList, std::string(kind) + "List");
  }
  if (auto event = Codecs::DecodeWatchEvent(json); event.ok()) {
    FUZZ_CHECK(event->undecodable.has_value() ||
               event->error.has_value() == (event->type == kube::WatchEventType::kError))
        << "an ERROR event carries a Status, others do not";
    check(event->object);
    CheckRoundTrip(*event, Codecs::DecodeWatchEvent, Codecs::EncodeWatchEvent,
                   "WatchEvent<" + std::string(kind) + ">");
  }
}

}  // namespace trimaran::fuzz
