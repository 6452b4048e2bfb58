#pragma once
// The simulator's input: the project's own trace format (docs/simulator.md), after the
// recommended format of spec dashboard-and-simulator.md §B5.
//
//   pods   CSV with a header, or JSONL with the same keys: one pod instance per row.
//          Seconds from trace start; millicores; MiB.
//   groups YAML: node groups (instance type, shape, price, min/max, start-up delay) and
//          the autoscaler's settings.
//
//   TRIMARAN_ASSIGN_OR_RETURN(std::vector<TracePod> pods, ParsePodsCsv(text, "pods.csv"));
//   TRIMARAN_ASSIGN_OR_RETURN(ClusterSpec cluster, ParseClusterYaml(text, "groups.yaml"));
//
// Parsing is strict: an unknown column or key, a missing required value, a malformed
// number, a negative size or a duplicate pod name is InvalidArgument naming the file and
// the line ("pods.csv:12: cpu_milli: not an integer: \"x\"").
//
// Thread-safety: pure functions over plain values.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace trimaran::sim {

// One point of a pod's usage profile: from `t` seconds after the pod started (bound)
// until the next point, the pod uses this much (step interpolation).
struct UsagePoint {
  double t = 0;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  friend bool operator==(const UsagePoint&, const UsagePoint&) = default;
};

struct TracePod {
  std::string name;
  // Arrival, seconds from trace start.
  double creation_time = 0;
  // Absolute end (the pod is deleted then, bound or not), or run time counted from bind
  // (a late start ends late). Neither: runs to the end of the simulation.
  std::optional<double> deletion_time;
  std::optional<double> duration;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int32_t priority = 0;
  // Job or app, and role (driver, executor, service): labels "group" and "role".
  std::string group;
  std::string role;
  std::map<std::string, std::string> labels;
  // Constant usage when `usage` is empty; unset: the requests.
  std::optional<int64_t> cpu_use_milli;
  std::optional<int64_t> memory_use_mib;
  // The usage profile (time from bind, ascending).
  std::vector<UsagePoint> usage;
  // Recorded in the source trace and carried through (an importer fills them, the CSV
  // and JSONL round-trip them); the simulator does not model them yet.
  std::optional<int64_t> cpu_limit_milli;
  std::optional<int64_t> cpu_use_max_milli;
  int64_t num_gpu = 0;
  int64_t gpu_milli = 0;
  std::string gpu_spec;
  std::string qos;
  // Tasks that must finish first, as "group/role" (Alibaba v2018 DAG edges).
  std::vector<std::string> depends_on;
  // The recorded placement: the node and the bind time (s from trace start).
  std::string orig_node;
  std::optional<double> scheduled_time;
  // The line the pod came from (for messages).
  int line = 0;

  // Usage `since_start` seconds after bind.
  UsagePoint UsageAt(double since_start) const;
};

// Pods CSV: a header row naming columns (any order), then one row per pod. Columns:
// name, creation_time, deletion_time, duration, cpu_milli, memory_mib, priority, group,
// role, labels ("k=v;k=v"), cpu_use_milli, memory_use_mib, usage ("t:cpu:mem;..."),
// scheduler_name (accepted and ignored: the simulator runs every profile), and the
// recorded-only columns cpu_limit_milli, cpu_use_max_milli, num_gpu, gpu_milli, gpu_spec,
// qos, depends_on ("group/role;..."), orig_node, scheduled_time. Empty cells are unset. Blank lines
// and lines starting with '#' are skipped.
absl::StatusOr<std::vector<TracePod>> ParsePodsCsv(absl::string_view text, absl::string_view file);
// Pods JSONL: one JSON object per line with the CSV's keys; "labels" is an object and
// "usage" an array of {"t", "cpu_milli", "memory_mib"}.
absl::StatusOr<std::vector<TracePod>> ParsePodsJsonl(absl::string_view text,
                                                     absl::string_view file);
// By extension: ".csv" or ".jsonl"/".json"; InvalidArgument otherwise.
absl::StatusOr<std::vector<TracePod>> ParsePods(absl::string_view text, absl::string_view file);

// The row parsers the whole-file parsers above and the streaming reader
// (pod_file_reader.h) share. Each checks one row as strictly as the whole-file parsers
// do, except that pod names are unique: that is the caller's (it needs every name seen).
// Errors name `file` and `line_no`.
//
// Whether a pods line is skipped: blank, or (CSV only) starting with '#'.
bool IsSkippedPodsLine(absl::string_view line, bool csv);
// The CSV header row: the columns, in order.
absl::StatusOr<std::vector<std::string>> ParsePodsCsvHeader(absl::string_view line,
                                                            absl::string_view file, int line_no);
// One CSV row under `header`.
absl::StatusOr<TracePod> ParsePodsCsvRow(const std::vector<std::string>& header,
                                         absl::string_view line, absl::string_view file,
                                         int line_no);
// One JSONL line.
absl::StatusOr<TracePod> ParsePodsJsonlLine(absl::string_view line, absl::string_view file,
                                            int line_no);

struct NodeGroup {
  std::string name;
  std::string instance_type;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t pods = 110;
  double price_per_hour = 0;
  int min = 0;
  int max = 0;
  // Nodes created at the start (already ready); default: min.
  int initial = 0;
  // Seconds from the scale-up decision until the node is ready.
  double startup_delay = 180;
  std::map<std::string, std::string> labels;
  // Usage of each node of the group besides the trace's pods (system daemons, pods the
  // trace does not list): added to every sample the simulated load watcher takes of the
  // node. Default 0.
  int64_t background_cpu_milli = 0;
  int64_t background_memory_mib = 0;
};

enum class Expander { kLeastWaste, kPrice, kMostPods, kLeastNodes, kRandom };
absl::string_view ExpanderName(Expander e);

// Karpenter's consolidationPolicy; kNone: Cluster Autoscaler's scale-down instead.
enum class Consolidation { kNone, kWhenEmpty, kWhenEmptyOrUnderutilized };
absl::string_view ConsolidationName(Consolidation c);

// The autoscaler's settings: Cluster Autoscaler's defaults (spec §B3.1, §B3.3).
struct AutoscalerConfig {
  bool enabled = true;
  Expander expander = Expander::kLeastWaste;
  double scan_interval = 10;                      // --scan-interval
  double scale_down_unneeded_time = 600;          // --scale-down-unneeded-time
  double scale_down_utilization_threshold = 0.5;  // --scale-down-utilization-threshold
  double scale_down_delay_after_add = 600;        // --scale-down-delay-after-add
  int max_empty_bulk_delete = 10;                 // --max-empty-bulk-delete
  int max_drain_parallelism = 1;                  // --max-drain-parallelism
  int max_nodes_per_scale_up = 1000;              // --max-nodes-per-scaleup
  // Karpenter-style consolidation instead of CA's scale-down (consolidation.h).
  Consolidation consolidation = Consolidation::kNone;
  double consolidate_after = 0;  // consolidateAfter
};

struct ClusterSpec {
  std::vector<NodeGroup> groups;
  AutoscalerConfig autoscaler;
};

// YAML:
//   nodeGroups:
//   - {name: m5-xlarge, instanceType: m5.xlarge, cpuMilli: 4000, memoryMiB: 16384,
//      pods: 110, pricePerHour: 0.192, min: 0, max: 50, initial: 1, startupDelay: 180,
//      labels: {k: v}, backgroundCpuMilli: 0, backgroundMemoryMiB: 0}
//   autoscaler: {enabled: true, expander: least-waste, scanInterval: 10,
//      scaleDownUnneededTime: 600, scaleDownUtilizationThreshold: 0.5,
//      scaleDownDelayAfterAdd: 600, maxEmptyBulkDelete: 10, maxDrainParallelism: 1,
//      consolidation: None | WhenEmpty | WhenEmptyOrUnderutilized, consolidateAfter: 0}
absl::StatusOr<ClusterSpec> ParseClusterYaml(absl::string_view text, absl::string_view file);

// The cluster used without --node-groups: one group "default" of 4-CPU/16 GiB nodes at
// $0.192/h (m5.xlarge, us-east-1 on demand), 0..1000 nodes, CA defaults.
ClusterSpec DefaultClusterSpec();

}  // namespace trimaran::sim
