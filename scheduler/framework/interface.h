#pragma once
// The plugin API: one interface per extension point of kube-scheduler's scheduling
// framework (k8s.io/kube-scheduler/framework interface.go). A plugin is a class that
// derives from the interfaces of the points it implements; the runtime discovers them
// once, when it builds a profile (dynamic_cast), never per pod.
//
//   class NodeName final : public FilterPlugin, public EnqueueExtensions {
//    public:
//     static constexpr absl::string_view kName = "NodeName";
//     absl::string_view Name() const override { return kName; }
//     Status Filter(const CycleState&, const kube::Pod&, const NodeInfo&) const override;
//     std::vector<ClusterEvent> EventsToRegister() const override;
//   };
//
// Every interface derives *virtually* from Plugin, so a plugin that implements several
// points has a single Name() and converts unambiguously to Plugin*.
//
// Pipeline for one pod (spec kube-scheduler.md §4.1, §5.4):
//
//   scheduling cycle (one pod at a time)                 binding cycle (async, per pod)
//   PreFilter ─► Filter* ─► [PostFilter if no node fits]  WaitOnPermit ─► PreBind ─► Bind
//     ─► PreScore ─► Score* ─► NormalizeScore             ─► PostBind
//     ─► select host ─► assume ─► Reserve ─► Permit ──────►  (on failure: Unreserve)
//   (* = parallel over nodes)
//
// Threading contract (docs/architecture.md invariants):
//   - Filter and Score (ScoreNodes) are called concurrently for different nodes of one
//     pod; they are const, take const inputs, must be thread-safe, must not allocate
//     per node in the common case (statuses for fixed reasons can be prebuilt, see
//     status.h), must not block and must not log above trace. NormalizeScore runs
//     concurrently across plugins.
//   - PreFilter, PostFilter and PreScore run on the scheduling thread, one pod at a time.
//   - Reserve/Unreserve, Permit, PreBind, Bind and PostBind may run concurrently for
//     *different* pods (each pod's binding cycle runs on its own thread); a plugin that
//     keeps state across pods synchronizes it (ABSL_GUARDED_BY).
//   - NodeInfo references are valid only during the call (the snapshot is replaced
//     between cycles); never keep a pointer to one, never mutate one.
//   - Reserve ↔ Unreserve symmetry: once Reserve was called for a pod (whether it
//     succeeded or not), Unreserve is called for it if the pod does not end up bound.
//     Unreserve must be idempotent and must not fail.
//
// Ownership: the runtime owns plugins (std::unique_ptr<Plugin>) for the life of the
// profile; a plugin may keep the Handle& it was created with for as long.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cluster_event.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"

namespace trimaran::sched {

// Permit may ask to wait at most this long (upstream's maxTimeout).
inline constexpr absl::Duration kMaxPermitTimeout = absl::Minutes(15);

class Plugin {
 public:
  virtual ~Plugin() = default;
  // The user-facing PascalCase name ("NodeResourcesFit"), the name used in the config,
  // in statuses and in metrics. Constant for the plugin's life.
  virtual absl::string_view Name() const = 0;
};

using PluginPtr = std::unique_ptr<Plugin>;

// Orders activeQ. Exactly one per profile (all profiles must agree, as upstream).
class QueueSortPlugin : public virtual Plugin {
 public:
  // True when `a` should be scheduled before `b`. A strict weak ordering.
  virtual bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
};

// Decides whether a pod may enter activeQ at all (SchedulingGates). A rejection keeps
// the pod gated in the unschedulable pool until an event it registered for.
class PreEnqueuePlugin : public virtual Plugin {
 public:
  // Success lets the pod in; anything else gates it (kUnschedulableAndUnresolvable by
  // convention).
  virtual Status PreEnqueue(const kube::Pod& pod) const = 0;
};

// Optional, implemented next to a rejecting interface: the cluster events that may make
// a pod this plugin rejected schedulable again. A plugin that rejects pods but does not
// implement this is treated as registering kWildCardEvent (any event moves the pod).
//
// QueueingHint: called (on an informer thread, under the queue's lock, so it must be
// cheap and must not call back into the queue) for each pod this plugin rejected when
// an event matching one of its registrations arrives; kQueueSkip keeps the pod in the
// unschedulable pool. The default queues on every matching event. An error is logged
// and treated as kQueue (upstream's rule).
class EnqueueExtensions : public virtual Plugin {
 public:
  virtual std::vector<ClusterEvent> EventsToRegister() const = 0;
  virtual absl::StatusOr<QueueingHint> Hint(const kube::Pod& pod, const ClusterEvent& event,
                                            const EventObjects& objects) const {
    (void)pod;
    (void)event;
    (void)objects;
    return QueueingHint::kQueue;
  }
};

// One count behind a plugin's verdicts or scores: a table of the plugin's cycle state
// ("existingAntiAffinity", "filter[0]", ...), a topology key and value, and the count.
struct StateCount {
  std::string table;
  std::string key;
  std::string value;
  int64_t count = 0;

  friend bool operator==(const StateCount&, const StateCount&) = default;
};

// Optional, for plugins whose PreFilter/PreScore state explains their decisions
// (InterPodAffinity's and PodTopologySpread's counts per topology pair): the offline
// explainer (trimaranctl score) reads it after a cycle and sorts the rows (by table,
// key, value). Empty when the plugin wrote no state (it skipped).
class StateExplainer {
 public:
  virtual ~StateExplainer() = default;
  virtual std::vector<StateCount> ExplainState(const CycleState& state) const = 0;
};

// What preemption would do for a pod no node fits, without any API call: implemented
// by PostFilter plugins that preempt (DefaultPreemption), read by the explainer
// (`trimaranctl score`) after a cycle that found no node.
struct PreemptionPreview {
  bool would_preempt = false;
  // The plugin's verdict: why not ("preemption: 0/3 nodes are available: ..."), or
  // where it would go.
  std::string message;
  std::string node;                  // the chosen node ("" when none)
  std::vector<std::string> victims;  // "namespace/name", most important first
  int64_t pdb_violations = 0;        // of the chosen node's victims
  int candidates = 0;                // nodes the dry run found that could take the pod
};

class PreemptionPreviewer {
 public:
  virtual ~PreemptionPreviewer() = default;
  // `state`: the failed cycle's state (cloned as needed); `filtered_node_status`: the
  // cycle's per-node verdicts.
  virtual PreemptionPreview Preview(CycleState& state, const kube::Pod& pod,
                                    const NodeToStatus& filtered_node_status) = 0;
};

// Incremental updates of a PreFilter plugin's CycleState data when the runtime
// pretends a pod is added to or removed from a node (nominated pods, §4.5; preemption
// dry runs). Called on a state private to the caller (a Clone), sequentially.
class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  virtual Status AddPod(CycleState& state, const kube::Pod& pod_to_schedule,
                        const PodInfo& pod_to_add, const NodeInfo& node_info) const = 0;
  virtual Status RemovePod(CycleState& state, const kube::Pod& pod_to_schedule,
                           const PodInfo& pod_to_remove, const NodeInfo& node_info) const = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // Called once per cycle before any Filter, with all snapshot nodes (or the subset a
  // nominated-node check looks at). Typical use: compute what Filter needs once and
  // Write it to `state`.
  //   Success: continue. `result` starts as "all nodes"; narrowing it restricts Filter
  //     to the named nodes (see PreFilterResult).
  //   Skip: this plugin's Filter (and PreFilterExtensions) is not run this cycle.
  //   kUnschedulableAndUnresolvable: the cycle stops here; kUnschedulable: the other
  //     PreFilters still run, then the cycle fails (the message is Diagnosis's
  //     pre_filter_msg). kError: the cycle aborts.
  virtual Status PreFilter(CycleState& state, const kube::Pod& pod,
                           std::span<const NodeInfo* const> nodes, PreFilterResult& result) = 0;
  // nullptr when the plugin keeps no incremental state.
  virtual const PreFilterExtensions* GetPreFilterExtensions() const { return nullptr; }
};

class FilterPlugin : public virtual Plugin {
 public:
  // Can `pod` run on `node_info`? Success, kUnschedulable or
  // kUnschedulableAndUnresolvable (with reasons, which end up in the FailedScheduling
  // message), or kError. The runtime stops at a node's first non-success plugin.
  // Concurrent across nodes: see the threading contract above.
  virtual Status Filter(const CycleState& state, const kube::Pod& pod,
                        const NodeInfo& node_info) const = 0;
};

// Runs when no node passed Filter (DefaultPreemption). Success with
// result.nominated_node_name set means room was made on that node; kUnschedulable means
// it could not help (its reasons become Diagnosis::post_filter_msg).
class PostFilterPlugin : public virtual Plugin {
 public:
  virtual Status PostFilter(CycleState& state, const kube::Pod& pod,
                            const NodeToStatus& filtered_node_status, PostFilterResult& result) = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  // Called once with the feasible nodes before Score. Skip: this plugin's Score is not
  // run this cycle and counts 0 on every node. kError aborts the cycle.
  virtual Status PreScore(CycleState& state, const kube::Pod& pod,
                          std::span<const NodeInfo* const> nodes) = 0;
};

// Rescales one plugin's raw scores of all feasible nodes into [kMinNodeScore,
// kMaxNodeScore] (e.g. DefaultNormalizeScore). Must keep ScoreResult's exact-score
// contract: rescale `exact` like `score`, or reset it.
class ScoreExtensions {
 public:
  virtual ~ScoreExtensions() = default;
  virtual Status NormalizeScore(const CycleState& state, const kube::Pod& pod,
                                NodeScoreList& scores) const = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  // The node's score for `pod`: [kMinNodeScore, kMaxNodeScore] unless the plugin
  // normalizes; optionally with an exact (unrounded) value for tie-breaking (see
  // ScoreResult). Concurrent across nodes: see the threading contract above.
  virtual ScoreResult Score(const CycleState& state, const kube::Pod& pod,
                            const NodeInfo& node_info) const = 0;
  // Batch Score: scores nodes[i] into scores[i].score and scores[i].exact for every i
  // (scores.size() == nodes.size(); the runtime has already set every scores[i].name
  // and reset score/exact). The runtime calls this once per run of consecutive feasible
  // nodes (in PreScore's order), concurrently for disjoint runs, instead of calling Score
  // per node; a plugin may override it to read its cycle state once per run and keep
  // the per-node work in a tight loop (TargetLoadPacking does). The result must be
  // exactly what Score would give node by node. A non-success status (kError) fails the
  // cycle as Score's would. Default: Score per node, stopping at the first failure.
  virtual Status ScoreNodes(const CycleState& state, const kube::Pod& pod,
                            std::span<const NodeInfo* const> nodes,
                            std::span<NodeScore> scores) const {
    for (size_t i = 0; i < nodes.size(); ++i) {
      ScoreResult r = Score(state, pod, *nodes[i]);
      if (!r.status.IsSuccess()) return std::move(r.status);
      scores[i].score = r.score;
      scores[i].exact = r.exact;
    }
    return Status();
  }
  // nullptr when scores need no normalization.
  virtual const ScoreExtensions* GetScoreExtensions() const { return nullptr; }
};

// Reserve: the pod was assumed on `node_name`; update plugin state that must count it
// before the binding completes. Unreserve: undo it (the cycle or the binding failed).
class ReservePlugin : public virtual Plugin {
 public:
  // Non-success fails the cycle; Unreserve then runs for every Reserve plugin.
  virtual Status Reserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) = 0;
  // Idempotent; must not fail.
  virtual void Unreserve(CycleState& state, const kube::Pod& pod, absl::string_view node_name) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // Success: allow. kWait: hold the pod until allowed/rejected through the Handle
  // (IterateOverWaitingPods, waiting_pod.h) or `timeout` (set by the plugin, capped at
  // kMaxPermitTimeout) elapses, which rejects it. Rejections and kError: Unreserve and
  // re-queue.
  virtual Status Permit(CycleState& state, const kube::Pod& pod, absl::string_view node_name,
                        absl::Duration& timeout) = 0;
};

class PreBindPlugin : public virtual Plugin {
 public:
  // Work that must finish before Bind (attach volumes, ...). Non-success: Unreserve,
  // forget the assumed pod, re-queue.
  virtual Status PreBind(CycleState& state, const kube::Pod& pod, absl::string_view node_name) = 0;
};

class BindPlugin : public virtual Plugin {
 public:
  // Binds the pod (DefaultBinder POSTs pods/{name}/binding). Skip: not this plugin's
  // pod, the next Bind plugin is tried. Other non-success: Unreserve, forget, re-queue.
  virtual Status Bind(CycleState& state, const kube::Pod& pod, absl::string_view node_name) = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  // Informational, after a successful Bind (clean-up).
  virtual void PostBind(CycleState& state, const kube::Pod& pod, absl::string_view node_name) = 0;
};

}  // namespace trimaran::sched
