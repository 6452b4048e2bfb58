#pragma once
// The report of one explained scheduling cycle: every node's filter verdict, every
// score plugin's score, the weighted totals, the ranking and the chosen node, plus
// remarks on what the daemon would do differently. Produced by Explainer (explainer.h),
// printed by FormatTable / FormatJson (report_format.h); `trimaranctl score` prints it.
//
// Thread-safety: plain data.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "loadwatcher/metrics.h"
#include "scheduler/framework/interface.h"

namespace trimaran::sched::explain {

// The version of the JSON schema (FormatJson's "schemaVersion" field).
inline constexpr int kReportSchemaVersion = 1;

struct PluginScore {
  std::string plugin;
  // The resolved weight (never 0).
  int64_t weight = 1;
  // After NormalizeScore, before the weight; 0 when skipped.
  int64_t score = 0;
  // What Score returned, before NormalizeScore; 0 when skipped.
  int64_t raw_score = 0;
  // The plugin's exact score, when it reported one (ScoreResult::exact).
  std::optional<double> exact;
  // The plugin returned Skip at PreScore for this pod (it counts 0).
  bool skipped = false;
};

struct NodeReport {
  std::string name;
  bool feasible = false;
  // The filter verdict: "Success", "Unschedulable", "UnschedulableAndUnresolvable",
  // "Pending" or "Error" (sched::CodeName).
  std::string code = "Success";
  // The rejecting plugin ("" when feasible).
  std::string plugin;
  // The plugin's reasons (its status message is these joined with ", ").
  std::vector<std::string> reasons;
  // Feasible nodes only, in the profile's score-plugin order.
  std::vector<PluginScore> scores;
  int64_t total = 0;
  double exact_total = 0;
  // 1-based position among feasible nodes in selection order; 0 when infeasible.
  int rank = 0;
};

struct Report {
  std::string pod_namespace;
  std::string pod_name;
  std::string profile;
  absl::Time now = absl::UnixEpoch();
  // Where `now` came from (the caller's words: "now", "metrics.timestamp", ...).
  std::string now_source;
  std::optional<lw::WatcherMetrics> metrics;  // for the header, when the caller sets it
  // The profile's score plugins and resolved weights, in order.
  std::vector<std::pair<std::string, int64_t>> score_plugins;
  // Feasible nodes by rank, then infeasible nodes by name.
  std::vector<NodeReport> nodes;
  // The selected node ("" when none fits).
  std::string chosen;
  // How the choice was made: "nominated" (status.nominatedNodeName fits, the daemon takes
  // it without scoring), "only-feasible-node", "highest-total", "exact-total",
  // "node-name" (a tie on totals that only the name broke), "" when none fits.
  std::string decided_by;
  // Nodes tied with the chosen one on the weighted total (including it) when more than
  // one.
  std::vector<std::string> tied;
  // Human-readable remarks (what the daemon would do differently, which metrics sources
  // plugins asked for; callers add their own in front).
  std::vector<std::string> notes;
  // The counts behind the decisions of plugins that explain their cycle state
  // (StateExplainer: InterPodAffinity, PodTopologySpread), by plugin in profile order;
  // plugins that wrote no state are left out.
  std::vector<std::pair<std::string, std::vector<StateCount>>> plugin_state;
  // When no node fits and the profile's PostFilter preempts (DefaultPreemption): what it
  // would do, from a dry run (no API call).
  std::optional<PreemptionPreview> preemption;
};

}  // namespace trimaran::sched::explain
