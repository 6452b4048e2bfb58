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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimaran::kube;  // NOLINT(build/namespaces): a fuzzer entry point
  using trimaran::fuzz::CheckRoundTrip;
  const std::string_view json(reinterpret_cast<const char*>(data), size);

  if (absl::StatusOr<Node> node = DecodeNode(json); node.ok()) {
    ConvertResources(*node);
    CheckRoundTrip(*node, DecodeNode, EncodeNode, "Node");
  }
  if (absl::StatusOr<NodeList> list = DecodeNodeList(json); list.ok()) {
    for (const Node& node : list->items) ConvertResources(node);
    CheckRoundTrip(*list, DecodeNodeList, EncodeNodeList, "NodeList");
  }
  if (absl::StatusOr<WatchEvent<Node>> event = DecodeNodeWatchEvent(json); event.ok()) {
    // An event whose object did not decode carries no Status even when its type is
    // ERROR (kube/api/watch_event.h).
    FUZZ_CHECK(event->undecodable.has_value() ||
               event->error.has_value() == (event->type == WatchEventType::kError))
        << "an ERROR event carries a Status, others do not";
    ConvertResources(event->object);
    CheckRoundTrip(*event, DecodeNodeWatchEvent, EncodeNodeWatchEvent, "WatchEvent<Node>");
  }
  return 0;
}
