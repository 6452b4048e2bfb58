#include "scheduler/explain/report_format.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/json_write.h"
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

// "pod", "profile", "now", "nowSource".
void WritePodAndProfile(JsonWriter& w, const Report& r) {
  JsonKey(w, "pod");
  w.StartObject();
  JsonStringField(w, "namespace", r.pod_namespace);
  JsonStringField(w, "name", r.pod_name);
  w.EndObject();
  JsonStringField(w, "profile", r.profile);
  JsonStringField(w, "now", kube::FormatRfc3339(r.now));
  JsonStringField(w, "nowSource", r.now_source);
}

void WriteMetrics(JsonWriter& w, const Report& r) {
  JsonKey(w, "metrics");
  if (!r.metrics.has_value()) {
    w.Null();
    return;
  }
  w.StartObject();
  JsonIntField(w, "timestamp", r.metrics->timestamp);
  JsonStringField(w, "source", r.metrics->source);
  JsonStringField(w, "window", r.metrics->window.duration);
  JsonUintField(w, "hosts", r.metrics->data.node_metrics_map.size());
  w.EndObject();
}

void WriteScorePlugins(JsonWriter& w, const Report& r) {
  JsonKey(w, "scorePlugins");
  w.StartArray();
  for (const auto& [name, weight] : r.score_plugins) {
    w.StartObject();
    JsonStringField(w, "name", name);
    JsonIntField(w, "weight", weight);
    w.EndObject();
  }
  w.EndArray();
}

void WriteFilter(JsonWriter& w, const NodeReport& n) {
  JsonKey(w, "filter");
  w.StartObject();
  JsonStringField(w, "code", n.code);
  JsonStringField(w, "plugin", n.plugin);
  JsonStringArrayField(w, "reasons", n.reasons);
  JsonStringField(w, "message", absl::StrJoin(n.reasons, ", "));
  w.EndObject();
}

void WriteScore(JsonWriter& w, const PluginScore& s) {
  w.StartObject();
  JsonStringField(w, "plugin", s.plugin);
  JsonIntField(w, "weight", s.weight);
  JsonBoolField(w, "skipped", s.skipped);
  JsonIntField(w, "score", s.score);
  JsonFieldOrNull(w, "exact", s.exact.has_value() && std::isfinite(*s.exact),
                  [&] { w.Double(*s.exact); });
  JsonIntField(w, "weighted", s.weight * s.score);
  w.EndObject();
}

void WriteNode(JsonWriter& w, const NodeReport& n) {
  w.StartObject();
  JsonStringField(w, "name", n.name);
  JsonBoolField(w, "feasible", n.feasible);
  JsonFieldOrNull(w, "rank", n.feasible, [&] { w.Int(n.rank); });
  WriteFilter(w, n);
  JsonKey(w, "scores");
  w.StartArray();
  for (const PluginScore& s : n.scores) WriteScore(w, s);
  w.EndArray();
  JsonFieldOrNull(w, "total", n.feasible, [&] { w.Int64(n.total); });
  JsonFieldOrNull(w, "exactTotal", n.feasible, [&] { w.Double(n.exact_total); });
  w.EndObject();
}

// "chosen", "decidedBy", "tiedNodes", "notes".
void WriteDecision(JsonWriter& w, const Report& r) {
  JsonFieldOrNull(w, "chosen", !r.chosen.empty(), [&] { JsonString(w, r.chosen); });
  JsonStringField(w, "decidedBy", r.decided_by);
  JsonStringArrayField(w, "tiedNodes", r.tied);
  JsonStringArrayField(w, "notes", r.notes);
}

void WritePreemption(JsonWriter& w, const PreemptionPreview& p) {
  JsonKey(w, "preemption");
  w.StartObject();
  JsonBoolField(w, "wouldPreempt", p.would_preempt);
  JsonStringField(w, "node", p.node);
  JsonStringArrayField(w, "victims", p.victims);
  JsonIntField(w, "pdbViolations", p.pdb_violations);
  JsonIntField(w, "candidateNodes", p.candidates);
  JsonStringField(w, "message", p.message);
  w.EndObject();
}

void WritePluginState(JsonWriter& w, const Report& r) {
  JsonKey(w, "pluginState");
  w.StartObject();
  for (const auto& [plugin, rows] : r.plugin_state) {
    JsonKey(w, plugin);
    w.StartArray();
    for (const StateCount& row : rows) {
      w.StartObject();
      JsonStringField(w, "table", row.table);
      JsonStringField(w, "key", row.key);
      JsonStringField(w, "value", row.value);
      JsonIntField(w, "count", row.count);
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
  JsonIntField(w, "schemaVersion", kReportSchemaVersion);
  WritePodAndProfile(w, r);
  WriteMetrics(w, r);
  WriteScorePlugins(w, r);
  JsonKey(w, "nodes");
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
