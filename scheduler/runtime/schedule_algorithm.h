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

// The index into `totals` of the selected host (see the header comment); -1 when empty.
int SelectHost(std::span<const Framework::NodeTotal> totals, bool exact_tie_break,
               RandomSource& random);

// Runs one scheduling cycle's algorithm for `pod` on `snapshot` (see the header
// comment). Sets state.record_plugin_metrics() for 10% of cycles.
ScheduleResult SchedulePod(Framework& framework, CycleState& state, const kube::Pod& pod,
                           const NodeInfoLister& snapshot, SchedulingAlgorithmState& algo,
                           RandomSource& random);

}  // namespace trimaran::sched
