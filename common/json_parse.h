#pragma once
// Bounded JSON parsing (issue 30 point 2): the one way Trimaran parses JSON it did not
// write itself. Every decoder of bytes from a network peer, a subprocess or a file goes
// through ParseJsonDocument (DOM) or ParseJsonSax (a SAX handler of its own), each with
// a JsonLimits:
//
//   * max_bytes: a text longer than this is refused before any parsing
//     (ResourceExhausted: HTTP servers answer 413);
//   * max_depth: an array or object nested deeper than this stops the parse at the
//     opening bracket that goes over (InvalidArgument: 400). RapidJSON's reader is
//     recursive, so without this 1,000,000 '[' overflow the stack (measured: the
//     extender died with SIGSEGV). The depth of a scalar root is 0, of "[]" 1, of
//     "[[]]" 2; a text of exactly max_depth levels parses.
//
// A NUL byte is refused too (RapidJSON would stop there and silently read a prefix).
// Malformed text is InvalidArgument "<what>: not JSON: <reason> at offset N".
//
// Thread-safety: pure functions; a handler is used by one parse at a time.

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"

namespace trimaran {

// Deep enough for any Kubernetes object (the kube codec allows 512 too), shallow
// enough that the recursive parser's stack stays far below a worker thread's.
inline constexpr int kDefaultJsonMaxDepth = 512;
// The hard ceiling a caller may configure: ~200 bytes of stack a level in RapidJSON.
inline constexpr int kMaxJsonMaxDepth = 4096;

struct JsonLimits {
  size_t max_bytes = size_t{64} << 20;
  int max_depth = kDefaultJsonMaxDepth;
};

// Limits for small replies: TokenReview, SubjectAccessReview, ExecCredential.
inline constexpr JsonLimits kSmallJsonLimits{.max_bytes = size_t{1} << 20, .max_depth = 64};

// ResourceExhausted when `json` is over limits.max_bytes; InvalidArgument for a NUL
// byte or a max_depth outside [1, kMaxJsonMaxDepth].
absl::Status CheckJsonText(absl::string_view json, const JsonLimits& limits,
                           absl::string_view what);

// The InvalidArgument for a failed parse (too deep, or RapidJSON's reason).
absl::Status JsonParseError(absl::string_view what, rapidjson::ParseResult result, bool too_deep,
                            int max_depth);

// Forwards SAX events to `Inner`, refusing a container that opens deeper than
// max_depth (the parse then ends with kParseErrorTermination and too_deep() is true).
template <typename Inner>
class DepthLimitedHandler {
 public:
  DepthLimitedHandler(Inner& inner, int max_depth) : inner_(inner), max_depth_(max_depth) {}

  bool Null() { return inner_.Null(); }
  bool Bool(bool b) { return inner_.Bool(b); }
  bool Int(int i) { return inner_.Int(i); }
  bool Uint(unsigned i) { return inner_.Uint(i); }
  bool Int64(int64_t i) { return inner_.Int64(i); }
  bool Uint64(uint64_t i) { return inner_.Uint64(i); }
  bool Double(double d) { return inner_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return inner_.RawNumber(s, n, copy);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return inner_.String(s, n, copy); }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) { return inner_.Key(s, n, copy); }
  bool StartObject() { return Enter() && inner_.StartObject(); }
  bool EndObject(rapidjson::SizeType members) {
    --depth_;
    return inner_.EndObject(members);
  }
  bool StartArray() { return Enter() && inner_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) {
    --depth_;
    return inner_.EndArray(elements);
  }

  bool too_deep() const { return too_deep_; }

 private:
  bool Enter() {
    if (++depth_ > max_depth_) too_deep_ = true;
    return !too_deep_;
  }

  Inner& inner_;
  const int max_depth_;
  int depth_ = 0;
  bool too_deep_ = false;
};

// Parses `json` with RapidJSON's reader and `flags`, events to `handler` through a
// DepthLimitedHandler. `what` names the text in errors ("ExtenderArgs").
template <unsigned kFlags = rapidjson::kParseDefaultFlags, typename Handler>
absl::Status ParseJsonSax(absl::string_view json, Handler& handler, const JsonLimits& limits,
                          absl::string_view what) {
  if (absl::Status s = CheckJsonText(json, limits, what); !s.ok()) return s;
  DepthLimitedHandler<Handler> limited(handler, limits.max_depth);
  rapidjson::MemoryStream bytes(json.data(), json.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> in(bytes);
  rapidjson::Reader reader;
  const rapidjson::ParseResult result = reader.Parse<kFlags>(in, limited);
  if (result.IsError()) return JsonParseError(what, result, limited.too_deep(), limits.max_depth);
  return absl::OkStatus();
}

// Parses `json` into `doc` (replacing its value). On error `doc` is left null.
template <unsigned kFlags = rapidjson::kParseDefaultFlags>
absl::Status ParseJsonDocument(absl::string_view json, rapidjson::Document& doc,
                               const JsonLimits& limits, absl::string_view what) {
  doc.SetNull();
  absl::Status status;
  auto generate = [&](rapidjson::Document& d) {
    status = ParseJsonSax<kFlags>(json, d, limits, what);
    return status.ok();
  };
  doc.Populate(generate);
  if (!status.ok()) doc.SetNull();
  return status;
}

}  // namespace trimaran
