#include "dashboard/documents.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "kube/api/json_codec.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace trimaran::dashboard {

namespace {

std::string CsvField(absl::string_view v) {
  if (v.find_first_of(",\"\n\r") == absl::string_view::npos) return std::string(v);
  return absl::StrCat("\"", absl::StrReplaceAll(v, {{"\"", "\"\""}}), "\"");
}

std::string CsvNumber(double v) {
  // Whole amounts (millicores, bytes) in full; fractions (prices) to 15 digits.
  if (v == std::floor(v) && std::fabs(v) < 1e18) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.15g", v);
}

}  // namespace

std::string RenderCsv(const ClusterView& view) {
  std::vector<std::string> header = {"name",  "instance_type",    "capacity_type",  "zone",
                                     "ready", "cordoned",         "deleting",       "age_seconds",
                                     "pods",  "allocatable_pods", "price_per_hour", "usage"};
  for (const std::string& r : view.resources) {
    for (const char* f : {"_allocatable", "_requested", "_used"}) header.push_back(r + f);
  }
  for (const std::string& l : view.extra_labels) header.push_back(l);
  std::string out;
  std::vector<std::string> fields;
  for (const std::string& h : header) fields.push_back(CsvField(h));
  absl::StrAppend(&out, absl::StrJoin(fields, ","), "\n");
  for (const NodeRow& r : view.rows) {
    fields = {
        CsvField(r.name),
        CsvField(r.instance_type),
        std::string(CapacityTypeKey(r.capacity_type)),
        CsvField(r.zone),
        r.ready ? "true" : "false",
        r.cordoned ? "true" : "false",
        r.deleting ? "true" : "false",
        r.created.has_value() ? absl::StrCat(absl::ToInt64Seconds(view.now - *r.created)) : "",
        absl::StrCat(r.pods),
        absl::StrCat(r.allocatable_pods),
        r.price_per_hour.has_value() ? CsvNumber(*r.price_per_hour) : "",
        std::string(UsageStateName(r.usage_state))};
    for (const ResourceFigures& f : r.resources) {
      fields.push_back(CsvNumber(f.allocatable));
      fields.push_back(CsvNumber(f.requested));
      fields.push_back(f.used.has_value() ? CsvNumber(*f.used) : "");
    }
    for (const std::string& l : view.extra_labels) {
      std::optional<std::string> v = LabelValue(view, r, l);
      fields.push_back(v.has_value() ? CsvField(*v) : "");
    }
    absl::StrAppend(&out, absl::StrJoin(fields, ","), "\n");
  }
  return out;
}

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void Str(Writer& w, absl::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
void OptDouble(Writer& w, const std::optional<double>& v) {
  if (v.has_value()) {
    w.Double(*v);
  } else {
    w.Null();
  }
}
absl::string_view Unit(absl::string_view resource) {
  if (resource == "cpu") return "millicores";
  if (resource == "memory" || resource == "ephemeral-storage") return "bytes";
  return "units";
}

void WriteResources(Writer& w, const std::vector<ResourceFigures>& resources,
                    const std::vector<double>* measured_allocatable) {
  w.StartObject();
  for (size_t i = 0; i < resources.size(); ++i) {
    const ResourceFigures& r = resources[i];
    Str(w, r.name);
    w.StartObject();
    Str(w, "unit");
    Str(w, Unit(r.name));
    Str(w, "allocatable");
    w.Double(r.allocatable);
    Str(w, "requested");
    w.Double(r.requested);
    Str(w, "requestedPercent");
    w.Double(r.RequestedPercent());
    Str(w, "used");
    OptDouble(w, r.used);
    Str(w, "usedPercent");
    if (measured_allocatable != nullptr) {
      const double base = (*measured_allocatable)[i];
      OptDouble(w, r.used.has_value() && base > 0 ? std::optional<double>(*r.used * 100.0 / base)
                                                  : std::nullopt);
      Str(w, "measuredAllocatable");
      w.Double(base);
    } else {
      OptDouble(w, r.UsedPercent());
      Str(w, "usage");
      Str(w, UsageStateName(r.usage_state));
    }
    w.EndObject();
  }
  w.EndObject();
}

void WriteTotals(Writer& w, const Totals& t) {
  Str(w, "nodes");
  w.Int64(t.nodes);
  Str(w, "pods");
  w.Int64(t.pods);
  Str(w, "resources");
  WriteResources(w, t.resources, &t.measured_allocatable);
  Str(w, "nodesWithoutUsage");
  w.Int64(t.nodes_without_usage);
  Str(w, "pricePerHour");
  w.Double(t.price_per_hour);
  Str(w, "pricePerMonth");
  w.Double(t.price_per_hour * kHoursPerMonth);
  Str(w, "nodesWithoutPrice");
  w.Int64(t.nodes_without_price);
}

// "metrics": whether the view has usage, from where and how old, or why not.
void WriteMetrics(Writer& w, const ClusterView& view) {
  Str(w, "metrics");
  w.StartObject();
  Str(w, "available");
  w.Bool(view.has_metrics);
  if (view.has_metrics) {
    Str(w, "source");
    Str(w, view.metrics_source);
    Str(w, "window");
    Str(w, view.metrics_window);
    Str(w, "time");
    Str(w, kube::FormatRfc3339(view.metrics_time.value_or(view.now)));
    Str(w, "ageSeconds");
    w.Int64(absl::ToInt64Seconds(view.now - view.metrics_time.value_or(view.now)));
  } else {
    Str(w, "error");
    Str(w, view.metrics_error);
  }
  w.EndObject();
}

void WriteTargets(Writer& w, const TargetPercent& targets) {
  Str(w, "targetUtilizationPercent");
  w.StartObject();
  for (const auto& [name, pct] : targets) {
    Str(w, name);
    w.Double(pct);
  }
  w.EndObject();
}

void WriteSummary(Writer& w, const ClusterView& view) {
  Str(w, "summary");
  w.StartObject();
  WriteTotals(w, view.totals);
  Str(w, "pendingPods");
  w.Int64(view.pods.pending);
  Str(w, "runningPods");
  w.Int64(view.pods.running);
  Str(w, "boundPods");
  w.Int64(view.pods.bound);
  w.EndObject();
}

// "groupBy" and "groups": each group's totals and node names.
void WriteGroups(Writer& w, const ClusterView& view) {
  Str(w, "groupBy");
  Str(w, view.group_by);
  Str(w, "groups");
  w.StartArray();
  for (const Group& g : view.groups) {
    w.StartObject();
    Str(w, "value");
    Str(w, g.value);
    WriteTotals(w, g.totals);
    Str(w, "nodeNames");
    w.StartArray();
    for (size_t i : g.rows) Str(w, view.rows[i].name);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

// "created" and "ageSeconds", null when the node's creation time is unknown.
void WriteNodeAge(Writer& w, const ClusterView& view, const NodeRow& r) {
  Str(w, "created");
  if (r.created.has_value()) {
    Str(w, kube::FormatRfc3339(*r.created));
  } else {
    w.Null();
  }
  Str(w, "ageSeconds");
  if (r.created.has_value()) {
    w.Int64(absl::ToInt64Seconds(view.now - *r.created));
  } else {
    w.Null();
  }
}

// "labels": the view's extra labels, null where the node has none.
void WriteNodeLabels(Writer& w, const ClusterView& view, const NodeRow& r) {
  Str(w, "labels");
  w.StartObject();
  for (const std::string& l : view.extra_labels) {
    Str(w, l);
    std::optional<std::string> v = LabelValue(view, r, l);
    if (v.has_value()) {
      Str(w, *v);
    } else {
      w.Null();
    }
  }
  w.EndObject();
}

void WriteNode(Writer& w, const ClusterView& view, const NodeRow& r) {
  w.StartObject();
  Str(w, "name");
  Str(w, r.name);
  Str(w, "instanceType");
  Str(w, r.instance_type);
  Str(w, "capacityType");
  Str(w, CapacityTypeKey(r.capacity_type));
  Str(w, "autoMode");
  w.Bool(r.auto_mode);
  Str(w, "zone");
  Str(w, r.zone);
  WriteNodeAge(w, view, r);
  Str(w, "ready");
  w.Bool(r.ready);
  Str(w, "cordoned");
  w.Bool(r.cordoned);
  Str(w, "deleting");
  w.Bool(r.deleting);
  Str(w, "pods");
  w.Int64(r.pods);
  Str(w, "allocatablePods");
  w.Int64(r.allocatable_pods);
  Str(w, "usage");
  Str(w, UsageStateName(r.usage_state));
  Str(w, "pricePerHour");
  OptDouble(w, r.price_per_hour);
  Str(w, "priceSource");
  Str(w, r.price_source);
  if (!view.group_by.empty()) {
    Str(w, "group");
    Str(w, r.group);
  }
  WriteNodeLabels(w, view, r);
  Str(w, "resources");
  WriteResources(w, r.resources, nullptr);
  w.EndObject();
}

}  // namespace

std::string RenderJson(const ClusterView& view, const TargetPercent& targets) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  Str(w, "schemaVersion");
  w.Int(kJsonSchemaVersion);
  Str(w, "time");
  Str(w, kube::FormatRfc3339(view.now));
  Str(w, "sort");
  Str(w, view.sort);
  WriteMetrics(w, view);
  if (!targets.empty()) WriteTargets(w, targets);
  WriteSummary(w, view);
  if (!view.group_by.empty()) WriteGroups(w, view);
  Str(w, "nodes");
  w.StartArray();
  for (const NodeRow& r : view.rows) WriteNode(w, view, r);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace trimaran::dashboard
