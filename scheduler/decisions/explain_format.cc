#include "scheduler/decisions/explain_format.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/text_table.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace trimaran::sched::decisions {
namespace {

std::string PodKey(const kube::Pod& pod) {
  return absl::StrCat(pod.metadata.namespace_name, "/", pod.metadata.name);
}

// The newest Bound decision, or null.
const Decision* LastBound(const DecisionList& list) {
  for (const Decision& d : list.decisions) {
    if (d.result == DecisionResult::kBound) return &d;
  }
  return nullptr;
}

std::string Outcome(const Decision& d) {
  switch (d.result) {
    case DecisionResult::kBound:
      return absl::StrCat("bound to ", d.node);
    case DecisionResult::kNominated:
      return absl::StrCat("no node fits; preemption nominated ", d.node);
    case DecisionResult::kUnschedulable:
      return "unschedulable: no node fits";
    case DecisionResult::kError:
      return "error";
  }
  return "";
}

std::string AgreementLine(const kube::Pod& pod, const DecisionList& list) {
  const Decision* bound = LastBound(list);
  const std::string& now = pod.spec.node_name;
  if (bound == nullptr) {
    return now.empty() ? "not bound" : absl::StrCat(now, " (bound by no decision in the ring)");
  }
  if (now == bound->node) return absl::StrCat(now, " (agrees with the decision)");
  if (now.empty()) return absl::StrCat("not bound (the decision bound it to ", bound->node, ")");
  return absl::StrCat(now, " (DIFFERS from the decision's ", bound->node, ")");
}

void AppendTopTable(const Decision& d, std::string& out) {
  // Plugin columns in the order they first appear.
  std::vector<std::string> plugins;
  for (const TopNode& t : d.top) {
    for (const auto& [name, score] : t.scores) {
      if (std::find(plugins.begin(), plugins.end(), name) == plugins.end()) {
        plugins.push_back(name);
      }
    }
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"RANK", "NODE"};
  header.insert(header.end(), plugins.begin(), plugins.end());
  header.push_back("TOTAL");
  rows.push_back(header);
  int rank = 0;
  for (const TopNode& t : d.top) {
    std::vector<std::string> row = {absl::StrCat(++rank), t.node};
    for (const std::string& p : plugins) {
      auto it = std::find_if(t.scores.begin(), t.scores.end(),
                             [&](const auto& s) { return s.first == p; });
      row.push_back(it == t.scores.end() ? "-" : absl::StrCat(it->second));
    }
    row.push_back(absl::StrCat(t.total));
    if (t.node == d.node && (d.result == DecisionResult::kBound || rank == 1)) {
      row.back() += "  <- chosen";
    }
    rows.push_back(std::move(row));
  }
  AppendAlignedTable(rows, out);
}

}  // namespace

std::string FormatExplainTable(const kube::Pod& pod, const DecisionList& list) {
  std::string out;
  if (list.decisions.empty()) return out;
  const Decision& d = list.decisions.front();
  absl::StrAppend(&out, "Pod:       ", PodKey(pod), "\n");
  absl::StrAppend(&out, "Profile:   ", d.profile, "\n");
  absl::StrAppend(&out, "Decided:   ", FormatDecisionTime(d.time), " (", Outcome(d), ")\n");
  absl::StrAppend(&out, "Node now:  ", AgreementLine(pod, list), "\n");
  absl::StrAppend(&out, "Nodes:     ", d.evaluated_nodes, " evaluated, ", d.feasible_nodes,
                  " feasible\n");
  if (d.fallbacks.empty()) {
    absl::StrAppend(&out, "Fallbacks: none\n");
  } else {
    absl::StrAppend(&out, "Fallbacks: ", absl::StrJoin(d.fallbacks, "\n           "), "\n");
  }
  if (!d.message.empty()) absl::StrAppend(&out, "Message:   ", d.message, "\n");
  out += "\n";
  if (d.top.empty()) {
    absl::StrAppend(&out, "No node was scored in this attempt.\n");
  } else if (d.top.size() == 1 && d.top[0].scores.empty()) {
    absl::StrAppend(&out, "Not scored: ", d.top[0].node,
                    d.feasible_nodes == 1 ? " was the only node that fits.\n"
                                          : " was the pod's nominated node.\n");
  } else {
    AppendTopTable(d, out);
    absl::StrAppend(&out,
                    "\nTOTAL = sum of weight x score (the weighted scores the scheduler summed); "
                    "the best ",
                    d.top.size(), " of ", d.feasible_nodes, " feasible node(s)\n");
  }
  if (list.decisions.size() > 1) {
    absl::StrAppend(&out, "\nEarlier attempts (newest first):\n");
    for (size_t i = 1; i < list.decisions.size(); ++i) {
      const Decision& e = list.decisions[i];
      absl::StrAppend(&out, "  ", FormatDecisionTime(e.time), "  ", DecisionResultName(e.result),
                      e.node.empty() ? "" : absl::StrCat("  ", e.node),
                      e.message.empty() ? "" : absl::StrCat("  ", e.message), "\n");
    }
  }
  return out;
}

std::string FormatExplainJson(const kube::Pod& pod, const DecisionList& list) {
  std::vector<std::shared_ptr<const Decision>> shared;
  for (const Decision& d : list.decisions) shared.push_back(std::make_shared<const Decision>(d));
  auto quoted = [](const std::string& s) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return std::string(buffer.GetString(), buffer.GetSize());
  };
  const Decision* bound = LastBound(list);
  std::string agrees = "null";
  if (bound != nullptr) agrees = bound->node == pod.spec.node_name ? "true" : "false";
  return absl::StrCat("{\"pod\":", quoted(PodKey(pod)), ",\"uid\":", quoted(pod.metadata.uid),
                      ",\"nodeName\":", quoted(pod.spec.node_name), ",\"nodeNameAgrees\":", agrees,
                      ",\"scheduler\":", EncodeDecisions(list.capacity, shared), "}\n");
}

std::string ExplainMissingDecision(const kube::Pod& pod, absl::string_view key, size_t capacity,
                                   const std::set<std::string>& ring_profiles) {
  const std::string& scheduler_name = pod.spec.scheduler_name;
  if (!ring_profiles.empty() && !ring_profiles.contains(scheduler_name)) {
    return absl::StrCat("pod ", key, " is not scheduled by trimaran: its schedulerName is \"",
                        scheduler_name,
                        "\", and the scheduler's recent decisions are for profile(s) ",
                        absl::StrJoin(ring_profiles, ", "));
  }
  return absl::StrCat(
      "no decision for pod ", key, " in the scheduler's ring (it keeps the last ", capacity,
      " decisions): ",
      pod.spec.node_name.empty()
          ? "the pod has not been attempted yet, or its decision was replaced by newer ones"
          : absl::StrCat("the pod (on ", pod.spec.node_name, ") was scheduled more than ", capacity,
                         " decisions ago, by another scheduler replica, or by another "
                         "scheduler"));
}

}  // namespace trimaran::sched::decisions
