#pragma once
// Writing JSON with RapidJSON's Writer or PrettyWriter: the key-and-value one-liners
// every hand-written encoder uses (the decisions, the extender codec, the explain and
// simulator reports, trimaranctl's documents), so that a member is one call:
//
//   JsonStringField(w, "pod", d.pod);     // "pod":"default/web-1"
//   JsonIntField(w, "evaluatedNodes", n); // "evaluatedNodes":20
//
// The text is exactly the Writer's own (Key/String take explicit lengths, so keys and
// strings may hold NULs); the integer forms write the same digits as Int/Int64/Uint64.
//
// Thread-safety: as the Writer passed in (one writer per thread).

#include <cstdint>

#include "absl/strings/string_view.h"
#include "rapidjson/rapidjson.h"

namespace trimaran {

template <typename Writer>
void JsonKey(Writer& w, absl::string_view key) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

template <typename Writer>
void JsonString(Writer& w, absl::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// An array of strings (any range of values convertible to absl::string_view).
template <typename Writer, typename Strings>
void JsonStringArray(Writer& w, const Strings& values) {
  w.StartArray();
  for (const auto& v : values) JsonString(w, v);
  w.EndArray();
}

template <typename Writer>
void JsonStringField(Writer& w, absl::string_view key, absl::string_view value) {
  JsonKey(w, key);
  JsonString(w, value);
}

template <typename Writer>
void JsonIntField(Writer& w, absl::string_view key, int64_t value) {
  JsonKey(w, key);
  w.Int64(value);
}

template <typename Writer>
void JsonUintField(Writer& w, absl::string_view key, uint64_t value) {
  JsonKey(w, key);
  w.Uint64(value);
}

template <typename Writer>
void JsonDoubleField(Writer& w, absl::string_view key, double value) {
  JsonKey(w, key);
  w.Double(value);
}

template <typename Writer>
void JsonBoolField(Writer& w, absl::string_view key, bool value) {
  JsonKey(w, key);
  w.Bool(value);
}

template <typename Writer, typename Strings>
void JsonStringArrayField(Writer& w, absl::string_view key, const Strings& values) {
  JsonKey(w, key);
  JsonStringArray(w, values);
}

// `key`, then the value `write()` writes when `present`, else null:
//   JsonFieldOrNull(w, "rank", n.feasible, [&] { w.Int(n.rank); });
template <typename Writer, typename Write>
void JsonFieldOrNull(Writer& w, absl::string_view key, bool present, Write&& write) {
  JsonKey(w, key);
  if (present) {
    write();
  } else {
    w.Null();
  }
}

}  // namespace trimaran
