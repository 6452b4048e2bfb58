#pragma once
// The value types passed across the plugin interfaces (interface.h): queued pods,
// PreFilter/PostFilter results, scores, and the per-node failure record (NodeToStatus,
// Diagnosis) that becomes the FailedScheduling message. Upstream's framework/types.go
// and the result types of interface.go.
//
// Thread-safety: plain values, externally synchronized.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kube/api/pod.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/status.h"

namespace trimaran::sched {

// ---- Queue ----

// A pod waiting in the scheduling queue, with the bookkeeping the queue and the
// QueueSort plugin need. Owned by the queue; plugins see it by const reference.
struct QueuedPodInfo {
  std::shared_ptr<const kube::Pod> pod;
  // When the pod was added to the queue or last re-queued: PrioritySort's tie-break
  // (earlier first) and the base of the backoff expiry.
  absl::Time timestamp = absl::InfinitePast();
  // Scheduling attempts so far (drives exponential backoff).
  int attempts = 0;
  // The first time the pod was popped for scheduling (for the e2e latency metric).
  std::optional<absl::Time> initial_attempt_timestamp;
  // Plugins that rejected the pod in its last attempt (Unschedulable or
  // UnschedulableAndUnresolvable): only events they registered for move the pod.
  absl::flat_hash_set<std::string> unschedulable_plugins;
  // Plugins that returned Pending in the last attempt: their events move the pod to
  // activeQ without backoff.
  absl::flat_hash_set<std::string> pending_plugins;
  // The PreEnqueue plugin that gates the pod ("" when not gated).
  std::string gating_plugin;
  // Consecutive attempts that ended in kError (the error backoff).
  int consecutive_errors_count = 0;
  // The queue's bookkeeping: the plugins this pod is counted under in
  // scheduler_unschedulable_pods{plugin, profile} until it is popped or deleted.
  std::vector<std::string> counted_unschedulable_plugins;
};

// ---- PreFilter / PostFilter ----

// What PreFilter may say about the candidate nodes: "only these nodes can possibly fit"
// (NodeAffinity with matchFields metadata.name, for instance). The runtime intersects
// the results of all PreFilter plugins and runs Filter only on the intersection; the
// other nodes are rejected as UnschedulableAndUnresolvable "node(s) didn't satisfy
// plugin(s) [...]".
struct PreFilterResult {
  // nullopt: every node is a candidate (the default; no restriction).
  std::optional<absl::flat_hash_set<std::string>> node_names;

  bool AllNodes() const { return !node_names.has_value(); }
  // The intersection; AllNodes() is the identity.
  PreFilterResult Merge(const PreFilterResult& other) const;
};

// What PostFilter (preemption) achieved: the node the pod was nominated to ("" = none).
struct PostFilterResult {
  std::string nominated_node_name;
};

// ---- Score ----

// Scores are integers in [kMinNodeScore, kMaxNodeScore] after NormalizeScore, exactly
// as upstream computes them; the runtime sums weight × score over plugins.
inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMinNodeScore = 0;
// Upstream's scale for extender priorities (0..10).
inline constexpr int64_t kMaxExtenderPriority = 10;

// What ScorePlugin::Score returns for one node.
//
// Exact scores (Trimaran's packing fix; see issue 4, "Bin packing that actually packs").
// Upstream truncates every score to an integer, and then breaks ties among the best
// nodes at random. For a bin-packing strategy one small pod moves a big node's score
// by less than one point, so hundreds of nodes tie and random tie-breaking spreads the
// pods. A plugin may therefore also report `exact`: the same score before rounding, on
// the same 0..100 scale (e.g. MostAllocated's Σ w_i·100·req_i/alloc_i / Σ w_i in
// floating point). The contract:
//   - `score` is unchanged: it is the upstream-compatible integer, and the weighted
//     integer total Σ_p w_p·score_p alone decides which nodes are best. A node with a
//     higher integer total always wins, whatever the exact values.
//   - Among nodes whose integer totals are equal, the runtime orders by the exact total
//     Σ_p w_p·(exact_p if reported, else score_p), highest first; only nodes still tied
//     after that are picked at random (upstream's behaviour).
//   - `exact` must be finite and within [kMinNodeScore, kMaxNodeScore]; the runtime
//     ignores it otherwise. It must describe the same preference as `score` (higher is
//     better, and score ≈ exact up to the plugin's rounding).
//   - A plugin with NormalizeScore that rescales `score` must rescale `exact` the same
//     way, or reset it to nullopt (then its integer score is used in the exact total).
// Plugins that do not care leave `exact` unset: their integer score is used.
struct ScoreResult {
  int64_t score = 0;
  std::optional<double> exact;
  // Success, or kError (the cycle fails: "plugin X failed"); nothing else is allowed.
  Status status;

  static ScoreResult Of(int64_t score) { return ScoreResult{score, std::nullopt, Status()}; }
  static ScoreResult Of(int64_t score, double exact) { return ScoreResult{score, exact, Status()}; }
  static ScoreResult Failed(Status status) {
    return ScoreResult{0, std::nullopt, std::move(status)};
  }
};

// One plugin's score for one node, as NormalizeScore sees it. `name` points at the
// snapshot's node name and is valid for the scheduling cycle (no per-node string
// copy on the hot path).
struct NodeScore {
  absl::string_view name;
  int64_t score = 0;
  std::optional<double> exact;  // see ScoreResult
};
// One entry per feasible node, in the order of the nodes passed to PreScore.
using NodeScoreList = std::vector<NodeScore>;

// ---- Filter failures ----

// The Filter (or PreFilter) verdict for every node that was rejected, keyed by node name.
// Nodes without an explicit entry were never filtered because a PreFilterResult
// excluded them; they share absent_nodes_status().
class NodeToStatus {
 public:
  // Absent nodes default to UnschedulableAndUnresolvable with no reason (upstream's
  // NewDefaultNodeToStatus).
  NodeToStatus() : absent_nodes_status_(Code::kUnschedulableAndUnresolvable) {}

  void Set(absl::string_view node_name, Status status);
  // The explicit status of `node_name`, else absent_nodes_status().
  const Status& Get(absl::string_view node_name) const;
  bool Contains(absl::string_view node_name) const { return map_.contains(node_name); }
  // Number of explicit entries.
  size_t size() const { return map_.size(); }

  const Status& absent_nodes_status() const { return absent_nodes_status_; }
  void set_absent_nodes_status(Status status) { absent_nodes_status_ = std::move(status); }

  // Calls fn(node_name, status) for every explicit entry (unspecified order).
  void ForEachExplicitNode(
      absl::FunctionRef<void(absl::string_view node_name, const Status& status)> fn) const;

  // The nodes of `all_nodes` whose status (explicit or absent) has `code`, in the order
  // of `all_nodes`: preemption's candidates are the kUnschedulable ones.
  std::vector<const NodeInfo*> NodesForStatusCode(std::span<const NodeInfo* const> all_nodes,
                                                  Code code) const;

 private:
  absl::flat_hash_map<std::string, Status> map_;
  Status absent_nodes_status_;
};

// Why a pod could not be scheduled: the input of the FailedScheduling message and of the
// queue's decision (which plugins' events can move the pod).
struct Diagnosis {
  NodeToStatus node_to_status;
  // Plugins that returned Unschedulable / UnschedulableAndUnresolvable.
  absl::flat_hash_set<std::string> unschedulable_plugins;
  // Plugins that returned Pending.
  absl::flat_hash_set<std::string> pending_plugins;
  // Set when PreFilter rejected the pod; the message then replaces the node histogram.
  std::string pre_filter_msg;
  // PostFilter's (preemption's) message, ending with a period.
  std::string post_filter_msg;
};

// "0/N nodes are available: 2 Insufficient cpu, 1 node(s) had untolerated taint(s)."
// (spec §6.3): N = num_all_nodes; the histogram counts every reason of every rejected
// node (absent nodes count with absent_nodes_status's reasons), "<count> <reason>"
// sorted as strings; pre_filter_msg replaces the histogram when set; post_filter_msg is
// appended after a space.
std::string FitErrorMessage(int num_all_nodes, const Diagnosis& diagnosis);

}  // namespace trimaran::sched
