#pragma once
// ObjectReference: a pointer to another object (core/v1 ObjectReference), used as the
// Binding target and as the `regarding`/`related` object of an Event.
//
// Thread-safety: a plain value; externally synchronized.

#include <string>

namespace trimaran::kube {

struct ObjectReference {
  std::string api_version;
  std::string kind;
  // JSON "namespace".
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::string field_path;

  bool operator==(const ObjectReference&) const = default;
};

}  // namespace trimaran::kube
