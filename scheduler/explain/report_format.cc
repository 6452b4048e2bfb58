#include "scheduler/explain/report_format.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/text_table.h"
#include "kube/api/json_codec.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace trimaran::sched::explain {
namespace {

std::string Verdict(const NodeReport& n) {
  if (n.feasible) return "ok";
  std::string out = absl::StrCat(n.code, ": ", absl::StrJoin(n.reasons, ", "));
  if (!n.plugin.empty()) absl::StrAppend(&out, " (", n.plugin, ")");
  return out;
}

std::string DecisionText(const Report& r) {
  if (r.chosen.empty()) return "none: no node fits the pod";
  const NodeReport& c = r.nodes.front();
  if (r.decided_by == "nominated") return absl::StrCat(r.chosen, " (the pod's nominated node)");
  if (r.decided_by == "only-feasible-node")
    return absl::StrCat(r.chosen, " (the only node that fits)");
  if (r.decided_by == "highest-total") {
    return absl::StrCat(r.chosen, " (highest total ", c.total, ")");
  }
  std::string tied = absl::StrJoin(r.tied, ", ");
  if (r.decided_by == "exact-total") {
    return absl::StrCat(r.chosen, " (total ", c.total, " tied with ", tied,
                        "; broken by the highest exact total ",
                        absl::StrFormat("%.4f", c.exact_total), ")");
  }
  return absl::StrCat(r.chosen, " (total ", c.total, " tied with ", tied,
                      "; broken deterministically by the smallest node name)");
}

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void String(JsonWriter& w, absl::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void Key(JsonWriter& w, absl::string_view s) {
  w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void StringArray(JsonWriter& w, const std::vector<std::string>& values) {
  w.StartArray();
  for (const std::string& v : values) String(w, v);
  w.EndArray();
}

// "pod", "profile", "now", "nowSource".
void WritePodAndProfile(JsonWriter& w, const Report& r) {
  Key(w, "pod");
  w.StartObject();
  Key(w, "namespace");
  String(w, r.pod_namespace);
  Key(w, "name");
  String(w, r.pod_name);
  w.EndObject();
  Key(w, "profile");
  String(w, r.profile);
  Key(w, "now");
  String(w, kube::FormatRfc3339(r.now));
  Key(w, "nowSource");
  String(w, r.now_source);
}

void WriteMetrics(JsonWriter& w, const Report& r) {
  Key(w, "metrics");
  if (!r.metrics.has_value()) {
    w.Null();
    return;
  }
  w.StartObject();
  Key(w, "timestamp");
  w.Int64(r.metrics->timestamp);
  Key(w, "source");
  String(w, r.metrics->source);
  Key(w, "window");
  String(w, r.metrics->window.duration);
  Key(w, "hosts");
  w.Uint64(r.metrics->data.node_metrics_map.size());
  w.EndObject();
}

void WriteScorePlugins(JsonWriter& w, const Report& r) {
  Key(w, "scorePlugins");
  w.StartArray();
  for (const auto& [name, weight] : r.score_plugins) {
    w.StartObject();
    Key(w, "name");
    String(w, name);
    Key(w, "weight");
    w.Int64(weight);
    w.EndObject();
  }
  w.EndArray();
}

void WriteFilter(JsonWriter& w, const NodeReport& n) {
  Key(w, "filter");
  w.StartObject();
  Key(w, "code");
  String(w, n.code);
  Key(w, "plugin");
  String(w, n.plugin);
  Key(w, "reasons");
  StringArray(w, n.reasons);
  Key(w, "message");
  String(w, absl::StrJoin(n.reasons, ", "));
  w.EndObject();
}

void WriteScore(JsonWriter& w, const PluginScore& s) {
  w.StartObject();
  Key(w, "plugin");
  String(w, s.plugin);
  Key(w, "weight");
  w.Int64(s.weight);
  Key(w, "skipped");
  w.Bool(s.skipped);
  Key(w, "score");
  w.Int64(s.score);
  Key(w, "exact");
  if (s.exact.has_value() && std::isfinite(*s.exact)) {
    w.Double(*s.exact);
  } else {
    w.Null();
  }
  Key(w, "weighted");
  w.Int64(s.weight * s.score);
  w.EndObject();
}

void WriteNode(JsonWriter& w, const NodeReport& n) {
  w.StartObject();
  Key(w, "name");
  String(w, n.name);
  Key(w, "feasible");
  w.Bool(n.feasible);
  Key(w, "rank");
  if (n.feasible) {
    w.Int(n.rank);
  } else {
    w.Null();
  }
  WriteFilter(w, n);
  Key(w, "scores");
  w.StartArray();
  for (const PluginScore& s : n.scores) WriteScore(w, s);
  w.EndArray();
  Key(w, "total");
  if (n.feasible) {
    w.Int64(n.total);
  } else {
    w.Null();
  }
  Key(w, "exactTotal");
  if (n.feasible) {
    w.Double(n.exact_total);
  } else {
    w.Null();
  }
  w.EndObject();
}

// "chosen", "decidedBy", "tiedNodes", "notes".
void WriteDecision(JsonWriter& w, const Report& r) {
  Key(w, "chosen");
  if (r.chosen.empty()) {
    w.Null();
  } else {
    String(w, r.chosen);
  }
  Key(w, "decidedBy");
  String(w, r.decided_by);
  Key(w, "tiedNodes");
  StringArray(w, r.tied);
  Key(w, "notes");
  StringArray(w, r.notes);
}

void WritePreemption(JsonWriter& w, const PreemptionPreview& p) {
  Key(w, "preemption");
  w.StartObject();
  Key(w, "wouldPreempt");
  w.Bool(p.would_preempt);
  Key(w, "node");
  String(w, p.node);
  Key(w, "victims");
  StringArray(w, p.victims);
  Key(w, "pdbViolations");
  w.Int64(p.pdb_violations);
  Key(w, "candidateNodes");
  w.Int(p.candidates);
  Key(w, "message");
  String(w, p.message);
  w.EndObject();
}

void WritePluginState(JsonWriter& w, const Report& r) {
  Key(w, "pluginState");
  w.StartObject();
  for (const auto& [plugin, rows] : r.plugin_state) {
    Key(w, plugin);
    w.StartArray();
    for (const StateCount& row : rows) {
      w.StartObject();
      Key(w, "table");
      String(w, row.table);
      Key(w, "key");
      String(w, row.key);
      Key(w, "value");
      String(w, row.value);
      Key(w, "count");
      w.Int64(row.count);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

}  // namespace

std::string FormatTable(const Report& r) {
  std::string out;
  absl::StrAppend(&out, "Pod:      ", r.pod_namespace, "/", r.pod_name, "\n");
  absl::StrAppend(&out, "Profile:  ", r.profile, "\n");
  absl::StrAppend(&out, "Now:      ", kube::FormatRfc3339(r.now), " (from ", r.now_source, ")\n");
  if (r.metrics.has_value()) {
    absl::StrAppend(&out, "Metrics:  source ", r.metrics->source.empty() ? "-" : r.metrics->source,
                    ", window ",
                    r.metrics->window.duration.empty() ? "-" : r.metrics->window.duration, ", ",
                    r.metrics->data.node_metrics_map.size(), " host(s), timestamp ",
                    kube::FormatRfc3339(absl::FromUnixSeconds(r.metrics->timestamp)), "\n");
  } else {
    absl::StrAppend(&out, "Metrics:  none\n");
  }
  int feasible = 0;
  for (const NodeReport& n : r.nodes) feasible += n.feasible ? 1 : 0;
  absl::StrAppend(&out, "Nodes:    ", r.nodes.size(), " (", feasible, " fit)\n\n");

  // Rows of cells.
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"RANK", "NODE", "FILTER"};
  for (const auto& [name, weight] : r.score_plugins) {
    header.push_back(absl::StrCat(name, " (w=", weight, ")"));
  }
  header.push_back("TOTAL");
  rows.push_back(header);
  for (const NodeReport& n : r.nodes) {
    std::vector<std::string> row = {n.feasible ? absl::StrCat(n.rank) : "-", n.name, Verdict(n)};
    for (size_t p = 0; p < r.score_plugins.size(); ++p) {
      if (!n.feasible) {
        row.push_back("-");
      } else if (n.scores[p].skipped) {
        row.push_back("skip");
      } else {
        row.push_back(absl::StrCat(n.scores[p].score));
      }
    }
    row.push_back(n.feasible ? absl::StrCat(n.total) : "-");
    if (n.feasible && n.name == r.chosen) row.back() += "  <- chosen";
    rows.push_back(std::move(row));
  }
  AppendAlignedTable(rows, out);
  absl::StrAppend(&out, "\nTOTAL = sum of weight x score (scores after NormalizeScore, 0..100)\n");
  absl::StrAppend(&out, "Chosen: ", DecisionText(r), "\n");
  if (r.preemption.has_value()) {
    if (r.preemption->would_preempt) {
      absl::StrAppend(&out, "Preemption: would nominate ", r.preemption->node, " and evict ",
                      absl::StrJoin(r.preemption->victims, ", "), " (",
                      r.preemption->pdb_violations, " PodDisruptionBudget violation(s))\n");
    } else {
      absl::StrAppend(&out, "Preemption: would not help: ", r.preemption->message, "\n");
    }
  }
  if (!r.notes.empty()) {
    absl::StrAppend(&out, "Notes:\n");
    for (const std::string& note : r.notes) absl::StrAppend(&out, "  - ", note, "\n");
  }
  return out;
}

std::string FormatJson(const Report& r) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Key(w, "schemaVersion");
  w.Int(kReportSchemaVersion);
  WritePodAndProfile(w, r);
  WriteMetrics(w, r);
  WriteScorePlugins(w, r);
  Key(w, "nodes");
  w.StartArray();
  for (const NodeReport& n : r.nodes) WriteNode(w, n);
  w.EndArray();
  WriteDecision(w, r);
  if (r.preemption.has_value()) WritePreemption(w, *r.preemption);
  // Only when a plugin explained its state (keeps reports without them as they were).
  if (!r.plugin_state.empty()) WritePluginState(w, r);
  w.EndObject();
  return absl::StrCat(absl::string_view(buffer.GetString(), buffer.GetSize()), "\n");
}

}  // namespace trimaran::sched::explain
