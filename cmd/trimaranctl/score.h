#pragma once
// `trimaranctl score`: answers "why did my pod land there?" offline, from one JSON file
// (docs/trimaranctl.md documents the format, the flags and both outputs).
//
//   TRIMARAN_ASSIGN_OR_RETURN(ScoreInput input, ParseScoreInput(json_text));
//   TRIMARAN_ASSIGN_OR_RETURN(ScoreReport report, RunScore(input, ScoreOptions{}));
//   std::cout << FormatTable(report);   // or FormatJson(report)
//
// RunScore runs the REAL scheduling framework (scheduler/runtime Framework, the in-tree
// plugins of scheduler/plugins/registry.h) for one profile of the file's
// KubeSchedulerConfiguration, parsed, defaulted, validated and expanded by
// scheduler/config exactly as the daemon does, over a Snapshot built by the real cache
// (scheduler/backend/cache) from the file's nodes and assigned pods. Unlike the daemon it
// evaluates EVERY node (no percentageOfNodesToScore sampling, no early stop), scores
// every feasible node even when only one fits, and breaks ties deterministically:
// highest weighted total, then (when the profile's exact tie-break is on, the default)
// the highest weighted exact total, then the smallest node name; the daemon picks at
// random among nodes still tied, which the report says.
//
// Load-aware plugins (TargetLoadPacking, ...) read the file's load-watcher metrics: the
// Handle's load_watcher() and every load_watcher_sources() client (in-process or remote,
// whatever the args say) serve that one snapshot. The Clock is frozen at the file's
// `now`, else the metrics timestamp, else the Unix epoch, so a report is reproducible.
//
// Errors: bad input is InvalidArgument whose message starts with the JSON path of the
// offending value ("nodes[2].status.capacity.cpu: invalid quantity ..."). A plugin
// error (kError from PreFilter/PreScore/Score) is Internal naming the plugin. A pod that
// fits nowhere is NOT an error: the report shows every node's rejection.
//
// Thread-safety: pure functions (RunScore builds and destroys its own framework; the
// plugins run on the calling thread).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "loadwatcher/metrics.h"
#include "scheduler/framework/registry.h"

namespace trimaran::cmd::trimaranctl {

// The version of the `-o json` schema (its "schemaVersion" field).
inline constexpr int kReportSchemaVersion = 1;

// The parsed input file.
struct ScoreInput {
  std::vector<kube::Node> nodes;
  // Pods already on the nodes (spec.nodeName names one of `nodes`).
  std::vector<kube::Pod> pods;
  // The pod being scheduled.
  kube::Pod pod;
  // The load-watcher snapshot (`metrics`), if any.
  std::optional<lw::WatcherMetrics> metrics;
  // The KubeSchedulerConfiguration text (YAML or JSON); empty: the daemon's built-in
  // default (the v1 default plugins in one profile named kDefaultProfileName).
  std::string scheduler_config;
  // `now`, if given.
  std::optional<absl::Time> now;
};

// Parses the file's text. InvalidArgument naming the JSON path on any schema error.
absl::StatusOr<ScoreInput> ParseScoreInput(absl::string_view json);

struct ScoreOptions {
  // The profile (schedulerName) to run; empty: the pod's spec.schedulerName if a
  // profile has that name, else the first profile.
  std::string profile;
  // The plugins: the configuration is validated and expanded with this registry and the
  // framework is built from it; nullptr: the in-tree registry
  // (plugins::RegisterInTreePlugins), as the daemon. Tests pass their own.
  const sched::Registry* registry = nullptr;
};

// The profile name of the configuration used when the file has no `schedulerConfig`:
// the daemon's built-in default (cmd/scheduler/app.h, kDefaultProfileName).
inline constexpr char kDefaultProfileName[] = "trimaran";

struct PluginScore {
  std::string plugin;
  // The resolved weight (never 0).
  int64_t weight = 1;
  // After NormalizeScore, before the weight; 0 when skipped.
  int64_t score = 0;
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

struct ScoreReport {
  std::string pod_namespace;
  std::string pod_name;
  std::string profile;
  absl::Time now = absl::UnixEpoch();
  // Where `now` came from: "now", "metrics.timestamp" or "default".
  std::string now_source;
  std::optional<lw::WatcherMetrics> metrics;  // the file's, for the header
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
  // Human-readable remarks (ignored fields, what the daemon would do differently, which
  // metrics sources plugins asked for).
  std::vector<std::string> notes;
};

// Runs the framework as described in the header comment.
absl::StatusOr<ScoreReport> RunScore(const ScoreInput& input, const ScoreOptions& options);

// The default output: a header, one row per node, the chosen node and the notes.
std::string FormatTable(const ScoreReport& report);
// The `-o json` output (schema in docs/trimaranctl.md), one compact line + "\n".
std::string FormatJson(const ScoreReport& report);

// The whole CLI: `args` are argv[1..]. Writes to `out`/`err`; returns the exit code
// (0 ok, 1 on any error, including usage errors). Reads the file named in the args ("-"
// is standard input).
int RunTrimaranctl(const std::vector<std::string>& args, std::string& out, std::string& err);

// The `--help` text of `trimaranctl` and of `trimaranctl score`.
std::string HelpText();

}  // namespace trimaran::cmd::trimaranctl
