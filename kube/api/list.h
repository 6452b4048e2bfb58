#pragma once
// ListMeta and List<T>: the result of a LIST call (PodList, NodeList). The list's
// resourceVersion is where a following WATCH resumes; `continue_token` pages through
// large lists.
//
// Thread-safety: plain values; externally synchronized.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kube/api/decode_failure.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"

namespace trimaran::kube {

struct ListMeta {
  std::string resource_version;
  std::string continue_token;  // JSON "continue"
  std::optional<int64_t> remaining_item_count;

  bool operator==(const ListMeta&) const = default;
};

template <typename T>
struct List {
  ListMeta metadata;
  std::vector<T> items;
  // Items that did not decode: left out of `items` (kube/api/decode_failure.h). Never
  // encoded.
  std::vector<DecodeFailure> skipped;

  bool operator==(const List&) const = default;
};

using PodList = List<Pod>;
using NodeList = List<Node>;

}  // namespace trimaran::kube
