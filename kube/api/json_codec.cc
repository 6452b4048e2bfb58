// JSON codec: public entry points (parse, then decode; encode to a string).

#include "kube/api/json_codec.h"

#include "absl/strings/str_cat.h"
#include "kube/api/internal/json_codec_internal.h"

namespace trimaran::kube {
namespace {

using json_internal::Key;
using json_internal::MicroTimeField;
using json_internal::OptStringField;
using json_internal::Path;
using json_internal::StringField;
using json_internal::TypeError;
using json_internal::ValueParser;
using json_internal::Writer;

// Parses `json` and decodes its root, which must be an object, into a T.
template <typename T, typename DecodeFn>
absl::StatusOr<T> DecodeRoot(std::string_view json, DecodeFn&& decode) {
  ValueParser parsed(json);
  TRIMARAN_RETURN_IF_ERROR(parsed.ParseDocument());
  const Path root("");
  if (!parsed.root().IsObject()) return TypeError(root, "object", parsed.root());
  T out;
  TRIMARAN_RETURN_IF_ERROR(decode(parsed.root(), root, out));
  return out;
}

template <typename T>
absl::StatusOr<T> DecodeObject(std::string_view json) {
  return DecodeRoot<T>(json, [](const json_internal::Value& v, const Path& p, T& out) {
    return json_internal::Read(v, p, out);
  });
}

// Decodes a list object, parsing and decoding its "items" one at a time so that the
// parser's memory stays small and cache-hot however long the list is. Anything
// unexpected in the enclosing object's syntax falls back to the whole-document path,
// which reports the precise error.
template <typename T>
absl::StatusOr<List<T>> DecodeList(std::string_view json, std::string_view kind,
                                   const T& prototype = T()) {
  auto whole_document = [&]() -> absl::StatusOr<List<T>> {
    return DecodeRoot<List<T>>(json,
                               [&](const json_internal::Value& v, const Path& p, List<T>& out) {
                                 return json_internal::ReadList(v, p, kind, out, prototype);
                               });
  };
  ValueParser parser(json);
  List<T> out;
  parser.SkipWhitespace();
  if (parser.Peek() != '{') return whole_document();
  parser.Take();
  parser.SkipWhitespace();
  if (parser.Peek() == '}') {
    parser.Take();
  } else {
    while (true) {
      parser.SkipWhitespace();
      if (parser.Peek() != '"') return whole_document();
      TRIMARAN_RETURN_IF_ERROR(parser.ParseNext());
      const std::string key(json_internal::View(parser.root()));
      parser.SkipWhitespace();
      if (parser.Peek() != ':') return whole_document();
      parser.Take();
      parser.SkipWhitespace();
      const Path field(key);
      if (key == "items" && parser.Peek() == '[') {
        parser.Take();
        out.items.clear();
        out.skipped.clear();
        parser.SkipWhitespace();
        if (parser.Peek() == ']') {
          parser.Take();
        } else {
          for (size_t index = 0;; ++index) {
            TRIMARAN_RETURN_IF_ERROR(parser.ParseNext());
            // An item that does not decode is skipped (out.skipped), not fatal.
            json_internal::ReadListItem(parser.root(), field.Index(index), out, prototype);
            parser.SkipWhitespace();
            const char c = parser.Peek();
            if (c == ']') {
              parser.Take();
              break;
            }
            if (c != ',') return whole_document();
            parser.Take();
            parser.SkipWhitespace();
          }
        }
      } else {
        TRIMARAN_RETURN_IF_ERROR(parser.ParseNext());
        const json_internal::Value& value = parser.root();
        if (key == "kind") {
          TRIMARAN_RETURN_IF_ERROR(json_internal::CheckKindValue(value, field, kind, "List"));
        } else if (key == "metadata") {
          TRIMARAN_RETURN_IF_ERROR(json_internal::Read(value, field, out.metadata));
        } else if (key == "items") {  // null, or not an array
          TRIMARAN_RETURN_IF_ERROR(json_internal::ReadListItems(value, field, out, prototype));
        }
      }
      parser.SkipWhitespace();
      const char c = parser.Peek();
      if (c == '}') {
        parser.Take();
        break;
      }
      if (c != ',') return whole_document();
      parser.Take();
    }
  }
  parser.SkipWhitespace();
  if (!parser.AtEnd()) return whole_document();
  return out;
}

template <typename Fn>
std::string Encode(Fn&& fn) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  fn(w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

absl::StatusOr<Pod> DecodePod(std::string_view json) { return DecodeObject<Pod>(json); }
absl::StatusOr<Node> DecodeNode(std::string_view json) { return DecodeObject<Node>(json); }
absl::StatusOr<Binding> DecodeBinding(std::string_view json) { return DecodeObject<Binding>(json); }
absl::StatusOr<Event> DecodeEvent(std::string_view json) { return DecodeObject<Event>(json); }
absl::StatusOr<Lease> DecodeLease(std::string_view json) { return DecodeObject<Lease>(json); }
absl::StatusOr<ApiStatus> DecodeStatus(std::string_view json) {
  return DecodeObject<ApiStatus>(json);
}
absl::StatusOr<PodStatusPatch> DecodePodStatusPatch(std::string_view json) {
  return DecodeObject<PodStatusPatch>(json);
}

absl::StatusOr<PodList> DecodePodList(std::string_view json) {
  return DecodeList<Pod>(json, "PodList");
}

absl::StatusOr<NodeList> DecodeNodeList(std::string_view json) {
  return DecodeList<Node>(json, "NodeList");
}

absl::StatusOr<SelectorObjectList> DecodeSelectorObjectList(std::string_view json,
                                                            SelectorResource resource) {
  return DecodeList<SelectorObject>(json, ListKindName(resource));
}

absl::StatusOr<WatchEvent<SelectorObject>> DecodeSelectorObjectWatchEvent(std::string_view json) {
  return DecodeRoot<WatchEvent<SelectorObject>>(
      json, [](const json_internal::Value& v, const Path& p, WatchEvent<SelectorObject>& out) {
        return json_internal::ReadWatchEvent(v, p, out);
      });
}

absl::StatusOr<StorageObjectList> DecodeStorageObjectList(std::string_view json,
                                                          StorageResource resource) {
  return DecodeList<StorageObject>(json, ListKindName(resource), StorageObject::Empty(resource));
}

absl::StatusOr<WatchEvent<StorageObject>> DecodeStorageObjectWatchEvent(std::string_view json,
                                                                        StorageResource resource) {
  return DecodeRoot<WatchEvent<StorageObject>>(
      json,
      [resource](const json_internal::Value& v, const Path& p, WatchEvent<StorageObject>& out) {
        out.object = StorageObject::Empty(resource);
        return json_internal::ReadWatchEvent(v, p, out);
      });
}

absl::StatusOr<StorageObject> DecodeStorageObject(std::string_view json, StorageResource resource) {
  return DecodeRoot<StorageObject>(
      json, [resource](const json_internal::Value& v, const Path& p, StorageObject& out) {
        out = StorageObject::Empty(resource);
        return json_internal::Read(v, p, out);
      });
}

absl::StatusOr<PodGroup> DecodePodGroup(std::string_view json) {
  return DecodeObject<PodGroup>(json);
}

absl::StatusOr<PodGroupList> DecodePodGroupList(std::string_view json) {
  return DecodeList<PodGroup>(json, "PodGroupList");
}

absl::StatusOr<WatchEvent<PodGroup>> DecodePodGroupWatchEvent(std::string_view json) {
  return DecodeRoot<WatchEvent<PodGroup>>(
      json, [](const json_internal::Value& v, const Path& p, WatchEvent<PodGroup>& out) {
        return json_internal::ReadWatchEvent(v, p, out);
      });
}

std::string EncodePodGroup(const PodGroup& group) {
  return Encode([&](Writer& w) { json_internal::Write(w, group); });
}

std::string EncodePodGroupStatusPatch(const PodGroupStatus& status) {
  return Encode([&](Writer& w) {
    w.StartObject();
    Key(w, "status");
    json_internal::Write(w, status);
    w.EndObject();
  });
}

absl::StatusOr<WatchEvent<Pod>> DecodePodWatchEvent(std::string_view json) {
  return DecodeRoot<WatchEvent<Pod>>(
      json, [](const json_internal::Value& v, const Path& p, WatchEvent<Pod>& out) {
        return json_internal::ReadWatchEvent(v, p, out);
      });
}

absl::StatusOr<WatchEvent<Node>> DecodeNodeWatchEvent(std::string_view json) {
  return DecodeRoot<WatchEvent<Node>>(
      json, [](const json_internal::Value& v, const Path& p, WatchEvent<Node>& out) {
        return json_internal::ReadWatchEvent(v, p, out);
      });
}

absl::Status DecodePodValue(const rapidjson::Value& value, std::string_view path, Pod& out) {
  const Path root(path);
  if (!value.IsObject()) return TypeError(root, "object", value);
  return json_internal::Read(value, root, out);
}

absl::Status DecodeNodeValue(const rapidjson::Value& value, std::string_view path, Node& out) {
  const Path root(path);
  if (!value.IsObject()) return TypeError(root, "object", value);
  return json_internal::Read(value, root, out);
}

absl::Status DecodeSelectorObjectValue(const rapidjson::Value& value, std::string_view path,
                                       SelectorObject& out) {
  const Path root(path);
  if (!value.IsObject()) return TypeError(root, "object", value);
  return json_internal::Read(value, root, out);
}

absl::Status DecodeStorageObjectValue(const rapidjson::Value& value, std::string_view path,
                                      StorageResource resource, StorageObject& out) {
  const Path root(path);
  if (!value.IsObject()) return TypeError(root, "object", value);
  out = StorageObject::Empty(resource);
  return json_internal::Read(value, root, out);
}

absl::Status DecodeStatusValue(const rapidjson::Value& value, std::string_view path,
                               ApiStatus& out) {
  const Path root(path);
  if (!value.IsObject()) return TypeError(root, "object", value);
  return json_internal::Read(value, root, out);
}

std::string EncodeStoragePatch(const StoragePatch& patch) {
  return Encode([&](Writer& w) {
    w.StartObject();
    Key(w, "metadata");
    w.StartObject();
    if (!patch.resource_version.empty()) StringField(w, "resourceVersion", patch.resource_version);
    if (!patch.annotations.empty())
      json_internal::StringMapField(w, "annotations", patch.annotations);
    w.EndObject();
    if (patch.claim_ref) {
      Key(w, "spec");
      w.StartObject();
      Key(w, "claimRef");
      json_internal::Write(w, *patch.claim_ref);
      w.EndObject();
    }
    w.EndObject();
  });
}

std::string EncodePod(const Pod& pod) {
  return Encode([&](Writer& w) { json_internal::Write(w, pod); });
}

std::string EncodeNode(const Node& node) {
  return Encode([&](Writer& w) { json_internal::Write(w, node); });
}

std::string EncodePodList(const PodList& list) {
  return Encode([&](Writer& w) { json_internal::WriteList(w, "PodList", list); });
}

std::string EncodeNodeList(const NodeList& list) {
  return Encode([&](Writer& w) { json_internal::WriteList(w, "NodeList", list); });
}

std::string EncodePodWatchEvent(const WatchEvent<Pod>& event) {
  return Encode([&](Writer& w) { json_internal::WriteWatchEvent(w, event); });
}

std::string EncodeNodeWatchEvent(const WatchEvent<Node>& event) {
  return Encode([&](Writer& w) { json_internal::WriteWatchEvent(w, event); });
}

std::string EncodeStatus(const ApiStatus& status) {
  return Encode([&](Writer& w) { json_internal::Write(w, status); });
}

std::string EncodeBinding(const Binding& binding) {
  return Encode([&](Writer& w) {
    w.StartObject();
    StringField(w, "kind", "Binding");
    StringField(w, "apiVersion", "v1");
    Key(w, "metadata");
    json_internal::Write(w, binding.metadata);
    Key(w, "target");
    json_internal::Write(w, binding.target);
    w.EndObject();
  });
}

std::string EncodeEvent(const Event& event) {
  return Encode([&](Writer& w) {
    w.StartObject();
    StringField(w, "kind", "Event");
    StringField(w, "apiVersion", "events.k8s.io/v1");
    Key(w, "metadata");
    json_internal::Write(w, event.metadata);
    if (event.event_time) MicroTimeField(w, "eventTime", *event.event_time);
    if (event.series) {
      Key(w, "series");
      w.StartObject();
      Key(w, "count");
      w.Int(event.series->count);
      if (event.series->last_observed_time) {
        MicroTimeField(w, "lastObservedTime", *event.series->last_observed_time);
      }
      w.EndObject();
    }
    OptStringField(w, "reportingController", event.reporting_controller);
    OptStringField(w, "reportingInstance", event.reporting_instance);
    OptStringField(w, "action", event.action);
    OptStringField(w, "reason", event.reason);
    Key(w, "regarding");
    json_internal::Write(w, event.regarding);
    if (event.related) {
      Key(w, "related");
      json_internal::Write(w, *event.related);
    }
    OptStringField(w, "note", event.note);
    OptStringField(w, "type", event.type);
    w.EndObject();
  });
}

std::string EncodeLease(const Lease& lease) {
  return Encode([&](Writer& w) {
    w.StartObject();
    StringField(w, "kind", "Lease");
    StringField(w, "apiVersion", "coordination.k8s.io/v1");
    Key(w, "metadata");
    json_internal::Write(w, lease.metadata);
    Key(w, "spec");
    w.StartObject();
    StringField(w, "holderIdentity", lease.spec.holder_identity);
    Key(w, "leaseDurationSeconds");
    w.Int(lease.spec.lease_duration_seconds);
    if (lease.spec.acquire_time) MicroTimeField(w, "acquireTime", *lease.spec.acquire_time);
    if (lease.spec.renew_time) MicroTimeField(w, "renewTime", *lease.spec.renew_time);
    Key(w, "leaseTransitions");
    w.Int(lease.spec.lease_transitions);
    w.EndObject();
    w.EndObject();
  });
}

std::string EncodePodStatusPatch(const PodStatusPatch& patch) {
  return Encode([&](Writer& w) {
    w.StartObject();
    Key(w, "status");
    w.StartObject();
    if (!patch.condition_order.empty()) {
      Key(w, "$setElementOrder/conditions");
      w.StartArray();
      for (const std::string& type : patch.condition_order) {
        w.StartObject();
        StringField(w, "type", type);
        w.EndObject();
      }
      w.EndArray();
    }
    json_internal::ArrayField(w, "conditions", patch.conditions);
    if (patch.nominated_node_name) {
      StringField(w, "nominatedNodeName", *patch.nominated_node_name);
    }
    w.EndObject();
    w.EndObject();
  });
}

absl::StatusOr<absl::Time> ParseRfc3339(std::string_view text) {
  absl::Time t;
  if (!json_internal::ParseRfc3339(text, t)) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid RFC 3339 time \"", json_internal::ToAbsl(text), "\""));
  }
  return t;
}

std::string FormatRfc3339(absl::Time t) { return json_internal::TimeString(t); }

std::string FormatRfc3339Micro(absl::Time t) { return json_internal::MicroTimeString(t); }

}  // namespace trimaran::kube
