// Fuzzes the pod decoders of kube/api/json_codec.h, the apiserver's bytes as the
// informers and the REST client see them: DecodePod (GET), DecodePodList (LIST) and
// DecodePodWatchEvent (one WATCH line), each on the whole input.
//
// Invariants beyond "no crash, no sanitizer report": every accepted document survives
// the encode/decode round trip (kube_codec_fuzz.h), and the pod request computation the
// cache runs on every pod (ComputePodRequests, with and without the scoring defaults)
// is free of undefined behaviour, and adding a pod's requests to a node then removing
// them leaves nothing behind.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/kube_codec_fuzz.h"
#include "kube/api/json_codec.h"
#include "kube/api/pod_resources.h"

namespace trimaran::kube {
namespace {

// What the cache does with a pod: compute its requests, add them to its node, and
// subtract them when the pod leaves, which must leave nothing behind.
void CheckRequests(const Pod& pod) {
  for (const PodRequestOptions options :
       {PodRequestOptions{}, PodRequestOptions{.non_zero = true}}) {
    const Resource requests = ComputePodRequests(pod, options);
    Resource node;
    node.Add(requests);
    node.Sub(requests);
    FUZZ_CHECK(node.IsZero()) << "adding then removing a pod leaves " << node.DebugString()
                              << " (requests " << requests.DebugString() << ")";
  }
}

}  // namespace
}  // namespace trimaran::kube

namespace trimaran::kube {
namespace {

struct PodCodecs {
  static constexpr auto Decode = DecodePod;
  static constexpr auto Encode = EncodePod;
  static constexpr auto DecodeList = DecodePodList;
  static constexpr auto EncodeList = EncodePodList;
  static constexpr auto DecodeWatchEvent = DecodePodWatchEvent;
  static constexpr auto EncodeWatchEvent = EncodePodWatchEvent;
};

}  // namespace
}  // namespace trimaran::kube

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using trimaran::kube::PodCodecs;
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  trimaran::fuzz::FuzzKindDecoders<PodCodecs>(json, "Pod", [](const trimaran::kube::Pod& object) {
    trimaran::kube::CheckRequests(object);
  });
  return 0;
}
