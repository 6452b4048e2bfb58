#include "scheduler/decisions/decision_json.h"

#include "absl/strings/str_cat.h"
#include "common/json_parse.h"
#include "common/json_write.h"
#include "common/status_macros.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace trimaran::sched::decisions {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteDecision(Writer& w, const Decision& d) {
  w.StartObject();
  JsonStringField(w, "time", FormatDecisionTime(d.time));
  JsonStringField(w, "pod", d.pod);
  JsonStringField(w, "uid", d.uid);
  JsonStringField(w, "profile", d.profile);
  JsonStringField(w, "result", DecisionResultName(d.result));
  JsonStringField(w, "node", d.node);
  JsonIntField(w, "evaluatedNodes", d.evaluated_nodes);
  JsonIntField(w, "feasibleNodes", d.feasible_nodes);
  w.Key("fallbacks");
  JsonStringArray(w, d.fallbacks);
  JsonStringField(w, "message", d.message);
  w.Key("top");
  w.StartArray();
  for (const TopNode& t : d.top) {
    w.StartObject();
    JsonStringField(w, "node", t.node);
    JsonIntField(w, "total", t.total);
    w.Key("scores");
    w.StartObject();
    for (const auto& [plugin, score] : t.scores) {
      JsonIntField(w, plugin, score);
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

absl::Status Bad(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

absl::Status ReadString(const rapidjson::Value& obj, const char* key, absl::string_view path,
                        std::string* out) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd()) return absl::OkStatus();
  if (!it->value.IsString()) return Bad(absl::StrCat(path, ".", key), "must be a string");
  out->assign(it->value.GetString(), it->value.GetStringLength());
  return absl::OkStatus();
}

absl::Status ReadInt(const rapidjson::Value& obj, const char* key, absl::string_view path,
                     int64_t* out) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd()) return absl::OkStatus();
  if (!it->value.IsInt64()) return Bad(absl::StrCat(path, ".", key), "must be an integer");
  *out = it->value.GetInt64();
  return absl::OkStatus();
}

absl::StatusOr<Decision> ReadDecision(const rapidjson::Value& v, const std::string& path) {
  if (!v.IsObject()) return Bad(path, "must be an object");
  Decision d;
  std::string text;
  if (absl::Status s = ReadString(v, "time", path, &text); !s.ok()) return s;
  if (!text.empty()) {
    std::string err;
    if (!absl::ParseTime("%Y-%m-%d%ET%H:%M:%E*SZ", text, absl::UTCTimeZone(), &d.time, &err)) {
      return Bad(absl::StrCat(path, ".time"), absl::StrCat("not a UTC time: \"", text, "\""));
    }
  }
  for (auto [key, field] :
       {std::pair{"pod", &d.pod}, std::pair{"uid", &d.uid}, std::pair{"profile", &d.profile},
        std::pair{"node", &d.node}, std::pair{"message", &d.message}}) {
    if (absl::Status s = ReadString(v, key, path, field); !s.ok()) return s;
  }
  text.clear();
  if (absl::Status s = ReadString(v, "result", path, &text); !s.ok()) return s;
  if (!ParseDecisionResult(text, &d.result)) {
    return Bad(absl::StrCat(path, ".result"), absl::StrCat("unknown result \"", text, "\""));
  }
  int64_t n = 0;
  if (absl::Status s = ReadInt(v, "evaluatedNodes", path, &n); !s.ok()) return s;
  d.evaluated_nodes = static_cast<int>(n);
  n = 0;
  if (absl::Status s = ReadInt(v, "feasibleNodes", path, &n); !s.ok()) return s;
  d.feasible_nodes = static_cast<int>(n);
  if (auto it = v.FindMember("fallbacks"); it != v.MemberEnd()) {
    if (!it->value.IsArray()) return Bad(absl::StrCat(path, ".fallbacks"), "must be an array");
    for (rapidjson::SizeType i = 0; i < it->value.Size(); ++i) {
      const rapidjson::Value& f = it->value[i];
      if (!f.IsString()) return Bad(absl::StrCat(path, ".fallbacks[", i, "]"), "must be a string");
      d.fallbacks.emplace_back(f.GetString(), f.GetStringLength());
    }
  }
  if (auto it = v.FindMember("top"); it != v.MemberEnd()) {
    if (!it->value.IsArray()) return Bad(absl::StrCat(path, ".top"), "must be an array");
    for (rapidjson::SizeType i = 0; i < it->value.Size(); ++i) {
      const std::string tpath = absl::StrCat(path, ".top[", i, "]");
      const rapidjson::Value& t = it->value[i];
      if (!t.IsObject()) return Bad(tpath, "must be an object");
      TopNode top;
      if (absl::Status s = ReadString(t, "node", tpath, &top.node); !s.ok()) return s;
      if (absl::Status s = ReadInt(t, "total", tpath, &top.total); !s.ok()) return s;
      if (auto sc = t.FindMember("scores"); sc != t.MemberEnd()) {
        if (!sc->value.IsObject()) return Bad(absl::StrCat(tpath, ".scores"), "must be an object");
        for (auto m = sc->value.MemberBegin(); m != sc->value.MemberEnd(); ++m) {
          const std::string name(m->name.GetString(), m->name.GetStringLength());
          if (!m->value.IsInt64()) {
            return Bad(absl::StrCat(tpath, ".scores.", name), "must be an integer");
          }
          top.scores.emplace_back(name, m->value.GetInt64());
        }
      }
      d.top.push_back(std::move(top));
    }
  }
  return d;
}

}  // namespace

std::string FormatDecisionTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E3SZ", t, absl::UTCTimeZone());
}

std::string EncodeDecisions(size_t capacity,
                            const std::vector<std::shared_ptr<const Decision>>& decisions) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  JsonUintField(w, "capacity", capacity);
  w.Key("decisions");
  w.StartArray();
  for (const auto& d : decisions) WriteDecision(w, *d);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

absl::StatusOr<DecisionList> DecodeDecisions(absl::string_view json) {
  rapidjson::Document doc;
  TRIMARAN_RETURN_IF_ERROR(ParseJsonDocument(json, doc, JsonLimits{}, "decisions"));
  if (!doc.IsObject()) return Bad("$", "must be an object");
  // Const iterators: comparing rapidjson's mutable member iterators is ambiguous in
  // C++20 (clang -Wambiguous-reversed-operator).
  const rapidjson::Value& root = doc;
  DecisionList out;
  if (auto it = root.FindMember("capacity"); it != root.MemberEnd()) {
    if (!it->value.IsUint64()) return Bad("capacity", "must be a non-negative integer");
    out.capacity = it->value.GetUint64();
  }
  auto it = root.FindMember("decisions");
  if (it == root.MemberEnd()) return Bad("decisions", "missing");
  if (!it->value.IsArray()) return Bad("decisions", "must be an array");
  for (rapidjson::SizeType i = 0; i < it->value.Size(); ++i) {
    absl::StatusOr<Decision> d = ReadDecision(it->value[i], absl::StrCat("decisions[", i, "]"));
    if (!d.ok()) return d.status();
    out.decisions.push_back(*std::move(d));
  }
  return out;
}

}  // namespace trimaran::sched::decisions
