#pragma once
// The what-if simulator: replays a trace (trace.h) on a simulated cluster for ONE
// scheduler profile, through the real scheduling library in-process
// (scheduler/explain's Explainer::Place: the profile's real plugins, the daemon's
// sched::SchedulePod with its percentageOfNodesToScore sampling and a deterministic
// tie-break), with the autoscaler model (autoscaler.h) and a simulated load watcher fed
// by the trace's usage, on virtual time. A pod no ready node has room for (CPU and
// memory requests free, a pod slot) is not run through the framework when the profile
// filters with NodeResourcesFit: that filter would reject every node.
//
//   TRIMARAN_ASSIGN_OR_RETURN(ProfileResult r,
//                             Simulate(pods, cluster, profile, registry, SimOptions{}));
//
// Memory follows the live pods, not the trace length: Simulate pulls each pod from its
// PodSource (pod_source.h: an in-memory vector, or a file streamed by pod_file_reader.h)
// when virtual time reaches its creation_time, holds it while it is pending or running,
// and drops it when it ends (ProfileResult::peak_pods_held). For the whole run it keeps
// only the report's aggregates and, for the pending-time percentiles, one double per pod
// that waited (pods bound on arrival are only counted), so the percentiles stay exact.
//
// The model (docs/simulator.md has the details):
//   - Time is virtual (a ManualClock the plugins and the cache read). Events happen at
//     their exact time: arrivals, ends (deletion_time, or bind + duration), nodes
//     becoming ready; the autoscaler scans every scan_interval (10 s); the load watcher
//     refreshes every sample_interval (60 s).
//   - Queue: pending pods are tried in priority order (higher first), then arrival. A
//     pod that does not fit waits and is tried again only after the cluster changed
//     (a pod ended or was evicted, a node became ready or went away).
//   - Binding is instant. Evicted pods (scale-down drains) go back to the queue with
//     the run time they had left.
//   - Reserve: the profile's Reserve plugins run for the chosen node, and deleted or
//     evicted pods go to the plugins' deletion listeners, as in the daemon (so
//     TargetLoadPacking counts the pods it placed that the metrics do not show yet).
//   - Load: each node's usage is its group's background usage plus the sum of its
//     pods' usage (the trace's profile or
//     constant usage, else the requests). Every sample_interval the simulated watcher
//     appends one sample per node and publishes one snapshot per window (15m, 10m, 5m;
//     load_windows.h): per node, CPU and Memory AVG and STD over that window (percent
//     of allocatable), stamped with that time; plugins read the window they request
//     until the next refresh, so it is up to 60 s stale as with the real watcher's
//     fetch period. A node younger than one sample has no data.
//
// Compaction: when SimOptions::compaction_trials > 0, every compaction_every seconds and
// once for the instant of the peak ready-node count, the nodes ready then and the pods
// running on them (priority, then largest first, then arrival) go to compaction.h's CompactAt (its
// own seeded generator, so the autoscaler's random stream is untouched); ProfileResult::compaction
// has the instants and the distribution.
//
// Determinism: same trace, cluster, profile and seed give the same result (the seed
// drives only the autoscaler's random tie-breaks).
//
// Errors: a profile whose plugins fail to build is the factory's error. A plugin error
// during a cycle is counted (ProfileResult::scheduler_errors) and the pod stays
// pending; the simulation goes on.
//
// Thread-safety: Simulate is reentrant (it owns its cluster, clock and frameworks).

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/framework/registry.h"
#include "scheduler/runtime/framework.h"
#include "sim/compaction.h"
#include "sim/pod_source.h"
#include "sim/trace.h"

namespace trimaran::sim {

struct SimOptions {
  uint64_t seed = 1;
  // Load-watcher refresh and metric sampling period (seconds).
  double sample_interval = 60;
  // Period of the report's timeline (seconds).
  double timeline_interval = 300;
  // A node is hot while its real CPU usage is above this fraction of allocatable for at
  // least hot_min_duration seconds (spec §B4 "Hot nodes").
  double hot_threshold = 0.8;
  double hot_min_duration = 300;
  // TargetLoadPacking's target (fraction): minutes above it are reported.
  double target_utilization = 0.4;
  // Stop here even if pods are still running (seconds; infinity: run to the end).
  double max_time = std::numeric_limits<double>::infinity();
  // Keep every binding in ProfileResult::placements (memory grows with the trace).
  bool record_placements = false;
  // Cluster compaction (compaction.h): permutations per instant (0: no compaction at
  // all), seconds between periodic instants (0: only the peak instant), and whether the
  // instant of the peak ready-node count is compacted too.
  int compaction_trials = 5;
  double compaction_every = 3600;
  bool compaction_at_peak = true;
};

struct Placement {
  double t = 0;
  std::string pod;
  std::string node;
};

// One timeline point.
struct TimelinePoint {
  double t = 0;
  int nodes = 0;  // ready + starting
  int pending = 0;
  int running = 0;
  double cost_per_hour = 0;
  double lower_bound_cost_per_hour = 0;
  double cpu_requested = 0;  // Σ requests / Σ allocatable of ready nodes
  double cpu_used = 0;       // Σ usage / Σ allocatable of ready nodes
};

struct ProfileResult {
  std::string profile;
  double end_time = 0;  // seconds of simulated time
  int pods = 0;
  int scheduled = 0;        // pods bound at least once
  int never_scheduled = 0;  // pods never bound (still pending at the end, or deleted first)
  int evicted = 0;          // evictions by scale-down drains
  int scheduler_errors = 0;
  std::string first_scheduler_error;
  int64_t scheduling_cycles = 0;
  // Of those, cycles decided without running the framework: no ready node had the pod's
  // CPU and memory requests free (and a pod slot), so the profile's NodeResourcesFit
  // filter would have rejected every node.
  int64_t cycles_without_room = 0;
  double node_hours = 0;
  double cost = 0;
  double cost_per_month = 0;  // mean $/h × 730
  int peak_nodes = 0;
  std::map<std::string, int> peak_nodes_by_group;
  int scale_up_events = 0;
  int nodes_added = 0;
  int scale_down_events = 0;
  int nodes_removed = 0;
  int consolidation_replacements = 0;    // Karpenter-style replace actions
  int consolidation_multi_node = 0;      // actions of the multi-node pass (delete or replace)
  int64_t consolidation_fit_checks = 0;  // consolidation moves checked through the profile
  // Load-aware plugins' fallbacks (trimaran_plugin_metrics_fallback_total), by
  // "plugin/reason" (node_missing, stale, bad_value, ...): node scores taken without
  // usable load-watcher data.
  std::map<std::string, int64_t> fallbacks;
  double pending_p50 = 0;  // seconds from arrival to first bind, over scheduled pods
  double pending_p99 = 0;
  double pending_max = 0;
  // ∫ LP lower-bound cost dt and its ratio to the cost (≤ 1).
  double lower_bound_cost = 0;
  double packing_efficiency = 0;
  // Single node group only: ∫ max_r ⌈Σ req_r / alloc_r⌉ dt in hours, and node_hours over it.
  double lower_bound_node_hours = 0;
  double node_hours_over_lower_bound = 0;
  double hot_node_minutes = 0;
  double above_100_cpu_node_minutes = 0;
  double above_target_node_minutes = 0;
  double memory_over_allocatable_node_minutes = 0;
  double peak_node_cpu_usage = 0;  // fraction of allocatable
  // Node CPU usage at each sample, in 10 % buckets (the last is ≥ 100 %).
  std::vector<int64_t> cpu_usage_histogram = std::vector<int64_t>(11, 0);
  std::vector<TimelinePoint> timeline;
  // Every binding in order, when SimOptions::record_placements.
  std::vector<Placement> placements;
  // Cluster compaction at the chosen instants (SimOptions::compaction_*).
  CompactionResult compaction;
  // The most pods the simulation held at once: pending and running, plus the source's
  // next pod read ahead. Not in the report (tests check that memory follows the live
  // pods).
  int64_t peak_pods_held = 0;
};

// The pods of `pods`, which must come by creation_time ascending: a source error (a
// malformed row, a pod out of order) is Simulate's error.
absl::StatusOr<ProfileResult> Simulate(PodSource& pods, const ClusterSpec& cluster,
                                       const sched::ProfileConfig& profile,
                                       const sched::Registry& registry, const SimOptions& options);
// An in-memory trace: its pods by creation_time (a copy is stable-sorted first when the
// vector is not sorted as ParsePods returns it).
absl::StatusOr<ProfileResult> Simulate(const std::vector<TracePod>& pods,
                                       const ClusterSpec& cluster,
                                       const sched::ProfileConfig& profile,
                                       const sched::Registry& registry, const SimOptions& options);

// The LP lower bound on the cost per hour of capacity for demand (cpu, memory): min
// Σ price_k x_k s.t. Σ alloc_kr x_k ≥ D_r, x ≥ 0, solved by enumerating single types
// and type pairs (spec §B4). 0 for zero demand.
double LowerBoundCostPerHour(const std::vector<NodeGroup>& groups, double cpu_milli,
                             double memory_mib);

}  // namespace trimaran::sim
