#pragma once
// SchedulePod: the scheduling algorithm of one cycle (upstream's schedulePod,
// findNodesThatFitPod, findNodesThatPassFilters, prioritizeNodes and selectHost in
// pkg/scheduler/schedule_one.go; spec kube-scheduler.md §4):
//
//   PreFilter ─► [nominated node first] ─► Filter over a rotating window, in parallel,
//   stopping once NumFeasibleNodesToFind nodes fit ─► (0 fit: Diagnosis / FitError)
//   ─► (1 fits: it wins, no scoring) ─► PreScore ─► Score + Normalize + weights
//   ─► SelectHost.
//
// PostFilter (preemption), Reserve, Permit and the binding cycle are the caller's
// (the scheduler loop's) business, as upstream.
//
// The steps are upstream's functions: FindNodesThatFitPod (PreFilter, the nominated
// node, FindNodesThatPassFilters), PrioritizeNodes (PreScore, Score) and SelectHost.
//
// Tools (trimaranctl score through scheduler/explain; any later offline tool) run the SAME
// algorithm with ScheduleOptions: evaluate every node, break the last ties by name, and
// keep every node's verdict and every plugin's raw and normalized score (CycleDetails).
//
// Node sampling and packing: see NumFeasibleNodesToFind and ProfileConfig::packing. A
// packing profile with adaptive sampling scores every feasible node, because a rotating
// sample would usually not contain the fullest node.
//
// Host selection (SelectHost): the highest weighted integer total wins, exactly as
// upstream. Ties are broken first by the weighted exact total (ScoreResult::exact, when
// ProfileConfig::exact_tie_break), and only nodes still tied are picked uniformly at
// random (reservoir sampling, upstream's selectHost), from the seeded RandomSource.
//
// Cost: the Filter and Score loops allocate nothing per node and take no lock per node
// (buffers live in SchedulingAlgorithmState and are reused; early stop is an atomic
// counter). The Diagnosis (one map entry per rejected node) is built only when no node
// fits.
//
// Thread-safety: SchedulePod is called from the scheduling thread only (one cycle at a
// time per SchedulingAlgorithmState); it uses the Framework's parallelizer inside.

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kube/api/pod.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/handle.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"
#include "scheduler/runtime/framework.h"

namespace trimaran::sched {

// The random seam of host selection and metric sampling. Deterministic for a seed.
// Externally synchronized (the scheduling thread owns it).
class RandomSource {
 public:
  explicit RandomSource(uint64_t seed) : engine_(seed) {}
  // Uniform in [0, n); n > 0.
  uint64_t Uniform(uint64_t n) {
    return std::uniform_int_distribution<uint64_t>(0, n - 1)(engine_);
  }

 private:
  std::mt19937_64 engine_;
};

// State carried from one cycle to the next by the scheduler: upstream's
// nextStartNodeIndex, plus scratch buffers reused so that steady-state cycles do not
// allocate. Externally synchronized.
struct SchedulingAlgorithmState {
  // Where the next Filter pass starts (an index into the candidate nodes, mod their
  // count).
  size_t next_start_node_index = 0;

  // ---- scratch (contents meaningless between cycles) ----
  Framework::PreFilterOutput pre_filter;
  std::vector<const NodeInfo*> candidates;
  std::vector<const NodeInfo*> feasible;
  std::vector<uint8_t> outcome;   // per examined position: 0 unvisited, 1 fits, 2 rejected
  std::vector<Status> rejection;  // per examined position, when outcome == 2
  Framework::ScoreBuffers scores;
};

// What one cycle saw, for tools (filled only when ScheduleOptions::details is set).
struct CycleDetails {
  // A node's filter verdict: Success, PreFilter's rejection (every node shares it), the
  // rejection of a node that a PreFilterResult left out ("node(s) didn't satisfy
  // plugin(s) [...]", attributed to the first narrowing plugin), or its Filter status.
  struct NodeVerdict {
    const NodeInfo* node = nullptr;
    Status status;
  };
  // PreFilter's status (Success, or the rejection every node shares).
  Status pre_filter;
  // With evaluate_all_nodes: every node of the snapshot, in snapshot order.
  std::vector<NodeVerdict> nodes;
  // The nodes that were scored, in the order of `scores` (empty when none were scored).
  std::vector<const NodeInfo*> scored;
  // Per plugin: normalized (`per_plugin`) and, for every plugin, raw scores (`raw`, what
  // Score returned before NormalizeScore); totals; which plugins ran (not skipped).
  Framework::ScoreBuffers scores;
  // Where a kError came from: the extension point, and the node for Filter errors.
  std::string failed_point;
  std::string failed_node;
  // The nominated node was feasible and taken (the daemon takes it without scoring).
  bool took_nominated = false;
};

struct ScheduleOptions {
  // Filter every candidate node, in snapshot order (no percentageOfNodesToScore
  // sampling, no early stop, no rotation, the next start index untouched), score even
  // when only one node fits, and filter the nominated node with the others (it is still
  // taken when it fits, as the daemon takes it without scoring).
  bool evaluate_all_nodes = false;
  // Among nodes still tied after the exact tie-break, take the smallest name instead of
  // a random one.
  bool deterministic_tie_break = false;
  // When set, filled as CycleDetails describes (costs copies; tools only).
  CycleDetails* details = nullptr;
};

struct ScheduleResult {
  // Success: suggested_host is set. A rejection (kUnschedulable, or
  // kUnschedulableAndUnresolvable when PreFilter said so or there are no nodes): no node
  // fits; the reason is FitErrorMessage(num_all_nodes, diagnosis), also the status's
  // message. kError: the cycle failed (the status names the plugin).
  Status status;
  std::string suggested_host;
  // Nodes Filter examined (feasible + rejected), and how many of them fit.
  int evaluated_nodes = 0;
  int feasible_nodes = 0;
  // Whether this cycle scored the feasible nodes: SchedulingAlgorithmState::scores and
  // ::feasible then hold their scores until the next cycle (not when one node fit, or
  // the nominated node was taken, without scoring).
  bool scored = false;
  // When scored: the index of suggested_host in those scores (SelectHost's pick); -1
  // otherwise.
  int selected_index = -1;
  // Nodes in the snapshot (the N of "0/N nodes are available").
  int num_all_nodes = 0;
  // Filled when no node fits: per-node statuses and the rejecting plugins.
  Diagnosis diagnosis;
};

// How many feasible nodes to look for among `num_nodes` candidates (spec §4.3):
// all when num_nodes < 100 or percentage >= 100; otherwise num_nodes × p / 100 with
// p = percentage, or max(5, 50 − num_nodes/125) when percentage is 0 or unset; at least
// 100. (100 → 100; 1,000 → 420; 5,000 → 500; 15,000 → 750.)
int NumFeasibleNodesToFind(std::optional<int32_t> percentage, int num_nodes);

// Whether exact total `a` is greater than `b` beyond the tie tolerance: two exact totals
// closer than 1e-9 (relative) are a tie, so the same utilisation reached through a
// different order of floating-point operations does not decide.
bool ExactGreater(double a, double b);

// The index into `totals` of the selected host (see the header comment); -1 when empty.
// With `deterministic`, nodes still tied after the exact tie-break go to the smallest
// node name (totals[i].node must be set) instead of a random one.
int SelectHost(std::span<const Framework::NodeTotal> totals, bool exact_tie_break,
               RandomSource& random, bool deterministic = false);

// Runs one scheduling cycle's algorithm for `pod` on `snapshot` (see the header
// comment). Sets state.record_plugin_metrics() for 10% of cycles.
ScheduleResult SchedulePod(Framework& framework, CycleState& state, const kube::Pod& pod,
                           const NodeInfoLister& snapshot, SchedulingAlgorithmState& algo,
                           RandomSource& random, const ScheduleOptions& options = {});

}  // namespace trimaran::sched
