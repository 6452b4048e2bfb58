// Fuzzes the node decoders of kube/api/json_codec.h, the apiserver's bytes as the
// informers and the REST client see them: DecodeNode (GET), DecodeNodeList (LIST) and
// DecodeNodeWatchEvent (one WATCH line), each on the whole input.
//
// Invariants beyond "no crash, no sanitizer report": every accepted document survives
// the encode/decode round trip (kube_codec_fuzz.h), and the conversion the cache runs on
// every node's allocatable and capacity (Resource::FromResourceList) is free of
// undefined behaviour on whatever the decoder accepts.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/kube_codec_fuzz.h"
#include "kube/api/json_codec.h"
#include "kube/api/pod_resources.h"

namespace trimaran::kube {
namespace {

// What the cache does with a node's lists: convert them (values saturate, never wrap);
// adding and removing the converted amounts leaves nothing behind.
void ConvertResources(const Node& node) {
  for (const ResourceList* list : {&node.status.allocatable, &node.status.capacity}) {
    const Resource converted = Resource::FromResourceList(*list);
    Resource sum;
    sum.Add(converted);
    sum.Sub(converted);
    FUZZ_CHECK(sum.IsZero()) << "adding then removing " << converted.DebugString() << " leaves "
                             << sum.DebugString();
  }
}

}  // namespace
}  // namespace trimaran::kube

namespace trimaran::kube {
namespace {

struct NodeCodecs {
  static constexpr auto Decode = DecodeNode;
  static constexpr auto Encode = EncodeNode;
  static constexpr auto DecodeList = DecodeNodeList;
  static constexpr auto EncodeList = EncodeNodeList;
  static constexpr auto DecodeWatchEvent = DecodeNodeWatchEvent;
  static constexpr auto EncodeWatchEvent = EncodeNodeWatchEvent;
};

}  // namespace
}  // namespace trimaran::kube

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using trimaran::kube::NodeCodecs;
  const std::string_view json(reinterpret_cast<const char*>(data), size);
  trimaran::fuzz::FuzzKindDecoders<NodeCodecs>(
      json, "Node",
      [](const trimaran::kube::Node& object) { trimaran::kube::ConvertResources(object); });
  return 0;
}
