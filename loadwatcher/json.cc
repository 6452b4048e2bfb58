#include "loadwatcher/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json_parse.h"
#include "rapidjson/document.h"
#include "rapidjson/encodedstream.h"
#include "rapidjson/error/en.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"

namespace trimaran::lw {
namespace {

using JsonValue = rapidjson::Value;

absl::Status DecodeError(absl::string_view path, absl::string_view what) {
  return absl::InternalError(absl::StrCat("decode watcher metrics: ", path, ": ", what));
}

// RapidJSON 1.1.0 (Debian 12) has three bugs in its full-precision number conversion,
// all found by fuzz/watcher_json_fuzzer.cc and fixed upstream after 1.1.0:
//  - digits that are all zero with an exponent or fraction beyond its fast path ("0e308",
//    "0." and 23 zeros) reach StrtodDiyFp, which normalises the zero with
//    __builtin_clzll(0): undefined behaviour, in practice garbage such as -6.06e-269;
//  - NaN or Infinity followed by a fraction or exponent ("NaNe5") is accepted and an
//    empty digit string converted, reading before its buffer (heap overflow);
//  - only the written exponent is checked against 308, so a long mantissa with a big
//    exponent ("2188...0e308", 190 digits) indexes past its table of cached powers of
//    ten (global overflow, garbage value).
// So the parser hands numbers over as text (kParseNumbersAsStringsFlag) to
// ExactNumbers, which turns such a zero into +-0, accepts NaN/Inf/Infinity (optionally
// negative) only on their own, rejects numbers of 10^309 and more (as RapidJSON rejects
// "1e309"), makes those below 10^-324 zero, and turns every other number into exactly
// what RapidJSON's own conversion gives, by parsing the number's text alone with the
// same flags. Everything else is forwarded unchanged.
constexpr JsonLimits kWatcherJsonLimits{.max_bytes = size_t{64} << 20,
                                        .max_depth = kDefaultJsonMaxDepth};

constexpr unsigned kParseFlags =
    rapidjson::kParseFullPrecisionFlag | rapidjson::kParseNanAndInfFlag;

// "-0.00e308", "0.000...0": a zero written as a double (with a fraction or an exponent).
bool IsDoubleZero(absl::string_view number) {
  if (!number.empty() && number.front() == '-') number.remove_prefix(1);
  const size_t e = number.find_first_of("eE");
  const absl::string_view mantissa = number.substr(0, e);
  if (mantissa.empty() || mantissa.find_first_not_of("0.") != absl::string_view::npos) {
    return false;
  }
  return e != absl::string_view::npos || mantissa.find('.') != absl::string_view::npos;
}

// For a JSON number "-123.45e6": the power of ten just above its magnitude (9 here:
// 0.12345 x 10^9), ignoring leading zeros; 0 for a zero. The exponent saturates.
int64_t DecimalMagnitude(absl::string_view number) {
  if (!number.empty() && number.front() == '-') number.remove_prefix(1);
  const size_t e = number.find_first_of("eE");
  int64_t exponent = 0;
  if (e != absl::string_view::npos) {
    absl::string_view digits = number.substr(e + 1);
    bool negative = false;
    if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
      negative = digits.front() == '-';
      digits.remove_prefix(1);
    }
    for (char c : digits) exponent = std::min<int64_t>(exponent * 10 + (c - '0'), 1'000'000);
    if (negative) exponent = -exponent;
    number = number.substr(0, e);
  }
  const size_t point = std::min(number.find('.'), number.size());
  const size_t first = number.find_first_not_of("0.");
  if (first == absl::string_view::npos) return 0;
  // Digits from the first significant one to the decimal point (negative when it is
  // after the point: "0.005" -> -2).
  const int64_t before_point = first < point ? static_cast<int64_t>(point - first)
                                             : -static_cast<int64_t>(first - point - 1);
  return before_point + exponent;
}

template <typename Handler>
class ExactNumbers {
 public:
  explicit ExactNumbers(Handler& next) : next_(next) {}

  bool Null() { return next_.Null(); }
  bool Bool(bool b) { return next_.Bool(b); }
  bool Int(int i) { return next_.Int(i); }
  bool Uint(unsigned u) { return next_.Uint(u); }
  bool Int64(int64_t i) { return next_.Int64(i); }
  bool Uint64(uint64_t u) { return next_.Uint64(u); }
  bool Double(double d) { return next_.Double(d); }
  bool RawNumber(const char* str, rapidjson::SizeType length, bool /*copy*/) {
    const absl::string_view number(str, length);
    if (number.find_first_of("NI") != absl::string_view::npos) {
      const bool minus = !number.empty() && number.front() == '-';
      const absl::string_view word = number.substr(minus ? 1 : 0);
      if (word == "NaN") return next_.Double(std::numeric_limits<double>::quiet_NaN());
      if (word == "Inf" || word == "Infinity") {
        return next_.Double(minus ? -std::numeric_limits<double>::infinity()
                                  : std::numeric_limits<double>::infinity());
      }
      return false;  // "NaNe5", "Infinity.5": not a number (kParseErrorTermination)
    }
    if (IsDoubleZero(number)) return next_.Double(number.front() == '-' ? -0.0 : 0.0);
    // RapidJSON rounds a mantissa whose first 20 digits are 2^64-1 up to a zero
    // significand (clz(0) again, found by the same fuzzer): absl converts those.
    std::string digits;
    for (char c : number.substr(0, number.find_first_of("eE"))) {
      if (c >= '0' && c <= '9' && !(digits.empty() && c == '0')) digits.push_back(c);
    }
    if (digits.size() > 20 && absl::StartsWith(digits, "18446744073709551615")) {
      double value = 0;
      if (!absl::SimpleAtod(number, &value) || !std::isfinite(value)) return false;
      return next_.Double(value);
    }
    const int64_t magnitude = DecimalMagnitude(number);
    if (magnitude > 309) return false;  // >= 10^309: as "1e309"
    // Below 10^-324 is zero (upstream's bound; 1.1.0 converts 10^-324 itself too).
    if (magnitude <= -324) return next_.Double(number.front() == '-' ? -0.0 : 0.0);
    rapidjson::MemoryStream bytes(str, length);
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> in(bytes);
    return !number_reader_.Parse<kParseFlags>(in, next_).IsError();
  }
  bool String(const char* str, rapidjson::SizeType length, bool copy) {
    return next_.String(str, length, copy);
  }
  bool StartObject() { return next_.StartObject(); }
  bool Key(const char* str, rapidjson::SizeType length, bool copy) {
    return next_.Key(str, length, copy);
  }
  bool EndObject(rapidjson::SizeType members) { return next_.EndObject(members); }
  bool StartArray() { return next_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return next_.EndArray(elements); }

 private:
  Handler& next_;
  rapidjson::Reader number_reader_;  // reused: full precision buffers digits on its stack
};

const JsonValue* FindMember(const JsonValue& object, const char* key) {
  auto it = object.FindMember(key);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

// Reads an optional string member (absent or null: leaves `out` unchanged).
absl::Status ReadString(const JsonValue& object, const char* key, absl::string_view path,
                        std::string* out) {
  const JsonValue* v = FindMember(object, key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  if (!v->IsString()) return DecodeError(absl::StrCat(path, ".", key), "not a string");
  out->assign(v->GetString(), v->GetStringLength());
  return absl::OkStatus();
}

// Reads an optional int64 member (Go decodes int64 from an integral JSON number).
absl::Status ReadInt64(const JsonValue& object, const char* key, absl::string_view path,
                       int64_t* out) {
  const JsonValue* v = FindMember(object, key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  if (v->IsInt64()) {
    *out = v->GetInt64();
    return absl::OkStatus();
  }
  if (v->IsDouble()) {
    const double d = v->GetDouble();
    if (std::isfinite(d) && d == std::trunc(d) && d >= -9.2e18 && d <= 9.2e18) {
      *out = static_cast<int64_t>(d);
      return absl::OkStatus();
    }
  }
  return DecodeError(absl::StrCat(path, ".", key), "not an int64");
}

// Returns the member if it is an object, nullptr if absent or null, else an error.
absl::StatusOr<const JsonValue*> OptionalObject(const JsonValue& object, const char* key,
                                                absl::string_view path) {
  const JsonValue* v = FindMember(object, key);
  if (v == nullptr || v->IsNull()) return nullptr;
  if (!v->IsObject()) return DecodeError(absl::StrCat(path, ".", key), "not an object");
  return v;
}

absl::Status DecodeMetric(const JsonValue& v, absl::string_view path, NodeMetrics* node) {
  if (!v.IsObject()) return DecodeError(path, "not an object");
  Metric m;
  if (auto s = ReadString(v, "name", path, &m.name); !s.ok()) return s;
  if (auto s = ReadString(v, "type", path, &m.type); !s.ok()) return s;
  if (auto s = ReadString(v, "operator", path, &m.op); !s.ok()) return s;
  if (auto s = ReadString(v, "rollup", path, &m.rollup); !s.ok()) return s;
  const JsonValue* value = FindMember(v, "value");
  if (value != nullptr && value->IsNull()) return absl::OkStatus();  // no number: dropped
  if (value != nullptr) {
    if (!value->IsNumber()) return DecodeError(absl::StrCat(path, ".value"), "not a number");
    m.value = value->GetDouble();
  }
  node->metrics.push_back(std::move(m));
  return absl::OkStatus();
}

absl::Status DecodeNode(const JsonValue& v, absl::string_view path, NodeMetrics* node) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsObject()) return DecodeError(path, "not an object");
  if (const JsonValue* metrics = FindMember(v, "metrics");
      metrics != nullptr && !metrics->IsNull()) {
    if (!metrics->IsArray()) return DecodeError(absl::StrCat(path, ".metrics"), "not an array");
    node->metrics.reserve(metrics->Size());
    for (rapidjson::SizeType i = 0; i < metrics->Size(); ++i) {
      if (auto s = DecodeMetric((*metrics)[i], absl::StrCat(path, ".metrics[", i, "]"), node);
          !s.ok()) {
        return s;
      }
    }
  }
  auto tags = OptionalObject(v, "tags", path);
  if (!tags.ok()) return tags.status();
  auto metadata = OptionalObject(v, "metadata", path);
  if (!metadata.ok()) return metadata.status();
  if (*metadata != nullptr) {
    if (auto s = ReadString(**metadata, "dataCenter", absl::StrCat(path, ".metadata"),
                            &node->data_center);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// Writes into a std::string through a raw pointer: the encoder appends ~10 small
// pieces per metric, and per-append capacity checks dominated the 5,000-node benchmark.
class Out {
 public:
  explicit Out(std::string* s) : s_(s), size_(s->size()) {}
  ~Out() { s_->resize(size_); }
  Out(const Out&) = delete;
  Out& operator=(const Out&) = delete;

  // Makes room for `n` more bytes.
  char* Reserve(size_t n) {
    if (s_->size() - size_ < n) {
      s_->resize(std::max({s_->capacity(), s_->size() * 2, size_ + n + 64}));
    }
    return s_->data() + size_;
  }
  void Commit(char* end) { size_ = static_cast<size_t>(end - s_->data()); }

  // The bytes written so far, and forgetting them (the buffer is kept for reuse).
  absl::string_view Written() const { return absl::string_view(s_->data(), size_); }
  void Clear() { size_ = 0; }

  template <size_t N>
  void Lit(const char (&lit)[N]) {
    char* p = Reserve(N - 1);
    std::memcpy(p, lit, N - 1);
    Commit(p + N - 1);
  }
  void Int(int64_t v) {
    char* p = Reserve(24);
    Commit(std::to_chars(p, p + 24, v).ptr);
  }
  void Double(double v) {
    if (!std::isfinite(v)) return Lit("null");
    // Fixed notation, shortest round-trip digits (Go strconv 'f', -1). At most 309
    // integer digits plus sign and ~17 fraction digits; 400 is plenty.
    char* p = Reserve(400);
    auto [end, ec] = std::to_chars(p, p + 400, v, std::chars_format::fixed);
    if (ec != std::errc()) return Lit("null");
    Commit(end);
  }
  void Str(absl::string_view str) {
    char* p = Reserve(2 + 6 * str.size());  // worst case: every byte as \u00XX
    *p++ = '"';
    for (const char c : str) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u != '"' && u != '\\') {
        *p++ = c;
        continue;
      }
      *p++ = '\\';
      switch (u) {
        case '"':
        case '\\':
          *p++ = c;
          break;
        case '\n':
          *p++ = 'n';
          break;
        case '\r':
          *p++ = 'r';
          break;
        case '\t':
          *p++ = 't';
          break;
        default:
          static constexpr char kHex[] = "0123456789abcdef";
          std::memcpy(p, "u00", 3);
          p += 3;
          *p++ = kHex[u >> 4];
          *p++ = kHex[u & 0xf];
      }
    }
    *p++ = '"';
    Commit(p);
  }

 private:
  std::string* s_;
  size_t size_;  // bytes written; s_->size() is the capacity in use
};

}  // namespace

void AppendJsonDouble(double value, std::string* out) { Out(out).Double(value); }

void AppendJsonString(absl::string_view s, std::string* out) { Out(out).Str(s); }

namespace {

void AppendHead(const WatcherMetrics& metrics, Out& o) {
  o.Lit("{\"timestamp\":");
  o.Int(metrics.timestamp);
  o.Lit(",\"window\":{\"duration\":");
  o.Str(metrics.window.duration);
  o.Lit(",\"start\":");
  o.Int(metrics.window.start);
  o.Lit(",\"end\":");
  o.Int(metrics.window.end);
  o.Lit("},\"source\":");
  o.Str(metrics.source);
  o.Lit(",\"data\":{\"NodeMetricsMap\":{");
}

void AppendNode(absl::string_view host, const NodeMetrics& node, bool first, Out& o) {
  if (!first) o.Lit(",");
  o.Str(host);
  o.Lit(":{\"metrics\":[");
  bool first_metric = true;
  for (const Metric& m : node.metrics) {
    if (!first_metric) o.Lit(",");
    first_metric = false;
    o.Lit("{\"name\":");
    o.Str(m.name);
    o.Lit(",\"type\":");
    o.Str(m.type);
    o.Lit(",\"operator\":");
    o.Str(m.op);
    o.Lit(",\"rollup\":");
    o.Str(m.rollup);
    o.Lit(",\"value\":");
    o.Double(m.value);
    o.Lit("}");
  }
  o.Lit("],\"tags\":{},\"metadata\":{\"dataCenter\":");
  o.Str(node.data_center);
  o.Lit("}}");
}

void AppendTail(Out& o) { o.Lit("}}}"); }

// An upper bound of one node's encoding when no string needs escaping and every value
// takes at most 24 characters (a percentage in fixed notation does; anything longer
// only makes the buffer grow).
size_t NodeEstimate(absl::string_view host, const NodeMetrics& node) {
  // ,"host":{"metrics":[ ... ],"tags":{},"metadata":{"dataCenter":"dc"}}
  size_t n = 64 + host.size() + node.data_center.size();
  for (const Metric& m : node.metrics) {
    // {"name":"","type":"","operator":"","rollup":"","value":},  = 58 bytes + value
    n += 58 + 24 + m.name.size() + m.type.size() + m.op.size() + m.rollup.size();
  }
  return n;
}

}  // namespace

void AppendWatcherMetricsJson(const WatcherMetrics& metrics, std::string* out) {
  Out o(out);
  AppendHead(metrics, o);
  bool first = true;
  for (const auto& [host, node] : metrics.data.node_metrics_map) {
    AppendNode(host, node, first, o);
    first = false;
  }
  AppendTail(o);
}

std::string EncodeWatcherMetricsJson(const WatcherMetrics& metrics) {
  std::string out;
  // An upper bound unless strings need escaping, so the buffer is allocated once (a
  // doubling at the end would hold twice the body: 5 MB for 5,000 nodes).
  size_t estimate = 256 + metrics.window.duration.size() + metrics.source.size();
  for (const auto& [host, node] : metrics.data.node_metrics_map) {
    estimate += NodeEstimate(host, node);
  }
  out.reserve(estimate);
  AppendWatcherMetricsJson(metrics, &out);
  return out;
}

bool EncodeWatcherMetricsJsonChunked(const WatcherMetrics& metrics, size_t chunk_bytes,
                                     absl::FunctionRef<bool(absl::string_view)> sink) {
  chunk_bytes = std::max<size_t>(chunk_bytes, 1);
  std::string buffer;
  buffer.reserve(chunk_bytes + 4096);
  Out o(&buffer);
  AppendHead(metrics, o);
  bool first = true;
  for (const auto& [host, node] : metrics.data.node_metrics_map) {
    AppendNode(host, node, first, o);
    first = false;
    if (o.Written().size() >= chunk_bytes) {
      if (!sink(o.Written())) return false;
      o.Clear();
    }
  }
  AppendTail(o);
  return sink(o.Written());
}

absl::StatusOr<WatcherMetrics> DecodeWatcherMetricsJson(absl::string_view json) {
  // RapidJSON stops at a NUL byte; JSON text cannot contain one.
  if (const size_t nul = json.find('\0'); nul != absl::string_view::npos) {
    return DecodeError(absl::StrCat("offset ", nul), "NUL byte in JSON text");
  }
  rapidjson::Document doc;
  // Full precision: values must round-trip bit-exactly.
  // NaN and Infinity tokens are accepted (a broken backend sends them): the plugins treat
  // such a node as a per-node fallback instead of losing the whole snapshot.
  // Numbers go through ExactNumbers (see there).
  // Bounded (issue 30): at most the 64 MiB a remote answer may have, nested at most
  // kDefaultJsonMaxDepth levels (the recursive reader's stack stays bounded).
  absl::Status parsed;
  auto generate = [&](rapidjson::Document& handler) {
    ExactNumbers<rapidjson::Document> numbers(handler);
    parsed = ParseJsonSax<kParseFlags | rapidjson::kParseNumbersAsStringsFlag>(
        json, numbers, kWatcherJsonLimits, "watcher metrics");
    return parsed.ok();
  };
  doc.Populate(generate);
  if (!parsed.ok()) {
    if (parsed.code() == absl::StatusCode::kResourceExhausted) return parsed;
    return absl::InternalError(absl::StrCat("decode ", parsed.message()));
  }
  if (!doc.IsObject()) return DecodeError("$", "not an object");
  WatcherMetrics out;
  if (auto s = ReadInt64(doc, "timestamp", "$", &out.timestamp); !s.ok()) return s;
  if (auto s = ReadString(doc, "source", "$", &out.source); !s.ok()) return s;
  auto window = OptionalObject(doc, "window", "$");
  if (!window.ok()) return window.status();
  if (*window != nullptr) {
    const JsonValue& w = **window;
    if (auto s = ReadString(w, "duration", "$.window", &out.window.duration); !s.ok()) return s;
    if (auto s = ReadInt64(w, "start", "$.window", &out.window.start); !s.ok()) return s;
    if (auto s = ReadInt64(w, "end", "$.window", &out.window.end); !s.ok()) return s;
  }
  auto data = OptionalObject(doc, "data", "$");
  if (!data.ok()) return data.status();
  if (*data == nullptr) return out;
  auto map = OptionalObject(**data, "NodeMetricsMap", "$.data");
  if (!map.ok()) return map.status();
  if (*map == nullptr) return out;
  for (auto it = (*map)->MemberBegin(); it != (*map)->MemberEnd(); ++it) {
    std::string host(it->name.GetString(), it->name.GetStringLength());
    NodeMetrics node;
    if (auto s =
            DecodeNode(it->value, absl::StrCat("$.data.NodeMetricsMap[\"", host, "\"]"), &node);
        !s.ok()) {
      return s;
    }
    // A host listed twice is ambiguous: neither entry is trusted (the plugins score it by
    // their fallback), and it is remembered in duplicate_hosts.
    if (out.data.node_metrics_map.contains(host) ||
        std::find(out.data.duplicate_hosts.begin(), out.data.duplicate_hosts.end(), host) !=
            out.data.duplicate_hosts.end()) {
      out.data.node_metrics_map.erase(host);
      if (std::find(out.data.duplicate_hosts.begin(), out.data.duplicate_hosts.end(), host) ==
          out.data.duplicate_hosts.end()) {
        out.data.duplicate_hosts.push_back(std::move(host));
      }
      continue;
    }
    out.data.node_metrics_map.emplace(std::move(host), std::move(node));
  }
  return out;
}

}  // namespace trimaran::lw
