#pragma once
// DecodeFailure: one list item or watch event that the codec could not decode (a field
// of the wrong JSON type, a malformed quantity or timestamp, a line that is not JSON).
// List and watch decoding skip such an object instead of failing as a whole, so that one
// bad object cannot stop an informer (which counts and logs it, kube/informer.h).
//
// Thread-safety: a plain value; externally synchronized.

#include <string>

#include "absl/status/status.h"

namespace trimaran::kube {

struct DecodeFailure {
  // metadata.namespace and metadata.name when they could be read; empty otherwise.
  std::string namespace_name;
  std::string name;
  // metadata.resourceVersion when it could be read; empty otherwise.
  std::string resource_version;
  // Where the object was: "items[17]" in a list, "" for a watch event.
  std::string position;
  // What went wrong: InvalidArgument naming the field path.
  absl::Status status;

  // "namespace/name", "name" (cluster-scoped) or "" (no name readable).
  std::string Key() const { return namespace_name.empty() ? name : namespace_name + "/" + name; }

  bool operator==(const DecodeFailure&) const = default;
};

}  // namespace trimaran::kube
