#pragma once
// WatchEvent<T>: one line of a WATCH stream ({"type": ..., "object": ...}).
//
// Thread-safety: plain values; externally synchronized.

#include <optional>
#include <string_view>

#include "kube/api/api_status.h"
#include "kube/api/decode_failure.h"

namespace trimaran::kube {

enum class WatchEventType {
  kAdded,
  kModified,
  kDeleted,  // object is the last known state
  // object carries only metadata.resourceVersion: a resume point, no change.
  kBookmark,
  // object is a metav1.Status (in `error`); code 410 means "re-list".
  kError,
};

constexpr std::string_view ToString(WatchEventType t) {
  switch (t) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
    case WatchEventType::kBookmark:
      return "BOOKMARK";
    case WatchEventType::kError:
      return "ERROR";
  }
  return "";
}

template <typename T>
struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  // The object for every type but kError (default-constructed then).
  T object;
  // Set only for kError.
  std::optional<ApiStatus> error;
  // Set when the event's object (or the whole line) did not decode. Then `type` is the
  // envelope's type if it was readable, else kModified (which only keeps the last good
  // copy); `object` holds only what metadata could be read (name, namespace,
  // resourceVersion), and `error` is unset. Never encoded.
  std::optional<DecodeFailure> undecodable;

  bool operator==(const WatchEvent&) const = default;
};

}  // namespace trimaran::kube
