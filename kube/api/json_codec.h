#pragma once
// JSON codec for the kube/api types, on RapidJSON: decoders for everything the
// scheduler reads from the apiserver and encoders for everything it writes (plus
// EncodePod/EncodeNode and lists/watch events for fixtures and the fake apiserver).
//
// Decoding rules (those of the apiserver's Go decoder, made strict where it matters):
//  * Unknown fields are ignored; `null` is the same as a missing field.
//  * Missing fields take the apiserver defaults documented on the types.
//  * A wrong JSON type or a bad value (quantity syntax, timestamp) is InvalidArgument
//    naming the full field path:
//      spec.containers[1].resources.requests.cpu: invalid quantity "1.5.3"
//      items[17].metadata.labels: expected object
//  * Malformed or truncated input is InvalidArgument
//      "invalid JSON at offset N: <RapidJSON message>"
//    and never crashes (parsing is iterative, so deep nesting cannot overflow the stack).
//  * If the object carries "kind", it must match (DecodePod of a Node is an error).
//  * Lenient where the apiserver is: an enum string outside the known set decodes to
//    the enum's kUnrecognized member (kube/api/unrecognized.h), and a quantity beyond
//    2^63-1 base units ("10E") saturates (Quantity::ParseSaturating).
//  * Lists and watch events never fail because of one object: an item that does not
//    decode is left out of `items` and described in `List::skipped`; an event whose
//    object does not decode comes back OK with `WatchEvent::undecodable` set (name,
//    namespace and resourceVersion read where possible). A watch line that is not a
//    watch event at all (not JSON, no known "type", no "object") is still an error.
//  * Timestamps are RFC 3339 ("2024-01-02T03:04:05Z", any fractional precision and UTC
//    offset accepted).
//
// The *Value variants decode from an already parsed rapidjson::Value and prefix error
// paths with `path` (e.g. "items[3]"), so list and watch decoders elsewhere can reuse
// them. Encoders cannot fail; they emit compact JSON, `Time` with second precision
// and `MicroTime` (events, leases) with six fractional digits, always in UTC ("Z").
//
// Thread-safety: all functions are reentrant and safe for concurrent use.

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kube/api/api_status.h"
#include "kube/api/binding.h"
#include "kube/api/event.h"
#include "kube/api/lease.h"
#include "kube/api/list.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/pod_group.h"
#include "kube/api/pod_status_patch.h"
#include "kube/api/selector_object.h"
#include "kube/api/storage.h"
#include "kube/api/watch_event.h"
#include "rapidjson/fwd.h"

namespace trimaran::kube {

// ---- Decoding from JSON text. ----
absl::StatusOr<Pod> DecodePod(std::string_view json);
absl::StatusOr<Node> DecodeNode(std::string_view json);
absl::StatusOr<PodList> DecodePodList(std::string_view json);
absl::StatusOr<NodeList> DecodeNodeList(std::string_view json);
absl::StatusOr<WatchEvent<Pod>> DecodePodWatchEvent(std::string_view json);
absl::StatusOr<WatchEvent<Node>> DecodeNodeWatchEvent(std::string_view json);
// A list of `resource` (its list kind checked) and a watch event of any SelectorObject
// kind (kube/api/selector_object.h).
absl::StatusOr<SelectorObjectList> DecodeSelectorObjectList(std::string_view json,
                                                            SelectorResource resource);
absl::StatusOr<WatchEvent<SelectorObject>> DecodeSelectorObjectWatchEvent(std::string_view json);
// PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes
// (kube/api/storage.h): a list of `resource`, a watch event (its object's "kind", when
// present, decides), one object (e.g. the answer to a PATCH).
absl::StatusOr<StorageObjectList> DecodeStorageObjectList(std::string_view json,
                                                          StorageResource resource);
absl::StatusOr<WatchEvent<StorageObject>> DecodeStorageObjectWatchEvent(std::string_view json,
                                                                        StorageResource resource);
absl::StatusOr<StorageObject> DecodeStorageObject(std::string_view json, StorageResource resource);
absl::StatusOr<Binding> DecodeBinding(std::string_view json);
// PodGroups (scheduling.x-k8s.io/v1alpha1): an object, a list (bad items skipped), a
// watch event; the merge patch of pods/status the scheduler writes ({"status": ...}).
absl::StatusOr<PodGroup> DecodePodGroup(std::string_view json);
absl::StatusOr<PodGroupList> DecodePodGroupList(std::string_view json);
absl::StatusOr<WatchEvent<PodGroup>> DecodePodGroupWatchEvent(std::string_view json);
std::string EncodePodGroup(const PodGroup& group);
std::string EncodePodGroupStatusPatch(const PodGroupStatus& status);
// The JSON merge patch body of a StoragePatch.
std::string EncodeStoragePatch(const StoragePatch& patch);
absl::StatusOr<Event> DecodeEvent(std::string_view json);
absl::StatusOr<Lease> DecodeLease(std::string_view json);
absl::StatusOr<ApiStatus> DecodeStatus(std::string_view json);
// The body written by EncodePodStatusPatch ({"status": {...}}).
absl::StatusOr<PodStatusPatch> DecodePodStatusPatch(std::string_view json);

// ---- Decoding from a parsed value; errors are prefixed with `path`. ----
absl::Status DecodePodValue(const rapidjson::Value& value, std::string_view path, Pod& out);
absl::Status DecodeNodeValue(const rapidjson::Value& value, std::string_view path, Node& out);
absl::Status DecodeSelectorObjectValue(const rapidjson::Value& value, std::string_view path,
                                       SelectorObject& out);
absl::Status DecodeStatusValue(const rapidjson::Value& value, std::string_view path,
                               ApiStatus& out);
// A PV, PVC, StorageClass or CSINode of `resource` (a "kind" member, when present, must
// name one of the four and decides).
absl::Status DecodeStorageObjectValue(const rapidjson::Value& value, std::string_view path,
                                      StorageResource resource, StorageObject& out);

// ---- Encoding. ----
std::string EncodePod(const Pod& pod);
std::string EncodeNode(const Node& node);
std::string EncodePodList(const PodList& list);
std::string EncodeNodeList(const NodeList& list);
std::string EncodePodWatchEvent(const WatchEvent<Pod>& event);
std::string EncodeNodeWatchEvent(const WatchEvent<Node>& event);
std::string EncodeBinding(const Binding& binding);
std::string EncodeEvent(const Event& event);
std::string EncodeLease(const Lease& lease);
std::string EncodeStatus(const ApiStatus& status);
// {"status": {"$setElementOrder/conditions": [...], "conditions": [...],
//             "nominatedNodeName": "..."}}; lastProbeTime is written as null when unset.
std::string EncodePodStatusPatch(const PodStatusPatch& patch);

// ---- Timestamps (exposed for other codecs and tests). ----
// Parses RFC 3339 (as Go's time.RFC3339Nano accepts). Error: InvalidArgument.
absl::StatusOr<absl::Time> ParseRfc3339(std::string_view text);
// "2006-01-02T15:04:05Z" (metav1.Time: truncated to seconds, UTC).
std::string FormatRfc3339(absl::Time t);
// "2006-01-02T15:04:05.000000Z" (metav1.MicroTime: truncated to microseconds, UTC).
std::string FormatRfc3339Micro(absl::Time t);

}  // namespace trimaran::kube
