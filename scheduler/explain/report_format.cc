#include "scheduler/explain/report_format.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    absl::StrAppend(&out, line, "\n");
  }
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
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto str = [&](absl::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  auto key = [&](absl::string_view s) {
    w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  key("schemaVersion");
  w.Int(kReportSchemaVersion);
  key("pod");
  w.StartObject();
  key("namespace");
  str(r.pod_namespace);
  key("name");
  str(r.pod_name);
  w.EndObject();
  key("profile");
  str(r.profile);
  key("now");
  str(kube::FormatRfc3339(r.now));
  key("nowSource");
  str(r.now_source);
  key("metrics");
  if (r.metrics.has_value()) {
    w.StartObject();
    key("timestamp");
    w.Int64(r.metrics->timestamp);
    key("source");
    str(r.metrics->source);
    key("window");
    str(r.metrics->window.duration);
    key("hosts");
    w.Uint64(r.metrics->data.node_metrics_map.size());
    w.EndObject();
  } else {
    w.Null();
  }
  key("scorePlugins");
  w.StartArray();
  for (const auto& [name, weight] : r.score_plugins) {
    w.StartObject();
    key("name");
    str(name);
    key("weight");
    w.Int64(weight);
    w.EndObject();
  }
  w.EndArray();
  key("nodes");
  w.StartArray();
  for (const NodeReport& n : r.nodes) {
    w.StartObject();
    key("name");
    str(n.name);
    key("feasible");
    w.Bool(n.feasible);
    key("rank");
    if (n.feasible) {
      w.Int(n.rank);
    } else {
      w.Null();
    }
    key("filter");
    w.StartObject();
    key("code");
    str(n.code);
    key("plugin");
    str(n.plugin);
    key("reasons");
    w.StartArray();
    for (const std::string& reason : n.reasons) str(reason);
    w.EndArray();
    key("message");
    str(absl::StrJoin(n.reasons, ", "));
    w.EndObject();
    key("scores");
    w.StartArray();
    for (const PluginScore& s : n.scores) {
      w.StartObject();
      key("plugin");
      str(s.plugin);
      key("weight");
      w.Int64(s.weight);
      key("skipped");
      w.Bool(s.skipped);
      key("score");
      w.Int64(s.score);
      key("exact");
      if (s.exact.has_value() && std::isfinite(*s.exact)) {
        w.Double(*s.exact);
      } else {
        w.Null();
      }
      key("weighted");
      w.Int64(s.weight * s.score);
      w.EndObject();
    }
    w.EndArray();
    key("total");
    if (n.feasible) {
      w.Int64(n.total);
    } else {
      w.Null();
    }
    key("exactTotal");
    if (n.feasible) {
      w.Double(n.exact_total);
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
  key("chosen");
  if (r.chosen.empty()) {
    w.Null();
  } else {
    str(r.chosen);
  }
  key("decidedBy");
  str(r.decided_by);
  key("tiedNodes");
  w.StartArray();
  for (const std::string& t : r.tied) str(t);
  w.EndArray();
  key("notes");
  w.StartArray();
  for (const std::string& note : r.notes) str(note);
  w.EndArray();
  if (r.preemption.has_value()) {
    key("preemption");
    w.StartObject();
    key("wouldPreempt");
    w.Bool(r.preemption->would_preempt);
    key("node");
    str(r.preemption->node);
    key("victims");
    w.StartArray();
    for (const std::string& v : r.preemption->victims) str(v);
    w.EndArray();
    key("pdbViolations");
    w.Int64(r.preemption->pdb_violations);
    key("candidateNodes");
    w.Int(r.preemption->candidates);
    key("message");
    str(r.preemption->message);
    w.EndObject();
  }
  // Only when a plugin explained its state (keeps reports without them as they were).
  if (!r.plugin_state.empty()) {
    key("pluginState");
    w.StartObject();
    for (const auto& [plugin, rows] : r.plugin_state) {
      key(plugin);
      w.StartArray();
      for (const StateCount& row : rows) {
        w.StartObject();
        key("table");
        str(row.table);
        key("key");
        str(row.key);
        key("value");
        str(row.value);
        key("count");
        w.Int64(row.count);
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndObject();
  return absl::StrCat(absl::string_view(buffer.GetString(), buffer.GetSize()), "\n");
}

}  // namespace trimaran::sched::explain
