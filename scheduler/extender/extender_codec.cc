#include "scheduler/extender/extender_codec.h"

#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json_parse.h"
#include "common/json_write.h"
#include "common/status_macros.h"
#include "kube/api/json_codec.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace trimaran::sched::extender {
namespace {

using Value = rapidjson::Value;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// The extender server's body limit (kube-scheduler sends full Node objects without
// nodeCacheCapable: 5,000 nodes are tens of MiB); Kubernetes objects nest far less
// than the default depth.
constexpr JsonLimits kExtenderJsonLimits{.max_bytes = size_t{256} << 20,
                                         .max_depth = kDefaultJsonMaxDepth};

// Bounded (issue 30): a body over the size limit is ResourceExhausted (413), nesting
// deeper than the depth limit InvalidArgument (400), before any DOM is built past it.
absl::Status Parse(std::string_view json, absl::string_view what, rapidjson::Document& doc) {
  return ParseJsonDocument(absl::string_view(json.data(), json.size()), doc, kExtenderJsonLimits,
                           what);
}

absl::Status TypeError(absl::string_view path, absl::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": expected ", expected));
}

// Parse, then an object expected at the top.
absl::Status ParseObject(std::string_view json, absl::string_view what, rapidjson::Document& doc) {
  TRIMARAN_RETURN_IF_ERROR(Parse(json, what, doc));
  if (!doc.IsObject()) return TypeError(what, "an object");
  return absl::OkStatus();
}

// The member whose key equals `key` ignoring case (Go's encoding/json rule), or null.
// A JSON null counts as absent.
const Value* Find(const Value& object, absl::string_view key) {
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    if (absl::EqualsIgnoreCase(absl::string_view(it->name.GetString(), it->name.GetStringLength()),
                               key)) {
      return it->value.IsNull() ? nullptr : &it->value;
    }
  }
  return nullptr;
}

absl::Status ReadString(const Value& object, absl::string_view key, absl::string_view path,
                        std::string& out) {
  const Value* v = Find(object, key);
  if (v == nullptr) return absl::OkStatus();
  if (!v->IsString()) return TypeError(absl::StrCat(path, ".", key), "a string");
  out.assign(v->GetString(), v->GetStringLength());
  return absl::OkStatus();
}

absl::Status ReadStringList(const Value& object, absl::string_view key, absl::string_view path,
                            std::optional<std::vector<std::string>>& out) {
  const Value* v = Find(object, key);
  if (v == nullptr) return absl::OkStatus();
  if (!v->IsArray()) return TypeError(absl::StrCat(path, ".", key), "an array of strings");
  out.emplace();
  out->reserve(v->Size());
  for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
    const Value& s = (*v)[i];
    if (!s.IsString()) return TypeError(absl::StrCat(path, ".", key, "[", i, "]"), "a string");
    out->emplace_back(s.GetString(), s.GetStringLength());
  }
  return absl::OkStatus();
}

absl::Status ReadStringMap(const Value& object, absl::string_view key, absl::string_view path,
                           std::map<std::string, std::string>& out) {
  const Value* v = Find(object, key);
  if (v == nullptr) return absl::OkStatus();
  if (!v->IsObject()) return TypeError(absl::StrCat(path, ".", key), "an object of strings");
  for (auto it = v->MemberBegin(); it != v->MemberEnd(); ++it) {
    if (!it->value.IsString()) {
      return TypeError(absl::StrCat(path, ".", key, ".", it->name.GetString()), "a string");
    }
    out[std::string(it->name.GetString(), it->name.GetStringLength())] =
        std::string(it->value.GetString(), it->value.GetStringLength());
  }
  return absl::OkStatus();
}

std::string ToJson(const Value& value) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// "Nodes": a v1.NodeList ({"metadata": {}, "items": [...]}).
absl::Status ReadNodeList(const Value& object, absl::string_view path,
                          std::optional<std::vector<WireNode>>& out) {
  const Value* v = Find(object, "Nodes");
  if (v == nullptr) return absl::OkStatus();
  const std::string nodes_path = absl::StrCat(path, ".Nodes");
  if (!v->IsObject()) return TypeError(nodes_path, "a NodeList object");
  out.emplace();
  auto items = v->FindMember("items");
  if (items == v->MemberEnd() || items->value.IsNull()) return absl::OkStatus();
  if (!items->value.IsArray()) return TypeError(absl::StrCat(nodes_path, ".items"), "an array");
  out->reserve(items->value.Size());
  for (rapidjson::SizeType i = 0; i < items->value.Size(); ++i) {
    const Value& item = items->value[i];
    auto node = std::make_shared<kube::Node>();
    const std::string item_path = absl::StrCat(nodes_path, ".items[", i, "]");
    TRIMARAN_RETURN_IF_ERROR(kube::DecodeNodeValue(item, item_path, *node));
    if (node->metadata.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(item_path, ".metadata.name: empty"));
    }
    out->push_back(WireNode{std::move(node), ToJson(item)});
  }
  return absl::OkStatus();
}

void WriteNodeList(Writer& w, const std::optional<std::vector<WireNode>>& nodes) {
  if (!nodes.has_value()) {
    w.Null();
    return;
  }
  w.StartObject();
  w.Key("metadata");
  w.StartObject();
  w.EndObject();
  w.Key("items");
  w.StartArray();
  for (const WireNode& n : *nodes) {
    const std::string json =
        !n.json.empty() ? n.json : (n.node ? kube::EncodeNode(*n.node) : std::string("{}"));
    w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
  }
  w.EndArray();
  w.EndObject();
}

void WriteStringList(Writer& w, const std::optional<std::vector<std::string>>& list) {
  if (!list.has_value()) {
    w.Null();
    return;
  }
  JsonStringArray(w, *list);
}

void WriteStringMap(Writer& w, const std::map<std::string, std::string>& map) {
  w.StartObject();
  for (const auto& [k, v] : map) JsonStringField(w, k, v);
  w.EndObject();
}

// "Nodes" and "NodeNames", the candidate nodes of ExtenderArgs and ExtenderFilterResult.
absl::Status ReadNodes(const Value& object, absl::string_view path,
                       std::optional<std::vector<WireNode>>& nodes,
                       std::optional<std::vector<std::string>>& node_names) {
  TRIMARAN_RETURN_IF_ERROR(ReadNodeList(object, path, nodes));
  return ReadStringList(object, "NodeNames", path, node_names);
}

void WriteNodes(Writer& w, const std::optional<std::vector<WireNode>>& nodes,
                const std::optional<std::vector<std::string>>& node_names) {
  w.Key("Nodes");
  WriteNodeList(w, nodes);
  w.Key("NodeNames");
  WriteStringList(w, node_names);
}

std::string Done(const rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}

// One JSON object, its members written by `members`.
template <typename Members>
std::string EncodeObject(Members&& members) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  members(w);
  w.EndObject();
  return Done(buffer);
}

}  // namespace

absl::StatusOr<ExtenderArgs> DecodeExtenderArgs(std::string_view json) {
  rapidjson::Document doc;
  TRIMARAN_RETURN_IF_ERROR(ParseObject(json, "ExtenderArgs", doc));
  ExtenderArgs args;
  const Value* pod = Find(doc, "Pod");
  if (pod == nullptr) return absl::InvalidArgumentError("ExtenderArgs.Pod: missing");
  TRIMARAN_RETURN_IF_ERROR(kube::DecodePodValue(*pod, "ExtenderArgs.Pod", args.pod));
  TRIMARAN_RETURN_IF_ERROR(ReadNodes(doc, "ExtenderArgs", args.nodes, args.node_names));
  return args;
}

std::string EncodeExtenderArgs(const ExtenderArgs& args) {
  return EncodeObject([&](Writer& w) {
    w.Key("Pod");
    const std::string pod = kube::EncodePod(args.pod);
    w.RawValue(pod.data(), pod.size(), rapidjson::kObjectType);
    WriteNodes(w, args.nodes, args.node_names);
  });
}

absl::StatusOr<ExtenderFilterResult> DecodeExtenderFilterResult(std::string_view json) {
  rapidjson::Document doc;
  TRIMARAN_RETURN_IF_ERROR(ParseObject(json, "ExtenderFilterResult", doc));
  ExtenderFilterResult r;
  TRIMARAN_RETURN_IF_ERROR(ReadNodes(doc, "ExtenderFilterResult", r.nodes, r.node_names));
  TRIMARAN_RETURN_IF_ERROR(
      ReadStringMap(doc, "FailedNodes", "ExtenderFilterResult", r.failed_nodes));
  TRIMARAN_RETURN_IF_ERROR(ReadStringMap(doc, "FailedAndUnresolvableNodes", "ExtenderFilterResult",
                                         r.failed_and_unresolvable_nodes));
  TRIMARAN_RETURN_IF_ERROR(ReadString(doc, "Error", "ExtenderFilterResult", r.error));
  return r;
}

std::string EncodeExtenderFilterResult(const ExtenderFilterResult& result) {
  return EncodeObject([&](Writer& w) {
    WriteNodes(w, result.nodes, result.node_names);
    w.Key("FailedNodes");
    WriteStringMap(w, result.failed_nodes);
    w.Key("FailedAndUnresolvableNodes");
    WriteStringMap(w, result.failed_and_unresolvable_nodes);
    JsonStringField(w, "Error", result.error);
  });
}

absl::StatusOr<std::vector<HostPriority>> DecodeHostPriorityList(std::string_view json) {
  rapidjson::Document doc;
  TRIMARAN_RETURN_IF_ERROR(Parse(json, "HostPriorityList", doc));
  std::vector<HostPriority> out;
  if (doc.IsNull()) return out;
  if (!doc.IsArray()) return TypeError("HostPriorityList", "an array");
  out.reserve(doc.Size());
  for (rapidjson::SizeType i = 0; i < doc.Size(); ++i) {
    const Value& item = doc[i];
    const std::string path = absl::StrCat("HostPriorityList[", i, "]");
    if (!item.IsObject()) return TypeError(path, "an object");
    HostPriority hp;
    TRIMARAN_RETURN_IF_ERROR(ReadString(item, "Host", path, hp.host));
    if (const Value* score = Find(item, "Score"); score != nullptr) {
      if (!score->IsInt64()) return TypeError(absl::StrCat(path, ".Score"), "an integer");
      hp.score = score->GetInt64();
    }
    out.push_back(std::move(hp));
  }
  return out;
}

std::string EncodeHostPriorityList(const std::vector<HostPriority>& list) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartArray();
  for (const HostPriority& hp : list) {
    w.StartObject();
    JsonStringField(w, "Host", hp.host);
    JsonIntField(w, "Score", hp.score);
    w.EndObject();
  }
  w.EndArray();
  return Done(buffer);
}

absl::StatusOr<ExtenderBindingArgs> DecodeExtenderBindingArgs(std::string_view json) {
  rapidjson::Document doc;
  TRIMARAN_RETURN_IF_ERROR(ParseObject(json, "ExtenderBindingArgs", doc));
  ExtenderBindingArgs a;
  TRIMARAN_RETURN_IF_ERROR(ReadString(doc, "PodName", "ExtenderBindingArgs", a.pod_name));
  TRIMARAN_RETURN_IF_ERROR(ReadString(doc, "PodNamespace", "ExtenderBindingArgs", a.pod_namespace));
  TRIMARAN_RETURN_IF_ERROR(ReadString(doc, "PodUID", "ExtenderBindingArgs", a.pod_uid));
  TRIMARAN_RETURN_IF_ERROR(ReadString(doc, "Node", "ExtenderBindingArgs", a.node));
  if (a.pod_name.empty() || a.node.empty()) {
    return absl::InvalidArgumentError("ExtenderBindingArgs: PodName and Node are required");
  }
  return a;
}

std::string EncodeExtenderBindingArgs(const ExtenderBindingArgs& args) {
  return EncodeObject([&](Writer& w) {
    JsonStringField(w, "PodName", args.pod_name);
    JsonStringField(w, "PodNamespace", args.pod_namespace);
    JsonStringField(w, "PodUID", args.pod_uid);
    JsonStringField(w, "Node", args.node);
  });
}

absl::StatusOr<ExtenderBindingResult> DecodeExtenderBindingResult(std::string_view json) {
  rapidjson::Document doc;
  TRIMARAN_RETURN_IF_ERROR(ParseObject(json, "ExtenderBindingResult", doc));
  ExtenderBindingResult r;
  TRIMARAN_RETURN_IF_ERROR(ReadString(doc, "Error", "ExtenderBindingResult", r.error));
  return r;
}

std::string EncodeExtenderBindingResult(const ExtenderBindingResult& result) {
  return EncodeObject([&](Writer& w) { JsonStringField(w, "Error", result.error); });
}

}  // namespace trimaran::sched::extender
