#include "sim/trace.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "yaml-cpp/yaml.h"

namespace trimaran::sim {
namespace {

absl::Status LineError(absl::string_view file, int line, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(file, ":", line, ": ", what));
}

const std::vector<std::string>& KnownColumns() {
  static const auto* kColumns = new std::vector<std::string>{
      "name",       "creation_time",  "deletion_time",   "duration",
      "cpu_milli",  "memory_mib",     "priority",        "group",
      "role",       "labels",         "cpu_use_milli",   "memory_use_mib",
      "usage",      "scheduler_name", "cpu_limit_milli", "cpu_use_max_milli",
      "num_gpu",    "gpu_milli",      "gpu_spec",        "qos",
      "depends_on", "orig_node",      "scheduled_time"};
  return *kColumns;
}

absl::StatusOr<double> ParseSeconds(absl::string_view column, absl::string_view v) {
  double d = 0;
  if (!absl::SimpleAtod(v, &d) || !std::isfinite(d) || d < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(column, ": not a non-negative number of seconds: \"", v, "\""));
  }
  return d;
}

absl::StatusOr<int64_t> ParseSize(absl::string_view column, absl::string_view v) {
  int64_t i = 0;
  if (!absl::SimpleAtoi(v, &i) || i < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(column, ": not a non-negative integer: \"", v, "\""));
  }
  return i;
}

absl::StatusOr<std::map<std::string, std::string>> ParseLabels(absl::string_view v) {
  std::map<std::string, std::string> labels;
  for (absl::string_view kv : absl::StrSplit(v, ';', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    if (p.first.empty() || !absl::StrContains(kv, '=')) {
      return absl::InvalidArgumentError(absl::StrCat("labels: expected k=v, got \"", kv, "\""));
    }
    labels[std::string(p.first)] = std::string(p.second);
  }
  return labels;
}

absl::StatusOr<std::vector<UsagePoint>> ParseUsage(absl::string_view v) {
  std::vector<UsagePoint> points;
  for (absl::string_view item : absl::StrSplit(v, ';', absl::SkipEmpty())) {
    std::vector<absl::string_view> f = absl::StrSplit(item, ':');
    if (f.size() != 3) {
      return absl::InvalidArgumentError(
          absl::StrCat("usage: expected t:cpu_milli:memory_mib, got \"", item, "\""));
    }
    UsagePoint p;
    TRIMARAN_ASSIGN_OR_RETURN(p.t, ParseSeconds("usage.t", f[0]));
    TRIMARAN_ASSIGN_OR_RETURN(p.cpu_milli, ParseSize("usage.cpu_milli", f[1]));
    TRIMARAN_ASSIGN_OR_RETURN(p.memory_mib, ParseSize("usage.memory_mib", f[2]));
    points.push_back(p);
  }
  return points;
}

// Sets one field of `pod` from a cell's text (shared by CSV and JSONL scalars).
absl::Status SetField(TracePod& pod, absl::string_view column, absl::string_view v) {
  if (column == "name") {
    pod.name = std::string(v);
  } else if (column == "creation_time") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.creation_time, ParseSeconds(column, v));
  } else if (column == "deletion_time") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.deletion_time, ParseSeconds(column, v));
  } else if (column == "duration") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.duration, ParseSeconds(column, v));
  } else if (column == "cpu_milli") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.cpu_milli, ParseSize(column, v));
  } else if (column == "memory_mib") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.memory_mib, ParseSize(column, v));
  } else if (column == "priority") {
    if (!absl::SimpleAtoi(v, &pod.priority)) {
      return absl::InvalidArgumentError(absl::StrCat("priority: not an integer: \"", v, "\""));
    }
  } else if (column == "group") {
    pod.group = std::string(v);
  } else if (column == "role") {
    pod.role = std::string(v);
  } else if (column == "labels") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.labels, ParseLabels(v));
  } else if (column == "cpu_use_milli") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.cpu_use_milli, ParseSize(column, v));
  } else if (column == "memory_use_mib") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.memory_use_mib, ParseSize(column, v));
  } else if (column == "usage") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.usage, ParseUsage(v));
  } else if (column == "scheduler_name") {
    // Ignored: every profile runs the whole trace.
  } else if (column == "cpu_limit_milli") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.cpu_limit_milli, ParseSize(column, v));
  } else if (column == "cpu_use_max_milli") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.cpu_use_max_milli, ParseSize(column, v));
  } else if (column == "num_gpu") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.num_gpu, ParseSize(column, v));
  } else if (column == "gpu_milli") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.gpu_milli, ParseSize(column, v));
  } else if (column == "gpu_spec") {
    pod.gpu_spec = std::string(v);
  } else if (column == "qos") {
    pod.qos = std::string(v);
  } else if (column == "depends_on") {
    pod.depends_on = absl::StrSplit(v, ';', absl::SkipEmpty());
  } else if (column == "orig_node") {
    pod.orig_node = std::string(v);
  } else if (column == "scheduled_time") {
    TRIMARAN_ASSIGN_OR_RETURN(pod.scheduled_time, ParseSeconds(column, v));
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown column \"", column, "\" (known: ", absl::StrJoin(KnownColumns(), ", "), ")"));
  }
  return absl::OkStatus();
}

// Checks a parsed pod's fields (required, consistency); unique names are the caller's.
absl::Status CheckPod(const TracePod& pod) {
  if (pod.name.empty()) return absl::InvalidArgumentError("name: required");
  if (pod.deletion_time.has_value() && pod.duration.has_value()) {
    return absl::InvalidArgumentError("deletion_time and duration: give one, not both");
  }
  if (pod.deletion_time.has_value() && *pod.deletion_time < pod.creation_time) {
    return absl::InvalidArgumentError("deletion_time: before creation_time");
  }
  for (size_t i = 1; i < pod.usage.size(); ++i) {
    if (pod.usage[i].t < pod.usage[i - 1].t) {
      return absl::InvalidArgumentError("usage: times must ascend");
    }
  }
  return absl::OkStatus();
}

// The whole-file parsers' duplicate check.
absl::Status CheckUniqueName(const TracePod& pod, std::set<std::string, std::less<>>& names,
                             absl::string_view file) {
  if (!names.insert(pod.name).second) {
    return LineError(file, pod.line, absl::StrCat("name: duplicate pod \"", pod.name, "\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TracePod>> SortByArrival(std::vector<TracePod> pods) {
  std::stable_sort(pods.begin(), pods.end(), [](const TracePod& a, const TracePod& b) {
    return a.creation_time < b.creation_time;
  });
  return pods;
}

}  // namespace

UsagePoint TracePod::UsageAt(double since_start) const {
  if (usage.empty() || since_start < usage.front().t) {
    if (!usage.empty() && !cpu_use_milli.has_value() && !memory_use_mib.has_value()) {
      return UsagePoint{since_start, usage.front().cpu_milli, usage.front().memory_mib};
    }
    return UsagePoint{since_start, cpu_use_milli.value_or(cpu_milli),
                      memory_use_mib.value_or(memory_mib)};
  }
  auto it = std::upper_bound(usage.begin(), usage.end(), since_start,
                             [](double t, const UsagePoint& p) { return t < p.t; });
  return *std::prev(it);
}

bool IsSkippedPodsLine(absl::string_view line, bool csv) {
  if (absl::StripAsciiWhitespace(line).empty()) return true;
  return csv && absl::StartsWith(line, "#");
}

absl::StatusOr<std::vector<std::string>> ParsePodsCsvHeader(absl::string_view line,
                                                            absl::string_view file, int line_no) {
  std::vector<std::string> header;
  std::set<std::string> seen;
  for (absl::string_view c : absl::StrSplit(line, ',')) {
    std::string column(absl::StripAsciiWhitespace(c));
    if (std::find(KnownColumns().begin(), KnownColumns().end(), column) == KnownColumns().end()) {
      return LineError(file, line_no,
                       absl::StrCat("unknown column \"", column,
                                    "\" (known: ", absl::StrJoin(KnownColumns(), ", "), ")"));
    }
    if (!seen.insert(column).second) {
      return LineError(file, line_no, absl::StrCat("duplicate column \"", column, "\""));
    }
    header.push_back(column);
  }
  for (const char* required : {"name", "creation_time", "cpu_milli", "memory_mib"}) {
    if (!seen.contains(required)) {
      return LineError(file, line_no, absl::StrCat("missing required column \"", required, "\""));
    }
  }
  return header;
}

absl::StatusOr<TracePod> ParsePodsCsvRow(const std::vector<std::string>& header,
                                         absl::string_view line, absl::string_view file,
                                         int line_no) {
  std::vector<absl::string_view> cells = absl::StrSplit(line, ',');
  if (cells.size() != header.size()) {
    return LineError(file, line_no,
                     absl::StrCat("expected ", header.size(), " cells, got ", cells.size()));
  }
  TracePod pod;
  pod.line = line_no;
  for (size_t i = 0; i < cells.size(); ++i) {
    absl::string_view v = absl::StripAsciiWhitespace(cells[i]);
    if (v.empty()) {
      if (header[i] == "name" || header[i] == "creation_time" || header[i] == "cpu_milli" ||
          header[i] == "memory_mib") {
        return LineError(file, line_no, absl::StrCat(header[i], ": required"));
      }
      continue;
    }
    if (absl::Status s = SetField(pod, header[i], v); !s.ok()) {
      return LineError(file, line_no, s.message());
    }
  }
  if (absl::Status s = CheckPod(pod); !s.ok()) return LineError(file, line_no, s.message());
  return pod;
}

absl::StatusOr<std::vector<TracePod>> ParsePodsCsv(absl::string_view text, absl::string_view file) {
  std::optional<std::vector<std::string>> header;
  std::vector<TracePod> pods;
  std::set<std::string, std::less<>> names;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    absl::ConsumeSuffix(&line, "\r");
    if (IsSkippedPodsLine(line, /*csv=*/true)) continue;
    if (!header.has_value()) {
      TRIMARAN_ASSIGN_OR_RETURN(header, ParsePodsCsvHeader(line, file, line_no));
      continue;
    }
    TRIMARAN_ASSIGN_OR_RETURN(TracePod pod, ParsePodsCsvRow(*header, line, file, line_no));
    TRIMARAN_RETURN_IF_ERROR(CheckUniqueName(pod, names, file));
    pods.push_back(std::move(pod));
  }
  if (!header.has_value()) return LineError(file, line_no, "no header row");
  return SortByArrival(std::move(pods));
}

absl::StatusOr<TracePod> ParsePodsJsonlLine(absl::string_view line, absl::string_view file,
                                            int line_no) {
  rapidjson::Document doc;
  doc.Parse(line.data(), line.size());
  if (doc.HasParseError()) {
    return LineError(file, line_no,
                     absl::StrCat("invalid JSON at column ", doc.GetErrorOffset() + 1, ": ",
                                  rapidjson::GetParseError_En(doc.GetParseError())));
  }
  if (!doc.IsObject()) return LineError(file, line_no, "expected a JSON object");
  const rapidjson::Value& root = doc;
  TracePod pod;
  pod.line = line_no;
  std::set<std::string> seen;
  for (auto it = root.MemberBegin(); it != root.MemberEnd(); ++it) {
    const std::string key(it->name.GetString(), it->name.GetStringLength());
    const rapidjson::Value& v = it->value;
    seen.insert(key);
    if (v.IsNull()) continue;
    if (key == "labels") {
      if (!v.IsObject()) return LineError(file, line_no, "labels: expected an object");
      for (auto l = v.MemberBegin(); l != v.MemberEnd(); ++l) {
        if (!l->value.IsString()) {
          return LineError(file, line_no, "labels: values must be strings");
        }
        pod.labels[l->name.GetString()] = l->value.GetString();
      }
      continue;
    }
    if (key == "usage") {
      if (!v.IsArray()) return LineError(file, line_no, "usage: expected an array");
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
        const rapidjson::Value& p = v[i];
        const auto path = absl::StrCat("usage[", i, "]");
        if (!p.IsObject()) return LineError(file, line_no, path + ": expected an object");
        UsagePoint point;
        for (auto m = p.MemberBegin(); m != p.MemberEnd(); ++m) {
          const std::string k = m->name.GetString();
          if (!m->value.IsNumber() || m->value.GetDouble() < 0) {
            return LineError(file, line_no,
                             absl::StrCat(path, ".", k, ": expected a non-negative number"));
          }
          if (k == "t") {
            point.t = m->value.GetDouble();
          } else if (k == "cpu_milli") {
            point.cpu_milli = static_cast<int64_t>(m->value.GetDouble());
          } else if (k == "memory_mib") {
            point.memory_mib = static_cast<int64_t>(m->value.GetDouble());
          } else {
            return LineError(
                file, line_no,
                absl::StrCat(path, ": unknown key \"", k, "\" (known: t, cpu_milli, memory_mib)"));
          }
        }
        pod.usage.push_back(point);
      }
      continue;
    }
    std::string cell;
    if (v.IsString()) {
      cell.assign(v.GetString(), v.GetStringLength());
    } else if (v.IsInt64()) {
      cell = absl::StrCat(v.GetInt64());
    } else if (v.IsNumber()) {
      cell = absl::StrCat(v.GetDouble());
    } else {
      return LineError(file, line_no, absl::StrCat(key, ": expected a string or a number"));
    }
    if (absl::Status s = SetField(pod, key, cell); !s.ok()) {
      return LineError(file, line_no, s.message());
    }
  }
  for (const char* required : {"name", "creation_time", "cpu_milli", "memory_mib"}) {
    if (!seen.contains(required)) {
      return LineError(file, line_no, absl::StrCat(required, ": required"));
    }
  }
  if (absl::Status s = CheckPod(pod); !s.ok()) return LineError(file, line_no, s.message());
  return pod;
}

absl::StatusOr<std::vector<TracePod>> ParsePodsJsonl(absl::string_view text,
                                                     absl::string_view file) {
  std::vector<TracePod> pods;
  std::set<std::string, std::less<>> names;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    absl::ConsumeSuffix(&line, "\r");
    if (IsSkippedPodsLine(line, /*csv=*/false)) continue;
    TRIMARAN_ASSIGN_OR_RETURN(TracePod pod, ParsePodsJsonlLine(line, file, line_no));
    TRIMARAN_RETURN_IF_ERROR(CheckUniqueName(pod, names, file));
    pods.push_back(std::move(pod));
  }
  return SortByArrival(std::move(pods));
}

absl::StatusOr<std::vector<TracePod>> ParsePods(absl::string_view text, absl::string_view file) {
  if (absl::EndsWith(file, ".csv")) return ParsePodsCsv(text, file);
  if (absl::EndsWith(file, ".jsonl") || absl::EndsWith(file, ".json")) {
    return ParsePodsJsonl(text, file);
  }
  return absl::InvalidArgumentError(
      absl::StrCat(file, ": unknown pods format (expected a .csv or .jsonl file)"));
}

absl::string_view ExpanderName(Expander e) {
  switch (e) {
    case Expander::kLeastWaste:
      return "least-waste";
    case Expander::kPrice:
      return "price";
    case Expander::kMostPods:
      return "most-pods";
    case Expander::kLeastNodes:
      return "least-nodes";
    case Expander::kRandom:
      return "random";
  }
  return "unknown";
}

absl::string_view ConsolidationName(Consolidation c) {
  switch (c) {
    case Consolidation::kNone:
      return "None";
    case Consolidation::kWhenEmpty:
      return "WhenEmpty";
    case Consolidation::kWhenEmptyOrUnderutilized:
      return "WhenEmptyOrUnderutilized";
  }
  return "unknown";
}

namespace {

absl::Status YamlError(absl::string_view file, const YAML::Node& at, absl::string_view what) {
  return LineError(file, at.Mark().line + 1, what);
}

template <typename T>
absl::StatusOr<T> YamlScalar(absl::string_view file, const YAML::Node& v, absl::string_view key) {
  if (!v.IsScalar()) return YamlError(file, v, absl::StrCat(key, ": expected a scalar"));
  try {
    return v.as<T>();
  } catch (const YAML::Exception&) {
    return YamlError(file, v, absl::StrCat(key, ": invalid value \"", v.Scalar(), "\""));
  }
}

absl::StatusOr<NodeGroup> ParseGroup(absl::string_view file, const YAML::Node& g) {
  if (!g.IsMap()) return YamlError(file, g, "nodeGroups[]: expected a mapping");
  NodeGroup group;
  bool has_initial = false;
  for (auto it = g.begin(); it != g.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    const YAML::Node v = it->second;  // a copy: it->second is a temporary proxy
    if (key == "name") {
      TRIMARAN_ASSIGN_OR_RETURN(group.name, YamlScalar<std::string>(file, v, key));
    } else if (key == "instanceType") {
      TRIMARAN_ASSIGN_OR_RETURN(group.instance_type, YamlScalar<std::string>(file, v, key));
    } else if (key == "cpuMilli") {
      TRIMARAN_ASSIGN_OR_RETURN(group.cpu_milli, YamlScalar<int64_t>(file, v, key));
    } else if (key == "memoryMiB") {
      TRIMARAN_ASSIGN_OR_RETURN(group.memory_mib, YamlScalar<int64_t>(file, v, key));
    } else if (key == "pods") {
      TRIMARAN_ASSIGN_OR_RETURN(group.pods, YamlScalar<int64_t>(file, v, key));
    } else if (key == "pricePerHour") {
      TRIMARAN_ASSIGN_OR_RETURN(group.price_per_hour, YamlScalar<double>(file, v, key));
    } else if (key == "min") {
      TRIMARAN_ASSIGN_OR_RETURN(group.min, YamlScalar<int>(file, v, key));
    } else if (key == "max") {
      TRIMARAN_ASSIGN_OR_RETURN(group.max, YamlScalar<int>(file, v, key));
    } else if (key == "initial") {
      TRIMARAN_ASSIGN_OR_RETURN(group.initial, YamlScalar<int>(file, v, key));
      has_initial = true;
    } else if (key == "startupDelay") {
      TRIMARAN_ASSIGN_OR_RETURN(group.startup_delay, YamlScalar<double>(file, v, key));
    } else if (key == "backgroundCpuMilli") {
      TRIMARAN_ASSIGN_OR_RETURN(group.background_cpu_milli, YamlScalar<int64_t>(file, v, key));
    } else if (key == "backgroundMemoryMiB") {
      TRIMARAN_ASSIGN_OR_RETURN(group.background_memory_mib, YamlScalar<int64_t>(file, v, key));
    } else if (key == "labels") {
      if (!v.IsMap()) return YamlError(file, v, "labels: expected a mapping");
      for (auto l = v.begin(); l != v.end(); ++l) {
        group.labels[l->first.as<std::string>()] = l->second.as<std::string>();
      }
    } else {
      return YamlError(file, it->first,
                       absl::StrCat("nodeGroups[]: unknown key \"", key,
                                    "\" (known: name, instanceType, cpuMilli, memoryMiB, pods, "
                                    "pricePerHour, min, max, initial, startupDelay, labels, "
                                    "backgroundCpuMilli, backgroundMemoryMiB)"));
    }
  }
  if (group.name.empty()) return YamlError(file, g, "nodeGroups[].name: required");
  const std::string p = absl::StrCat("nodeGroups[", group.name, "]");
  if (group.cpu_milli <= 0 || group.memory_mib <= 0 || group.pods <= 0) {
    return YamlError(file, g, p + ": cpuMilli, memoryMiB and pods must be positive");
  }
  if (group.background_cpu_milli < 0 || group.background_memory_mib < 0) {
    return YamlError(file, g,
                     p + ": backgroundCpuMilli and backgroundMemoryMiB must not be negative");
  }
  if (group.price_per_hour < 0 || group.startup_delay < 0) {
    return YamlError(file, g, p + ": pricePerHour and startupDelay must not be negative");
  }
  if (group.min < 0 || group.max < group.min) {
    return YamlError(file, g, p + ": need 0 <= min <= max");
  }
  if (!has_initial) group.initial = group.min;
  if (group.initial < group.min || group.initial > group.max) {
    return YamlError(file, g, p + ": need min <= initial <= max");
  }
  if (group.instance_type.empty()) group.instance_type = group.name;
  return group;
}

absl::Status ParseAutoscaler(absl::string_view file, const YAML::Node& a, AutoscalerConfig& c) {
  if (!a.IsMap()) return YamlError(file, a, "autoscaler: expected a mapping");
  for (auto it = a.begin(); it != a.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    const YAML::Node v = it->second;  // a copy: it->second is a temporary proxy
    if (key == "enabled") {
      TRIMARAN_ASSIGN_OR_RETURN(c.enabled, YamlScalar<bool>(file, v, key));
    } else if (key == "expander") {
      TRIMARAN_ASSIGN_OR_RETURN(std::string name, YamlScalar<std::string>(file, v, key));
      bool found = false;
      for (Expander e : {Expander::kLeastWaste, Expander::kPrice, Expander::kMostPods,
                         Expander::kLeastNodes, Expander::kRandom}) {
        if (ExpanderName(e) == name) {
          c.expander = e;
          found = true;
        }
      }
      if (!found) {
        return YamlError(file, v,
                         absl::StrCat("expander: unknown \"", name,
                                      "\" (known: least-waste, price, most-pods, least-nodes, "
                                      "random)"));
      }
    } else if (key == "scanInterval") {
      TRIMARAN_ASSIGN_OR_RETURN(c.scan_interval, YamlScalar<double>(file, v, key));
      if (c.scan_interval <= 0) return YamlError(file, v, "scanInterval: must be positive");
    } else if (key == "scaleDownUnneededTime") {
      TRIMARAN_ASSIGN_OR_RETURN(c.scale_down_unneeded_time, YamlScalar<double>(file, v, key));
    } else if (key == "scaleDownUtilizationThreshold") {
      TRIMARAN_ASSIGN_OR_RETURN(c.scale_down_utilization_threshold,
                                YamlScalar<double>(file, v, key));
    } else if (key == "scaleDownDelayAfterAdd") {
      TRIMARAN_ASSIGN_OR_RETURN(c.scale_down_delay_after_add, YamlScalar<double>(file, v, key));
    } else if (key == "maxEmptyBulkDelete") {
      TRIMARAN_ASSIGN_OR_RETURN(c.max_empty_bulk_delete, YamlScalar<int>(file, v, key));
    } else if (key == "maxDrainParallelism") {
      TRIMARAN_ASSIGN_OR_RETURN(c.max_drain_parallelism, YamlScalar<int>(file, v, key));
    } else if (key == "consolidation") {
      TRIMARAN_ASSIGN_OR_RETURN(std::string name, YamlScalar<std::string>(file, v, key));
      bool found = false;
      Consolidation config_consolidation = Consolidation::kNone;
      for (Consolidation option : {Consolidation::kNone, Consolidation::kWhenEmpty,
                                   Consolidation::kWhenEmptyOrUnderutilized}) {
        if (ConsolidationName(option) == name) {
          config_consolidation = option;
          found = true;
        }
      }
      c.consolidation = config_consolidation;
      if (!found) {
        return YamlError(file, v,
                         absl::StrCat("consolidation: unknown \"", name,
                                      "\" (known: None, WhenEmpty, WhenEmptyOrUnderutilized)"));
      }
    } else if (key == "consolidateAfter") {
      TRIMARAN_ASSIGN_OR_RETURN(c.consolidate_after, YamlScalar<double>(file, v, key));
    } else if (key == "maxNodesPerScaleUp") {
      TRIMARAN_ASSIGN_OR_RETURN(c.max_nodes_per_scale_up, YamlScalar<int>(file, v, key));
    } else {
      return YamlError(file, it->first,
                       absl::StrCat("autoscaler: unknown key \"", key,
                                    "\" (known: enabled, expander, scanInterval, "
                                    "scaleDownUnneededTime, scaleDownUtilizationThreshold, "
                                    "scaleDownDelayAfterAdd, maxEmptyBulkDelete, "
                                    "maxDrainParallelism, maxNodesPerScaleUp, consolidation, "
                                    "consolidateAfter)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ClusterSpec> ParseClusterYaml(absl::string_view text, absl::string_view file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    return LineError(file, e.mark.line + 1, e.msg);
  }
  if (!root.IsMap()) return LineError(file, 1, "expected a mapping with nodeGroups");
  ClusterSpec spec;
  std::set<std::string> names;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    if (key == "nodeGroups") {
      // A named copy: iterating the iterator's proxy directly makes gcc 12 warn about a
      // dangling temporary (-Wdangling-pointer, a false positive inside yaml-cpp).
      const YAML::Node group_list = it->second;
      if (!group_list.IsSequence()) {
        return YamlError(file, group_list, "nodeGroups: expected a list");
      }
      for (const YAML::Node& g : group_list) {
        TRIMARAN_ASSIGN_OR_RETURN(NodeGroup group, ParseGroup(file, g));
        if (!names.insert(group.name).second) {
          return YamlError(file, g,
                           absl::StrCat("nodeGroups: duplicate name \"", group.name, "\""));
        }
        spec.groups.push_back(std::move(group));
      }
    } else if (key == "autoscaler") {
      TRIMARAN_RETURN_IF_ERROR(ParseAutoscaler(file, it->second, spec.autoscaler));
    } else {
      return YamlError(file, it->first,
                       absl::StrCat("unknown key \"", key, "\" (known: nodeGroups, autoscaler)"));
    }
  }
  if (spec.groups.empty()) return LineError(file, 1, "nodeGroups: at least one group required");
  return spec;
}

ClusterSpec DefaultClusterSpec() {
  ClusterSpec spec;
  NodeGroup g;
  g.name = "default";
  g.instance_type = "m5.xlarge";
  g.cpu_milli = 4000;
  g.memory_mib = 16384;
  g.price_per_hour = 0.192;
  g.min = 0;
  g.max = 1000;
  g.initial = 0;
  spec.groups.push_back(g);
  return spec;
}

}  // namespace trimaran::sim
