#pragma once
// The input of `trimaranctl score` and the run over it: answers "why did my pod land
// there?" offline, from one JSON file (docs/trimaranctl.md documents the format, the
// flags and both outputs). The command (cmd/trimaranctl/score.h) is a thin driver: flags,
// the file, and one of the report's forms.
//
//   TRIMARAN_ASSIGN_OR_RETURN(ScoreInput input, ParseScoreInput(json_text));
//   TRIMARAN_ASSIGN_OR_RETURN(Report report, RunScore(input, ScoreOptions{}));
//   std::cout << FormatTable(report);   // or FormatJson(report), report_format.h
//
// RunScore parses, defaults, validates and expands the file's KubeSchedulerConfiguration
// with scheduler/config exactly as the daemon does, loads the file's nodes and assigned
// pods into an Explainer (explainer.h: the real cache and snapshot) and explains one
// cycle of the daemon's own algorithm (sched::SchedulePod with evaluate_all_nodes and a
// deterministic tie-break: every node gets a verdict, every feasible node is scored even
// when only one fits, and nodes still tied go to the smallest name; the daemon picks at
// random among them, which the report says).
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

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kube/api/node.h"
#include "kube/api/pod.h"
#include "kube/api/selector_object.h"
#include "kube/api/storage.h"
#include "loadwatcher/metrics.h"
#include "scheduler/explain/report.h"
#include "scheduler/framework/registry.h"

namespace trimaran::sched::explain {

// The parsed input file.
struct ScoreInput {
  std::vector<kube::Node> nodes;
  // Pods already on the nodes (spec.nodeName names one of `nodes`).
  std::vector<kube::Pod> pods;
  // The pod being scheduled.
  kube::Pod pod;
  // Namespaces, services, replication controllers, replica sets and stateful sets
  // ("namespaces", "services", "replicationControllers", "replicaSets", "statefulSets"):
  // what InterPodAffinity's namespaceSelector and PodTopologySpread's default
  // constraints read.
  std::vector<std::pair<kube::SelectorResource, kube::SelectorObject>> objects;
  // PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes, CSIDrivers and
  // CSIStorageCapacities ("persistentVolumes", "persistentVolumeClaims",
  // "storageClasses", "csiNodes", "csiDrivers", "csiStorageCapacities"): what the volume
  // plugins read.
  std::vector<kube::StorageObject> storage;
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
  const Registry* registry = nullptr;
};

// The profile name of the configuration used when the file has no `schedulerConfig`:
// the daemon's built-in default (cmd/scheduler/app.h, kDefaultProfileName).
inline constexpr char kDefaultProfileName[] = "trimaran";

// Runs the framework as described in the header comment.
absl::StatusOr<Report> RunScore(const ScoreInput& input, const ScoreOptions& options);

}  // namespace trimaran::sched::explain
