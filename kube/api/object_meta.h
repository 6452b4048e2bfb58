#pragma once
// ObjectMeta: the metadata every Kubernetes object carries (metav1.ObjectMeta), reduced
// to the fields Trimaran reads or writes, plus the shared string-map type used for
// labels, annotations and selectors.
//
// Timestamps are absl::Time; an unset (JSON null or missing) timestamp is
// std::nullopt. `metav1.Time` has second precision on the wire.
//
// Thread-safety: plain values; const access is safe for concurrent use, mutation is
// externally synchronized.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"

namespace trimaran::kube {

// Ordered so that encoding is deterministic; `std::less<>` allows lookups by
// std::string_view without building a std::string.
using StringMap = std::map<std::string, std::string, std::less<>>;
using Labels = StringMap;
using Annotations = StringMap;

// metav1.OwnerReference.
struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;

  bool operator==(const OwnerReference&) const = default;
};

// metav1.ObjectMeta (subset).
struct ObjectMeta {
  std::string name;
  // JSON "namespace" (a C++ keyword). Empty for cluster-scoped objects.
  std::string namespace_name;
  std::string uid;
  std::string resource_version;
  int64_t generation = 0;
  std::optional<absl::Time> creation_timestamp;
  // Set when deletion was requested; the object is terminating.
  std::optional<absl::Time> deletion_timestamp;
  Labels labels;
  Annotations annotations;
  std::vector<OwnerReference> owner_references;

  bool operator==(const ObjectMeta&) const = default;
};

// "namespace/name", or "name" for cluster-scoped objects: the key used in logs, in
// stores and in error messages ("pod default/web-1").
std::string NamespacedName(const ObjectMeta& meta);

// The controller owner reference (controller == true), or nullptr.
const OwnerReference* ControllerRef(const ObjectMeta& meta);

}  // namespace trimaran::kube
