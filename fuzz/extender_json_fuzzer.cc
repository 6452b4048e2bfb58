// Fuzzes the scheduler extender codec (scheduler/extender/extender_codec.h): what
// trimaran-scheduler --extender decodes from whoever reaches its port (ExtenderArgs,
// ExtenderBindingArgs), and the answers a kube-scheduler-side client decodes.
//
// Invariants, for every document a decoder accepts:
//   - ExtenderArgs: decode(encode(x)) keeps the pod's name, namespace and UID, the node
//     names (in order) and the node objects' names (in order), and whether each list was
//     sent;
//   - ExtenderFilterResult, HostPriorityList, ExtenderBindingArgs/Result: decode(encode(x))
//     == x on every field the wire form carries.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "scheduler/extender/extender_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trimaran::sched::extender;  // NOLINT(build/namespaces): a fuzzer entry point
  const std::string_view json(reinterpret_cast<const char*>(data), size);

  if (absl::StatusOr<ExtenderArgs> args = DecodeExtenderArgs(json); args.ok()) {
    const std::string encoded = EncodeExtenderArgs(*args);
    absl::StatusOr<ExtenderArgs> again = DecodeExtenderArgs(encoded);
    FUZZ_CHECK(again.ok()) << "the encoder's output does not decode: " << again.status() << "\n"
                           << encoded;
    FUZZ_CHECK(again->pod.metadata.name == args->pod.metadata.name &&
               again->pod.metadata.namespace_name == args->pod.metadata.namespace_name &&
               again->pod.metadata.uid == args->pod.metadata.uid)
        << encoded;
    FUZZ_CHECK(again->node_names == args->node_names) << encoded;
    FUZZ_CHECK(again->nodes.has_value() == args->nodes.has_value()) << encoded;
    if (args->nodes.has_value()) {
      FUZZ_CHECK(again->nodes->size() == args->nodes->size()) << encoded;
      for (size_t i = 0; i < args->nodes->size(); ++i) {
        FUZZ_CHECK((*again->nodes)[i].node->metadata.name == (*args->nodes)[i].node->metadata.name)
            << encoded;
      }
    }
  }

  if (absl::StatusOr<ExtenderFilterResult> r = DecodeExtenderFilterResult(json); r.ok()) {
    const std::string encoded = EncodeExtenderFilterResult(*r);
    absl::StatusOr<ExtenderFilterResult> again = DecodeExtenderFilterResult(encoded);
    FUZZ_CHECK(again.ok()) << again.status() << "\n" << encoded;
    FUZZ_CHECK(again->node_names == r->node_names && again->failed_nodes == r->failed_nodes &&
               again->failed_and_unresolvable_nodes == r->failed_and_unresolvable_nodes &&
               again->error == r->error && again->nodes.has_value() == r->nodes.has_value())
        << encoded;
  }

  if (absl::StatusOr<std::vector<HostPriority>> list = DecodeHostPriorityList(json); list.ok()) {
    const std::string encoded = EncodeHostPriorityList(*list);
    absl::StatusOr<std::vector<HostPriority>> again = DecodeHostPriorityList(encoded);
    FUZZ_CHECK(again.ok() && *again == *list) << encoded;
  }

  if (absl::StatusOr<ExtenderBindingArgs> b = DecodeExtenderBindingArgs(json); b.ok()) {
    const std::string encoded = EncodeExtenderBindingArgs(*b);
    absl::StatusOr<ExtenderBindingArgs> again = DecodeExtenderBindingArgs(encoded);
    FUZZ_CHECK(again.ok() && *again == *b) << encoded;
  }

  if (absl::StatusOr<ExtenderBindingResult> b = DecodeExtenderBindingResult(json); b.ok()) {
    absl::StatusOr<ExtenderBindingResult> again =
        DecodeExtenderBindingResult(EncodeExtenderBindingResult(*b));
    FUZZ_CHECK(again.ok() && again->error == b->error);
  }
  return 0;
}
