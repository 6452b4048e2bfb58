// Shared machinery of the JSON codec: paths and errors, parsing, scalar and enum
// readers, RFC 3339 timestamps and the small writer helpers. Calls nothing of the
// public codec (kube/api/json_codec.h), which is built on top of this.

#include "kube/api/internal/json_codec_internal.h"

#include <charconv>
#include <cstring>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "rapidjson/error/en.h"

namespace trimaran::kube {
namespace json_internal {
namespace {

std::string_view JsonTypeName(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return "number";
  }
  return "unknown";
}

// Name/value table for one enum. An entry may have an empty name (the value a
// missing or "" field takes).
template <typename E>
struct EnumEntry {
  std::string_view name;
  E value;
};

// Reads a string enum. A string outside `table` is E::kUnrecognized when `lenient` (the
// apiserver admits it, kube/api/unrecognized.h), else an error naming the field and the
// accepted values. A non-string is always an error.
template <typename E>
absl::Status ReadEnum(const Value& v, const Path& path, std::span<const EnumEntry<E>> table, E& out,
                      bool lenient = true) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsString()) return TypeError(path, "string", v);
  const std::string_view s = View(v);
  for (const EnumEntry<E>& e : table) {
    if (e.name == s) {
      out = e.value;
      return absl::OkStatus();
    }
  }
  if (lenient) {
    if constexpr (requires { E::kUnrecognized; }) {
      out = E::kUnrecognized;
      return absl::OkStatus();
    }
  }
  std::string want;
  for (const EnumEntry<E>& e : table) {
    if (e.name.empty()) continue;
    absl::StrAppend(&want, want.empty() ? "" : ", ", "\"", ToAbsl(e.name), "\"");
  }
  return FieldError(path,
                    absl::StrCat("unsupported value \"", ToAbsl(s), "\" (want one of ", want, ")"));
}

bool Digits(std::string_view s, size_t pos, size_t n, int& out) {
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    const char c = s[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace

void Path::AppendTo(std::string& out) const {
  if (parent_ != nullptr) parent_->AppendTo(out);
  if (index_ != kNoIndex) {
    absl::StrAppend(&out, "[", index_, "]");
  } else if (!key_.empty()) {
    if (!out.empty()) out.push_back('.');
    out.append(key_.data(), key_.size());
  }
}

std::string Path::ToString() const {
  std::string out;
  AppendTo(out);
  return out;
}

absl::Status FieldError(const Path& path, std::string_view message) {
  std::string p = path.ToString();
  if (p.empty()) return absl::InvalidArgumentError(ToAbsl(message));
  return absl::InvalidArgumentError(absl::StrCat(p, ": ", ToAbsl(message)));
}

absl::Status TypeError(const Path& path, std::string_view expected, const Value& value) {
  return FieldError(
      path, absl::StrCat("expected ", ToAbsl(expected), ", got ", ToAbsl(JsonTypeName(value))));
}

namespace {

// Forwards SAX events to a Document, with two jobs:
//  * refuses nesting deeper than kMaxDepth, so the recursive parser's stack use stays
//    bounded whatever the input;
//  * when filtering, drops members that no decoder reads and that are bulky in real
//    objects (managedFields alone is often a third of a pod), so no DOM is built for
//    them. A name is only dropped in the objects where it is a schema field (see
//    IsIgnored): "env" goes from a container, never from labels or annotations. The
//    Document is told the member counts it actually received.
class FilteringHandler {
 public:
  FilteringHandler(rapidjson::Document& doc, bool filter) : doc_(doc), filter_(filter) {}

  bool Null() { return Scalar() || doc_.Null(); }
  bool Bool(bool b) { return Scalar() || doc_.Bool(b); }
  bool Int(int i) { return Scalar() || doc_.Int(i); }
  bool Uint(unsigned i) { return Scalar() || doc_.Uint(i); }
  bool Int64(int64_t i) { return Scalar() || doc_.Int64(i); }
  bool Uint64(uint64_t i) { return Scalar() || doc_.Uint64(i); }
  bool Double(double d) { return Scalar() || doc_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) {
    return Scalar() || doc_.RawNumber(s, n, copy);
  }
  bool String(const char* s, rapidjson::SizeType n, bool copy) {
    return Scalar() || doc_.String(s, n, copy);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    if (skip_depth_ > 0) return true;
    const std::string_view key(s, n);
    if (filter_ && IsIgnored(levels_.back().scope, key)) {
      skip_next_ = true;
      ++levels_.back().dropped;
      return true;
    }
    next_scope_ = ScopeOfMember(key);
    return doc_.Key(s, n, copy);
  }
  bool StartObject() {
    if (!Enter()) return false;
    if (skip_depth_ > 0) return true;
    levels_.push_back({ChildScope(), false, 0});
    return doc_.StartObject();
  }
  bool EndObject(rapidjson::SizeType n) {
    --depth_;
    if (Leave()) return true;
    const rapidjson::SizeType kept = n - levels_.back().dropped;
    levels_.pop_back();
    return doc_.EndObject(kept);
  }
  bool StartArray() {
    if (!Enter()) return false;
    if (skip_depth_ > 0) return true;
    levels_.push_back({ChildScope(), true, 0});
    return doc_.StartArray();
  }
  bool EndArray(rapidjson::SizeType n) {
    --depth_;
    if (Leave()) return true;
    levels_.pop_back();
    return doc_.EndArray(n);
  }

  bool too_deep() const { return too_deep_; }

 private:
  // Where an object sits in the Kubernetes schema, as far as filtering cares.
  enum class Scope : uint8_t {
    kOther,            // anywhere else, including every free-form map: nothing is dropped
    kMetadata,         // an ObjectMeta ("metadata")
    kSpec,             // a PodSpec/NodeSpec/LeaseSpec ("spec")
    kStatus,           // a PodStatus/NodeStatus ("status")
    kContainer,        // an element of "containers", "initContainers", "ephemeralContainers"
    kContainerStatus,  // an element of "containerStatuses", "initContainerStatuses"
  };

  struct Level {
    Scope scope;
    bool is_array;
    rapidjson::SizeType dropped;  // members left out so far
  };

  static Scope ScopeOfMember(std::string_view key) {
    if (key == "metadata") return Scope::kMetadata;
    if (key == "spec") return Scope::kSpec;
    if (key == "status") return Scope::kStatus;
    if (key == "containers" || key == "initContainers" || key == "ephemeralContainers") {
      return Scope::kContainer;
    }
    if (key == "containerStatuses" || key == "initContainerStatuses") {
      return Scope::kContainerStatus;
    }
    return Scope::kOther;
  }

  // Members no decoder reads. Never list a field that a decoded type reads
  // (JsonCodecTest.FilteringChangesNothing decodes the testdata both ways).
  static bool IsIgnored(Scope scope, std::string_view key) {
    switch (scope) {
      case Scope::kOther:
        return false;
      case Scope::kMetadata:
        return key == "managedFields" || key == "generateName" || key == "finalizers";
      case Scope::kSpec:
        // Pod-level restartPolicy only: a container's restartPolicy is read.
        return key == "securityContext" || key == "restartPolicy" ||
               key == "terminationGracePeriodSeconds" || key == "dnsPolicy" ||
               key == "serviceAccountName" || key == "serviceAccount" ||
               key == "enableServiceLinks" || key == "imagePullSecrets";
      case Scope::kStatus:
        return key == "ephemeralContainerStatuses" || key == "nodeInfo" ||
               key == "daemonEndpoints" || key == "hostIP" || key == "hostIPs" || key == "podIP" ||
               key == "podIPs" || key == "qosClass";
      case Scope::kContainerStatus:
        // Only name, allocatedResources and resources are read (in-place resize).
        return key == "state" || key == "lastState" || key == "image" || key == "imageID" ||
               key == "containerID" || key == "ready" || key == "started" ||
               key == "restartCount" || key == "volumeMounts" || key == "user" ||
               key == "allocatedResourcesStatus" || key == "stopSignal";
      case Scope::kContainer:
        return key == "env" || key == "envFrom" || key == "command" || key == "args" ||
               key == "volumeMounts" || key == "volumeDevices" || key == "livenessProbe" ||
               key == "readinessProbe" || key == "startupProbe" || key == "lifecycle" ||
               key == "securityContext" || key == "terminationMessagePath" ||
               key == "terminationMessagePolicy" || key == "imagePullPolicy";
    }
    return false;
  }

  // The scope of a container starting now: an array element inherits the array's
  // scope; an object member gets the scope of its key.
  Scope ChildScope() const { return levels_.back().is_array ? levels_.back().scope : next_scope_; }

  bool Enter() {
    if (++depth_ > ValueParser::kMaxDepth) too_deep_ = true;
    if (too_deep_) return false;
    if (skip_depth_ > 0) {
      ++skip_depth_;
    } else if (skip_next_) {
      skip_next_ = false;
      skip_depth_ = 1;
    }
    return true;
  }
  // True while (and when) the container being closed was dropped.
  bool Leave() {
    if (skip_depth_ == 0) return false;
    --skip_depth_;
    return true;
  }
  // True when a scalar is dropped (the value of an ignored member, or inside one).
  bool Scalar() {
    if (skip_depth_ > 0) return true;
    if (skip_next_) {
      skip_next_ = false;
      return true;
    }
    return false;
  }

  rapidjson::Document& doc_;
  const bool filter_;
  int depth_ = 0;
  bool too_deep_ = false;
  // Dropping the value of an ignored member: the next value, then its whole subtree.
  bool skip_next_ = false;
  int skip_depth_ = 0;
  // Scope for an object or array that starts right after the current key.
  Scope next_scope_ = Scope::kOther;
  // The open containers being built; the bottom entry stands for "outside the root",
  // and acts as an array so the root value gets kOther.
  std::vector<Level> levels_ = {{Scope::kOther, true, 0}};
};

}  // namespace

ValueParser::ValueParser(std::string_view json, bool filter_ignored_members)
    : filter_ignored_members_(filter_ignored_members),
      data_(json.data()),
      size_(json.size()),
      memory_(json.data(), json.size()),
      stream_(memory_),
      pool_(first_chunk_, sizeof(first_chunk_), kChunkSize),
      doc_(&pool_) {}

absl::Status ValueParser::SyntaxError(size_t offset, std::string_view message) const {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid JSON at offset ", offset, ": ", ToAbsl(message)));
}

void ValueParser::SkipWhitespace() {
  for (char c = Peek(); c == ' ' || c == '\n' || c == '\r' || c == '\t'; c = Peek()) Take();
}

void ValueParser::Reset() {
  doc_.SetNull();
  pool_.Clear();
}

absl::Status ValueParser::ParseNext() {
  Reset();
  bool too_deep = false;
  auto generator = [&](rapidjson::Document& doc) {
    FilteringHandler handler(doc, filter_ignored_members_);
    reader_.Parse<rapidjson::kParseStopWhenDoneFlag>(stream_, handler);
    too_deep = handler.too_deep();
    return !reader_.HasParseError();
  };
  doc_.Populate(generator);
  if (reader_.HasParseError()) {
    if (too_deep) {
      return SyntaxError(reader_.GetErrorOffset(),
                         absl::StrCat("nesting deeper than ", kMaxDepth, " levels"));
    }
    rapidjson::ParseErrorCode code = reader_.GetParseErrorCode();
    // Input ending where a value should start: inside a list that is not an empty
    // document, but a missing value.
    if (code == rapidjson::kParseErrorDocumentEmpty) code = rapidjson::kParseErrorValueInvalid;
    return SyntaxError(reader_.GetErrorOffset(), rapidjson::GetParseError_En(code));
  }
  return absl::OkStatus();
}

absl::Status ValueParser::ParseDocument() {
  // The stream reads a NUL byte as the end of input, which would silently truncate the
  // document; reject it instead.
  if (const void* nul = std::memchr(data_, '\0', size_); nul != nullptr) {
    return SyntaxError(static_cast<const char*>(nul) - data_, "unexpected NUL byte");
  }
  SkipWhitespace();
  if (AtEnd())
    return SyntaxError(Tell(), rapidjson::GetParseError_En(rapidjson::kParseErrorDocumentEmpty));
  TRIMARAN_RETURN_IF_ERROR(ParseNext());
  SkipWhitespace();
  if (!AtEnd()) {
    return SyntaxError(Tell(),
                       rapidjson::GetParseError_En(rapidjson::kParseErrorDocumentRootNotSingular));
  }
  return absl::OkStatus();
}

absl::Status CheckKind(const Value& object, const Path& path, std::string_view want,
                       std::string_view also_accepted) {
  const auto it = object.FindMember("kind");
  if (it == object.MemberEnd()) return absl::OkStatus();
  return CheckKindValue(it->value, path.Field("kind"), want, also_accepted);
}

absl::Status CheckKindValue(const Value& value, const Path& kind_path, std::string_view want,
                            std::string_view also_accepted) {
  if (value.IsNull()) return absl::OkStatus();
  if (!value.IsString()) return TypeError(kind_path, "string", value);
  const std::string_view kind = View(value);
  if (kind.empty() || kind == want || (!also_accepted.empty() && kind == also_accepted)) {
    return absl::OkStatus();
  }
  return FieldError(kind_path,
                    absl::StrCat("expected \"", ToAbsl(want), "\", got \"", ToAbsl(kind), "\""));
}

absl::Status Read(const Value& v, const Path& path, std::string& out) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsString()) return TypeError(path, "string", v);
  out.assign(v.GetString(), v.GetStringLength());
  return absl::OkStatus();
}

absl::Status Read(const Value& v, const Path& path, bool& out) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsBool()) return TypeError(path, "boolean", v);
  out = v.GetBool();
  return absl::OkStatus();
}

absl::Status Read(const Value& v, const Path& path, int32_t& out) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsNumber()) return TypeError(path, "integer", v);
  if (!v.IsInt()) return FieldError(path, "expected a 32-bit integer");
  out = v.GetInt();
  return absl::OkStatus();
}

absl::Status Read(const Value& v, const Path& path, int64_t& out) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsNumber()) return TypeError(path, "integer", v);
  if (!v.IsInt64()) return FieldError(path, "expected a 64-bit integer");
  out = v.GetInt64();
  return absl::OkStatus();
}

absl::Status Read(const Value& v, const Path& path, absl::Time& out) {
  if (v.IsNull()) return absl::OkStatus();
  if (!v.IsString()) return TypeError(path, "string", v);
  if (!ParseRfc3339(View(v), out)) {
    return FieldError(path, absl::StrCat("invalid RFC 3339 time \"", ToAbsl(View(v)), "\""));
  }
  return absl::OkStatus();
}

absl::Status Read(const Value& v, const Path& path, Quantity& out) {
  if (v.IsNull()) return absl::OkStatus();
  std::string_view text;
  char buf[64];
  if (v.IsString()) {
    text = View(v);
  } else if (v.IsInt64()) {
    const auto r = std::to_chars(buf, buf + sizeof(buf), v.GetInt64());
    text = std::string_view(buf, r.ptr - buf);
  } else if (v.IsUint64()) {
    const auto r = std::to_chars(buf, buf + sizeof(buf), v.GetUint64());
    text = std::string_view(buf, r.ptr - buf);
  } else if (v.IsDouble()) {
    // Shortest round-trip form: 0.5 -> "0.5", 1e+20 -> "1e+20".
    const auto r = std::to_chars(buf, buf + sizeof(buf), v.GetDouble());
    text = std::string_view(buf, r.ptr - buf);
  } else {
    return TypeError(path, "quantity string", v);
  }
  // The apiserver admits values beyond int64 base units ("10E"): they saturate.
  absl::StatusOr<Quantity> q = Quantity::ParseSaturating(text);
  if (!q.ok()) {
    return FieldError(path, absl::StrCat("invalid quantity \"", ToAbsl(text), "\""));
  }
  out = *q;
  return absl::OkStatus();
}

absl::Status Read(const Value& v, const Path& path, StringMap& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (!fv.IsString()) {
      return fv.IsNull() ? absl::OkStatus() : TypeError(fp, "string", fv);
    }
    out.insert_or_assign(std::string(k), std::string(View(fv)));
    return absl::OkStatus();
  });
}

absl::Status Read(const Value& v, const Path& path, ResourceList& out) {
  return ForEachField(v, path, [&](std::string_view k, const Value& fv, const Path& fp) {
    if (fv.IsNull()) return absl::OkStatus();
    Quantity q;
    TRIMARAN_RETURN_IF_ERROR(Read(fv, fp, q));
    out.insert_or_assign(std::string(k), q);
    return absl::OkStatus();
  });
}

// ---- Objects that do not decode. ----

DecodeFailure DescribeFailure(const Value& object, std::string_view position, absl::Status status) {
  DecodeFailure f;
  f.position = std::string(position);
  f.status = std::move(status);
  if (!object.IsObject()) return f;
  const auto meta = object.FindMember("metadata");
  if (meta == object.MemberEnd() || !meta->value.IsObject()) return f;
  auto string_member = [&](const char* name, std::string& out) {
    const auto it = meta->value.FindMember(name);
    if (it != meta->value.MemberEnd() && it->value.IsString()) out = std::string(View(it->value));
  };
  string_member("namespace", f.namespace_name);
  string_member("name", f.name);
  string_member("resourceVersion", f.resource_version);
  return f;
}

// ---- Enums. ----

absl::Status Read(const Value& v, const Path& path, LabelSelectorOperator& out) {
  static constexpr EnumEntry<LabelSelectorOperator> kTable[] = {
      {"In", LabelSelectorOperator::kIn},
      {"NotIn", LabelSelectorOperator::kNotIn},
      {"Exists", LabelSelectorOperator::kExists},
      {"DoesNotExist", LabelSelectorOperator::kDoesNotExist},
  };
  return ReadEnum<LabelSelectorOperator>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, NodeSelectorOperator& out) {
  static constexpr EnumEntry<NodeSelectorOperator> kTable[] = {
      {"In", NodeSelectorOperator::kIn},
      {"NotIn", NodeSelectorOperator::kNotIn},
      {"Exists", NodeSelectorOperator::kExists},
      {"DoesNotExist", NodeSelectorOperator::kDoesNotExist},
      {"Gt", NodeSelectorOperator::kGt},
      {"Lt", NodeSelectorOperator::kLt},
  };
  return ReadEnum<NodeSelectorOperator>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, TaintEffect& out) {
  static constexpr EnumEntry<TaintEffect> kTable[] = {
      {"NoSchedule", TaintEffect::kNoSchedule},
      {"PreferNoSchedule", TaintEffect::kPreferNoSchedule},
      {"NoExecute", TaintEffect::kNoExecute},
      {"", TaintEffect::kAll},
  };
  return ReadEnum<TaintEffect>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, TolerationOperator& out) {
  static constexpr EnumEntry<TolerationOperator> kTable[] = {
      {"Equal", TolerationOperator::kEqual},
      {"Exists", TolerationOperator::kExists},
      {"", TolerationOperator::kEqual},
  };
  return ReadEnum<TolerationOperator>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, UnsatisfiableConstraintAction& out) {
  static constexpr EnumEntry<UnsatisfiableConstraintAction> kTable[] = {
      {"DoNotSchedule", UnsatisfiableConstraintAction::kDoNotSchedule},
      {"ScheduleAnyway", UnsatisfiableConstraintAction::kScheduleAnyway},
  };
  return ReadEnum<UnsatisfiableConstraintAction>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, NodeInclusionPolicy& out) {
  static constexpr EnumEntry<NodeInclusionPolicy> kTable[] = {
      {"Honor", NodeInclusionPolicy::kHonor},
      {"Ignore", NodeInclusionPolicy::kIgnore},
  };
  return ReadEnum<NodeInclusionPolicy>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, ConditionStatus& out) {
  static constexpr EnumEntry<ConditionStatus> kTable[] = {
      {"True", ConditionStatus::kTrue},
      {"False", ConditionStatus::kFalse},
      {"Unknown", ConditionStatus::kUnknown},
  };
  return ReadEnum<ConditionStatus>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, Protocol& out) {
  static constexpr EnumEntry<Protocol> kTable[] = {
      {"TCP", Protocol::kTCP},
      {"UDP", Protocol::kUDP},
      {"SCTP", Protocol::kSCTP},
      {"", Protocol::kTCP},
  };
  return ReadEnum<Protocol>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, ContainerRestartPolicy& out) {
  static constexpr EnumEntry<ContainerRestartPolicy> kTable[] = {
      {"Always", ContainerRestartPolicy::kAlways},
      {"OnFailure", ContainerRestartPolicy::kOnFailure},
      {"Never", ContainerRestartPolicy::kNever},
      {"", ContainerRestartPolicy::kUnset},
  };
  return ReadEnum<ContainerRestartPolicy>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, PreemptionPolicy& out) {
  static constexpr EnumEntry<PreemptionPolicy> kTable[] = {
      {"PreemptLowerPriority", PreemptionPolicy::kPreemptLowerPriority},
      {"Never", PreemptionPolicy::kNever},
  };
  return ReadEnum<PreemptionPolicy>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, PodPhase& out) {
  static constexpr EnumEntry<PodPhase> kTable[] = {
      {"Pending", PodPhase::kPending},     {"Running", PodPhase::kRunning},
      {"Succeeded", PodPhase::kSucceeded}, {"Failed", PodPhase::kFailed},
      {"Unknown", PodPhase::kUnknown},     {"", PodPhase::kPending},
  };
  return ReadEnum<PodPhase>(v, path, kTable, out);
}

absl::Status Read(const Value& v, const Path& path, WatchEventType& out) {
  static constexpr EnumEntry<WatchEventType> kTable[] = {
      {"ADDED", WatchEventType::kAdded},     {"MODIFIED", WatchEventType::kModified},
      {"DELETED", WatchEventType::kDeleted}, {"BOOKMARK", WatchEventType::kBookmark},
      {"ERROR", WatchEventType::kError},
  };
  // The envelope's type is not lenient: an event of an unknown type cannot be applied.
  return ReadEnum<WatchEventType>(v, path, kTable, out, /*lenient=*/false);
}

// ---- Time. ----

bool ParseRfc3339(std::string_view s, absl::Time& out) {
  // 2006-01-02T15:04:05[.999999999](Z|+07:00)
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':') {
    return false;
  }
  int year, month, day, hour, minute, second;
  if (!Digits(s, 0, 4, year) || !Digits(s, 5, 2, month) || !Digits(s, 8, 2, day) ||
      !Digits(s, 11, 2, hour) || !Digits(s, 14, 2, minute) || !Digits(s, 17, 2, second)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return false;
  }
  size_t pos = 19;
  int64_t nanos = 0;
  if (s[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      // Digits beyond nanoseconds are dropped, as Go does.
      if (digits < 9) nanos = nanos * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return false;
    for (int i = digits; i < 9; ++i) nanos *= 10;
  }
  if (pos >= s.size()) return false;
  int64_t offset_seconds = 0;
  if (s[pos] == 'Z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    int oh, om;
    if (s.size() - pos != 6 || s[pos + 3] != ':' || !Digits(s, pos + 1, 2, oh) ||
        !Digits(s, pos + 4, 2, om) || oh > 23 || om > 59) {
      return false;
    }
    offset_seconds = (oh * 3600 + om * 60) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return false;
  }
  if (pos != s.size()) return false;
  const int64_t seconds =
      DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  out = absl::FromUnixSeconds(seconds) + absl::Nanoseconds(nanos);
  // Go's metav1.Time cannot be written outside years 0-9999 (UTC), so the apiserver
  // never serves one; refusing it here keeps every decoded time writable.
  const int64_t utc_year = absl::ToCivilYear(out, absl::UTCTimeZone()).year();
  return utc_year >= 0 && utc_year <= 9999;
}

namespace {

// The year with four digits (Go's "2006"), then the rest of `format`.
std::string FormatWithFourDigitYear(absl::Time t, const char* rest) {
  const int64_t year = absl::ToCivilYear(t, absl::UTCTimeZone()).year();
  return absl::StrCat(absl::StrFormat("%04d", year),
                      absl::FormatTime(rest, t, absl::UTCTimeZone()));
}

}  // namespace

std::string TimeString(absl::Time t) { return FormatWithFourDigitYear(t, "-%m-%dT%H:%M:%SZ"); }

std::string MicroTimeString(absl::Time t) {
  return FormatWithFourDigitYear(t, "-%m-%dT%H:%M:%E6SZ");
}

// ---- Writing. ----

void TimeField(Writer& w, std::string_view key, absl::Time t) {
  Key(w, key);
  String(w, TimeString(t));
}

void MicroTimeField(Writer& w, std::string_view key, absl::Time t) {
  Key(w, key);
  String(w, MicroTimeString(t));
}

void StringArrayField(Writer& w, std::string_view key, const std::vector<std::string>& values) {
  if (values.empty()) return;
  Key(w, key);
  w.StartArray();
  for (const std::string& s : values) String(w, s);
  w.EndArray();
}

void StringMapField(Writer& w, std::string_view key, const StringMap& values) {
  if (values.empty()) return;
  Key(w, key);
  w.StartObject();
  for (const auto& [k, val] : values) StringField(w, k, val);
  w.EndObject();
}

void ResourceListField(Writer& w, std::string_view key, const ResourceList& values) {
  if (values.empty()) return;
  Key(w, key);
  w.StartObject();
  for (const auto& [k, q] : values) StringField(w, k, q.String());
  w.EndObject();
}

}  // namespace json_internal
}  // namespace trimaran::kube
