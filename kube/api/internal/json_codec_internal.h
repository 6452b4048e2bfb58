#pragma once
// Internals of the kube/api JSON codec, shared by its per-kind .cc files. Not part of
// the public API; include kube/api/json_codec.h instead. Implemented in
// json_codec_internal.cc; the layering is one-way: the public codec (json_codec.cc)
// calls these functions, and nothing here calls back into the public codec.
//
// Decoding is a family of overloaded `Read(value, path, out)` functions, one per type,
// with these rules: a JSON null leaves `out` untouched (same as a missing field); a
// wrong JSON type or bad value returns InvalidArgument naming `path`. Encoding is a
// family of `Write(writer, value)` functions emitting one JSON value.
//
// Thread-safety: stateless functions; safe for concurrent use.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "kube/api/api_status.h"
#include "kube/api/binding.h"
#include "kube/api/event.h"
#include "kube/api/lease.h"
#include "kube/api/list.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/pod_group.h"
#include "kube/api/pod_status_patch.h"
#include "kube/api/quantity.h"
#include "kube/api/resource_list.h"
#include "kube/api/selector_object.h"
#include "kube/api/storage.h"
#include "kube/api/watch_event.h"
#include "rapidjson/document.h"
#include "rapidjson/encodedstream.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace trimaran::kube::json_internal {

using Value = rapidjson::Value;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// A field path, built on the stack as decoding descends and rendered only when an
// error is reported ("items[17].spec.containers[1].resources.requests.cpu"). A Path
// refers to its parent and to its key's characters, so it must not outlive either;
// passing children as temporaries (`Read(v, path.Field("spec"), out)`) is the idiom.
class Path {
 public:
  // The root; `prefix` (may be empty) is the path of the value within a larger document.
  explicit Path(std::string_view prefix) : key_(prefix) {}

  Path Field(std::string_view key) const { return Path(this, key, kNoIndex); }
  Path Index(size_t index) const { return Path(this, {}, index); }

  std::string ToString() const;

 private:
  static constexpr size_t kNoIndex = static_cast<size_t>(-1);
  Path(const Path* parent, std::string_view key, size_t index)
      : parent_(parent), key_(key), index_(index) {}
  void AppendTo(std::string& out) const;

  const Path* parent_ = nullptr;
  std::string_view key_;
  size_t index_ = kNoIndex;
};

// InvalidArgument "<path>: <message>".
absl::Status FieldError(const Path& path, std::string_view message);
// InvalidArgument "<path>: expected <expected>, got <JSON type of value>".
absl::Status TypeError(const Path& path, std::string_view expected, const Value& value);

// Debian's Abseil has its own absl::string_view (not an alias of std::string_view),
// which is what absl::StrCat and friends take.
inline absl::string_view ToAbsl(std::string_view s) { return {s.data(), s.size()}; }

inline std::string_view View(const Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

// Parses JSON values one at a time from a byte range into a reusable DOM.
//
// Used whole (ParseDocument) for single objects, and value by value for lists, so that
// a 5,000-pod list is decoded item by item through a small, cache-hot memory pool
// instead of materialising a DOM several times the size of the input. Parsing is
// recursive but depth-limited (kMaxDepth), so hostile nesting cannot overflow the stack:
// a ValueParser needs at most ~130 KB of stack (its 32 KB first pool chunk plus ~190 B
// per nesting level), far below the 8 MB default thread stack.
// Errors are InvalidArgument "invalid JSON at offset N: <message>", N counted from the
// start of the whole input.
//
// With `filter_ignored_members` (the default), members that no decoder reads and that
// are bulky in real objects (managedFields, a container status's state, volumes, env, probes, ...;
// see FilteringHandler in json_codec_internal.cc) are tokenized but left out of the DOM.
class ValueParser {
 public:
  static constexpr int kMaxDepth = 512;

  explicit ValueParser(std::string_view json, bool filter_ignored_members = true);
  ValueParser(const ValueParser&) = delete;
  ValueParser& operator=(const ValueParser&) = delete;

  // Parses the whole input as one value (trailing whitespace only). Embedded NUL bytes
  // are rejected.
  absl::Status ParseDocument();
  // Parses the next value at the cursor, leaving the cursor just after it.
  absl::Status ParseNext();
  // The last parsed value; valid until Reset() or the next Parse*().
  const Value& root() const { return doc_; }
  // Releases the memory of the last value (keeping the first pool chunk).
  void Reset();

  // Cursor, for callers that walk an enclosing structure by hand.
  char Peek() { return stream_.Peek(); }
  void Take() { stream_.Take(); }
  size_t Tell() { return stream_.Tell(); }
  bool AtEnd() { return stream_.Tell() >= size_; }
  void SkipWhitespace();

 private:
  using Stream = rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream>;

  absl::Status SyntaxError(size_t offset, std::string_view message) const;

  const bool filter_ignored_members_;
  const char* data_;
  size_t size_;
  rapidjson::MemoryStream memory_;
  Stream stream_;
  // Big enough for the DOM of a typical pod (~20 KB for 7 KB of JSON), so that decoding a
  // list allocates nothing per item; later chunks stay below glibc's 64 KB free-
  // consolidation threshold.
  static constexpr size_t kChunkSize = 32 * 1024;
  alignas(16) char first_chunk_[kChunkSize];
  rapidjson::MemoryPoolAllocator<> pool_;
  rapidjson::Document doc_;
  rapidjson::Reader reader_;
};

// Checks an optional "kind" member of `object` against `want` (e.g. "Pod").
absl::Status CheckKind(const Value& object, const Path& path, std::string_view want,
                       std::string_view also_accepted = {});
// Checks the value of a "kind" member (at `kind_path`).
absl::Status CheckKindValue(const Value& kind, const Path& kind_path, std::string_view want,
                            std::string_view also_accepted = {});

// Calls `f(key, value, field_path)` for each member of the object `v` (no-op for
// null; an error for other non-objects). Stops at the first error.
template <typename F>
absl::Status ForEachField(const Value& v, const Path& path, F&& f) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsObject()) return TypeError(path, "object", v);
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    const std::string_view key = View(it->name);
    TRIMARAN_RETURN_IF_ERROR(f(key, it->value, path.Field(key)));
  }
  return absl::OkStatus();
}

// ---- Scalars. ----
absl::Status Read(const Value& v, const Path& path, std::string& out);
absl::Status Read(const Value& v, const Path& path, bool& out);
absl::Status Read(const Value& v, const Path& path, int32_t& out);
absl::Status Read(const Value& v, const Path& path, int64_t& out);
// RFC 3339 string.
absl::Status Read(const Value& v, const Path& path, absl::Time& out);
// A quantity string (or, as Go accepts, a bare JSON number).
absl::Status Read(const Value& v, const Path& path, Quantity& out);
absl::Status Read(const Value& v, const Path& path, StringMap& out);
absl::Status Read(const Value& v, const Path& path, ResourceList& out);

// ---- Enums (empty strings map to the documented default where upstream has one). ----
absl::Status Read(const Value& v, const Path& path, LabelSelectorOperator& out);
absl::Status Read(const Value& v, const Path& path, NodeSelectorOperator& out);
absl::Status Read(const Value& v, const Path& path, TaintEffect& out);
absl::Status Read(const Value& v, const Path& path, TolerationOperator& out);
absl::Status Read(const Value& v, const Path& path, UnsatisfiableConstraintAction& out);
absl::Status Read(const Value& v, const Path& path, NodeInclusionPolicy& out);
absl::Status Read(const Value& v, const Path& path, ConditionStatus& out);
absl::Status Read(const Value& v, const Path& path, Protocol& out);
absl::Status Read(const Value& v, const Path& path, ContainerRestartPolicy& out);
absl::Status Read(const Value& v, const Path& path, PreemptionPolicy& out);
absl::Status Read(const Value& v, const Path& path, PodPhase& out);
absl::Status Read(const Value& v, const Path& path, WatchEventType& out);

// ---- Objects. ----
absl::Status Read(const Value& v, const Path& path, OwnerReference& out);
absl::Status Read(const Value& v, const Path& path, ObjectMeta& out);
absl::Status Read(const Value& v, const Path& path, ObjectReference& out);
absl::Status Read(const Value& v, const Path& path, ListMeta& out);
absl::Status Read(const Value& v, const Path& path, LabelSelectorRequirement& out);
absl::Status Read(const Value& v, const Path& path, LabelSelector& out);
absl::Status Read(const Value& v, const Path& path, NodeSelectorRequirement& out);
absl::Status Read(const Value& v, const Path& path, NodeSelectorTerm& out);
absl::Status Read(const Value& v, const Path& path, NodeSelector& out);
absl::Status Read(const Value& v, const Path& path, PreferredSchedulingTerm& out);
absl::Status Read(const Value& v, const Path& path, NodeAffinity& out);
absl::Status Read(const Value& v, const Path& path, PodAffinityTerm& out);
absl::Status Read(const Value& v, const Path& path, WeightedPodAffinityTerm& out);
absl::Status Read(const Value& v, const Path& path, PodAffinity& out);
absl::Status Read(const Value& v, const Path& path, Affinity& out);
absl::Status Read(const Value& v, const Path& path, Taint& out);
absl::Status Read(const Value& v, const Path& path, Toleration& out);
absl::Status Read(const Value& v, const Path& path, TopologySpreadConstraint& out);
absl::Status Read(const Value& v, const Path& path, ContainerPort& out);
absl::Status Read(const Value& v, const Path& path, ResourceRequirements& out);
absl::Status Read(const Value& v, const Path& path, Container& out);
absl::Status Read(const Value& v, const Path& path, PodSchedulingGate& out);
absl::Status Read(const Value& v, const Path& path, PodResourceClaim& out);
absl::Status Read(const Value& v, const Path& path, PodSchedulingGroup& out);
absl::Status Read(const Value& v, const Path& path, PodSpec& out);
absl::Status Read(const Value& v, const Path& path, PodCondition& out);
absl::Status Read(const Value& v, const Path& path, ContainerStatus& out);
absl::Status Read(const Value& v, const Path& path, PodStatus& out);
absl::Status Read(const Value& v, const Path& path, Pod& out);
absl::Status Read(const Value& v, const Path& path, NodeSpec& out);
absl::Status Read(const Value& v, const Path& path, NodeCondition& out);
absl::Status Read(const Value& v, const Path& path, NodeAddress& out);
absl::Status Read(const Value& v, const Path& path, ContainerImage& out);
absl::Status Read(const Value& v, const Path& path, NodeStatus& out);
absl::Status Read(const Value& v, const Path& path, Node& out);
absl::Status Read(const Value& v, const Path& path, Binding& out);
absl::Status Read(const Value& v, const Path& path, EventSeries& out);
absl::Status Read(const Value& v, const Path& path, Event& out);
absl::Status Read(const Value& v, const Path& path, LeaseSpec& out);
absl::Status Read(const Value& v, const Path& path, Lease& out);
absl::Status Read(const Value& v, const Path& path, ApiStatus& out);
absl::Status Read(const Value& v, const Path& path, PodStatusPatch& out);
absl::Status Read(const Value& v, const Path& path, SelectorObject& out);
absl::Status Read(const Value& v, const Path& path, Volume& out);
// Decodes the alternative `out.object` holds, unless a "kind" member names another of
// the four storage kinds (watch events carry it; list items do not).
absl::Status Read(const Value& v, const Path& path, StorageObject& out);
// PodGroup (pod_group_json.cc).
absl::Status Read(const Value& v, const Path& path, PodGroupPhase& out);
absl::Status Read(const Value& v, const Path& path, PodGroupSpec& out);
absl::Status Read(const Value& v, const Path& path, PodGroupStatus& out);
absl::Status Read(const Value& v, const Path& path, PodGroup& out);

// ---- Containers of the above. ----
template <typename T>
absl::Status Read(const Value& v, const Path& path, std::vector<T>& out) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsArray()) return TypeError(path, "array", v);
  out.clear();
  out.reserve(v.Size());
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    out.emplace_back();
    TRIMARAN_RETURN_IF_ERROR(Read(v[i], path.Index(i), out.back()));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status Read(const Value& v, const Path& path, std::optional<T>& out) {
  if (v.IsNull()) return absl::OkStatus();
  out.emplace();
  return Read(v, path, *out);
}

// What can be read of an object that did not decode: metadata.name, .namespace and
// .resourceVersion when they are strings (anything else is left empty).
DecodeFailure DescribeFailure(const Value& object, std::string_view position, absl::Status status);

// Appends `item` decoded to `out.items`, or, if it does not decode, its DecodeFailure to
// `out.skipped` (one bad item never fails a list). Each item starts as a copy of
// `prototype` (a StorageObject list's items know their kind from it).
template <typename T>
void ReadListItem(const Value& item, const Path& path, List<T>& out, const T& prototype = T()) {
  T& decoded = out.items.emplace_back(prototype);
  absl::Status s = item.IsObject() ? Read(item, path, decoded) : TypeError(path, "object", item);
  if (s.ok()) return;
  out.items.pop_back();
  out.skipped.push_back(DescribeFailure(item, path.ToString(), std::move(s)));
}

// The "items" of a list: an array (null is empty), decoded item by item.
template <typename T>
absl::Status ReadListItems(const Value& v, const Path& path, List<T>& out,
                           const T& prototype = T()) {
  out.items.clear();
  out.skipped.clear();
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsArray()) return TypeError(path, "array", v);
  out.items.reserve(v.Size());
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    ReadListItem(v[i], path.Index(i), out, prototype);
  }
  return absl::OkStatus();
}

// A list object ({"metadata": ListMeta, "items": [T...]}) of kind `kind`.
template <typename T>
absl::Status ReadList(const Value& v, const Path& path, std::string_view kind, List<T>& out,
                      const T& prototype = T()) {
  if (!v.IsObject()) return TypeError(path, "object", v);
  TRIMARAN_RETURN_IF_ERROR(CheckKind(v, path, kind, "List"));
  return ForEachField(v, path,
                      [&](std::string_view k, const Value& fv, const Path& fp) -> absl::Status {
                        if (k == "metadata") return Read(fv, fp, out.metadata);
                        if (k == "items") return ReadListItems(fv, fp, out, prototype);
                        return absl::OkStatus();
                      });
}

// A watch event whose object is a T (or an ApiStatus for ERROR).
template <typename T>
absl::Status ReadWatchEvent(const Value& v, const Path& path, WatchEvent<T>& out) {
  if (!v.IsObject()) return TypeError(path, "object", v);
  const auto type_it = v.FindMember("type");
  if (type_it == v.MemberEnd() || type_it->value.IsNull()) {
    return FieldError(path.Field("type"), "required");
  }
  TRIMARAN_RETURN_IF_ERROR(Read(type_it->value, path.Field("type"), out.type));
  const auto object_it = v.FindMember("object");
  if (object_it == v.MemberEnd() || !object_it->value.IsObject()) {
    return FieldError(path.Field("object"), "expected object");
  }
  const Path object_path = path.Field("object");
  absl::Status s = out.type == WatchEventType::kError
                       ? Read(object_it->value, object_path, out.error.emplace())
                       : Read(object_it->value, object_path, out.object);
  if (s.ok()) return s;
  // The envelope is fine but its object is not: report it, with what metadata says.
  out.error.reset();
  out.object = T();
  out.undecodable = DescribeFailure(object_it->value, "", std::move(s));
  if constexpr (requires { out.object.metadata; }) {
    out.object.metadata.name = out.undecodable->name;
    out.object.metadata.namespace_name = out.undecodable->namespace_name;
    out.object.metadata.resource_version = out.undecodable->resource_version;
  }
  return absl::OkStatus();
}

// ---- Time. ----
// Fast RFC 3339 parser; false on any syntax or range error.
bool ParseRfc3339(std::string_view text, absl::Time& out);
// "2006-01-02T15:04:05Z" (metav1.Time: truncated to seconds, UTC).
std::string TimeString(absl::Time t);
// "2006-01-02T15:04:05.000000Z" (metav1.MicroTime: truncated to microseconds, UTC).
std::string MicroTimeString(absl::Time t);

// ---- Writing. ----
inline void Key(Writer& w, std::string_view key) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}
inline void String(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
inline void StringField(Writer& w, std::string_view key, std::string_view value) {
  Key(w, key);
  String(w, value);
}
// omitempty.
inline void OptStringField(Writer& w, std::string_view key, std::string_view value) {
  if (!value.empty()) StringField(w, key, value);
}
void TimeField(Writer& w, std::string_view key, absl::Time t);
void MicroTimeField(Writer& w, std::string_view key, absl::Time t);
void StringArrayField(Writer& w, std::string_view key, const std::vector<std::string>& values);
void StringMapField(Writer& w, std::string_view key, const StringMap& values);
void ResourceListField(Writer& w, std::string_view key, const ResourceList& values);

void Write(Writer& w, const OwnerReference& v);
void Write(Writer& w, const PodGroupStatus& v);
void Write(Writer& w, const PodGroup& v);
void Write(Writer& w, const ObjectMeta& v);
void Write(Writer& w, const ObjectReference& v);
void Write(Writer& w, const ListMeta& v);
void Write(Writer& w, const LabelSelectorRequirement& v);
void Write(Writer& w, const LabelSelector& v);
void Write(Writer& w, const NodeSelectorRequirement& v);
void Write(Writer& w, const NodeSelectorTerm& v);
void Write(Writer& w, const NodeSelector& v);
void Write(Writer& w, const PreferredSchedulingTerm& v);
void Write(Writer& w, const NodeAffinity& v);
void Write(Writer& w, const PodAffinityTerm& v);
void Write(Writer& w, const WeightedPodAffinityTerm& v);
void Write(Writer& w, const PodAffinity& v);
void Write(Writer& w, const Affinity& v);
void Write(Writer& w, const Taint& v);
void Write(Writer& w, const Toleration& v);
void Write(Writer& w, const TopologySpreadConstraint& v);
void Write(Writer& w, const ContainerPort& v);
void Write(Writer& w, const ResourceRequirements& v);
void Write(Writer& w, const Container& v);
void Write(Writer& w, const PodSchedulingGate& v);
void Write(Writer& w, const PodResourceClaim& v);
void Write(Writer& w, const PodSchedulingGroup& v);
void Write(Writer& w, const Volume& v);
void Write(Writer& w, const PodSpec& v);
void Write(Writer& w, const PodCondition& v);
void Write(Writer& w, const ContainerStatus& v);
void Write(Writer& w, const PodStatus& v);
void Write(Writer& w, const Pod& v);
void Write(Writer& w, const NodeSpec& v);
void Write(Writer& w, const NodeCondition& v);
void Write(Writer& w, const NodeAddress& v);
void Write(Writer& w, const ContainerImage& v);
void Write(Writer& w, const NodeStatus& v);
void Write(Writer& w, const Node& v);
void Write(Writer& w, const ApiStatus& v);

// `"key": [Write(item)...]`, omitted when empty.
template <typename T>
void ArrayField(Writer& w, std::string_view key, const std::vector<T>& items) {
  if (items.empty()) return;
  Key(w, key);
  w.StartArray();
  for (const T& item : items) Write(w, item);
  w.EndArray();
}

template <typename T>
void WriteList(Writer& w, std::string_view kind, const List<T>& list) {
  w.StartObject();
  StringField(w, "kind", kind);
  StringField(w, "apiVersion", "v1");
  Key(w, "metadata");
  Write(w, list.metadata);
  Key(w, "items");
  w.StartArray();
  for (const T& item : list.items) Write(w, item);
  w.EndArray();
  w.EndObject();
}

template <typename T>
void WriteWatchEvent(Writer& w, const WatchEvent<T>& event) {
  w.StartObject();
  StringField(w, "type", ToString(event.type));
  Key(w, "object");
  if (event.type == WatchEventType::kError) {
    Write(w, event.error.value_or(ApiStatus{}));
  } else {
    Write(w, event.object);
  }
  w.EndObject();
}

}  // namespace trimaran::kube::json_internal
