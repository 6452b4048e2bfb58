#pragma once
// The cycle skeleton the load-aware plugins (TargetLoadPacking, LoadVariationRiskBalancing,
// LowRiskOverCommitment) share around their formulas, written once:
//
//   PreScore        CycleSkeleton::Begin: the cycle's metrics (ForCycle), the fallback
//                   counts its notes compare with, the view attached to the plugin's
//                   recent-pod tracker (when it keeps one), and the NodeTable rebuilt
//                   once per (view × node set) change, not per cycle; the plugin then
//                   adds its per-pod terms to its CycleData (a CycleBase).
//   Score           ReadCycle: the cycle's data, or null when no PreScore ran; then
//                   CycleSkeleton::BeginLocal makes one on the spot (never blocking).
//                   ReportNodeState: the node's metrics state, counted for the fallback.
//   Reserve         CycleSkeleton::Assume: a pod placed this cycle counts as pending load
//                   on its node until a metrics window covers it (only when PreScore
//                   attached a view: the view's arrival is what prunes the tracker, so
//                   without one entries would only accumulate, and the fallback counts
//                   assumed pods through the node's requested resources anyway).
//                   Unreserve and pod deletion: RecentPodTracker::Forget.
//   FallbackNotes   CycleSkeleton::AppendFallbackNotes: the fallbacks counted since the
//                   cycle's PreScore.
//
// Templates and inline functions over the plugin's own record and data types: no
// virtual call and no allocation on the Score path beyond what each plugin does itself.
//
// Thread-safety: Begin and Assume run on the scheduling thread (PreScore, Reserve; the
// tracker locks itself). BeginLocal, ReadCycle, ReportNodeState and AppendFallbackNotes
// are safe for concurrent use (Score, ScoreNodes).

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kube/api/pod.h"
#include "scheduler/framework/cycle_state.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/plugins/load_aware/fallback.h"
#include "scheduler/plugins/load_aware/node_table.h"
#include "scheduler/plugins/load_aware/plugin_metrics.h"
#include "scheduler/plugins/load_aware/recent_pods.h"

namespace trimaran::sched::plugins::load_aware {

// What every load-aware plugin's CycleData holds (it derives from this, adds its per-pod
// terms and its Clone); `Record` is the record type of its NodeTable.
template <typename Record>
struct CycleBase : public StateData {
  CycleMetrics metrics;
  bool attached = false;  // PreScore attached metrics.view to the plugin's tracker
  std::shared_ptr<const NodeTable<Record>> table;  // for metrics.view; null without PreScore
  // The plugin's fallback counters when PreScore ran (AppendFallbackNotes).
  FallbackCounts fallbacks_before{};
};

// The cycle's data PreScore wrote under `key`; null when no PreScore ran.
template <typename Data>
const Data* ReadCycle(const CycleState& state, absl::string_view key) {
  if (auto read = state.Read<Data>(key); read.ok()) return *read;
  return nullptr;
}

// The state a plugin scores a node in (the cycle's when that is not kOk: no metrics,
// stale; else the record's), reported to the fallback counter: through the record's
// cache word when the record is the cycle table's (`cached_report`), directly when it was
// made on the spot. `record.key` is the node.
template <typename Record>
MetricsState ReportNodeState(PluginMetrics& metrics, MetricsState cycle_state, const Record& record,
                             bool cached_report) {
  const MetricsState state = cycle_state != MetricsState::kOk ? cycle_state : record.state;
  if (cached_report) {
    metrics.ReportCached(record.key->metadata.name, state, record.reported);
  } else {
    metrics.Report(record.key->metadata.name, state);
  }
  return state;
}

template <typename Record>
class CycleSkeleton {
 public:
  using Table = NodeTable<Record>;

  // `metrics` and `tracker` (null: the plugin keeps no recent pods) must outlive this;
  // `make` and `ctx` make the table's records (NodeTable::Build).
  CycleSkeleton(PluginMetrics& metrics, RecentPodTracker* tracker, typename Table::MakeRecord make,
                const void* ctx)
      : metrics_(metrics), tracker_(tracker), make_(make), ctx_(ctx) {}

  // PreScore's shared steps on the cycle's new `data` (see the top of this file).
  void Begin(CycleBase<Record>& data, std::span<const NodeInfo* const> nodes) {
    data.metrics = metrics_.ForCycle();
    data.fallbacks_before = metrics_.CountsNow();
    if (tracker_ != nullptr && data.metrics.view != nullptr) {
      // Once per new view: prune what its window covers and link the pending sums.
      tracker_->AttachView(data.metrics.view, metrics_.clock().Now() -
                                                  metrics_.spec().metrics_max_age -
                                                  absl::Seconds(kMetricsReportingAllowanceSeconds));
      data.attached = true;
    }
    // Once per (view × node set) change, not per cycle: a new view, or a node the table
    // lacked in an earlier cycle (records of unchanged nodes are reused).
    if (table_ == nullptr || table_->view() != data.metrics.view.get() || table_->had_misses()) {
      table_ = Table::Build(data.metrics.view, nodes, table_.get(), make_, ctx_);
    }
    data.table = table_;
  }

  // Score without a PreScore in the profile: `local` becomes the cycle's data, with the
  // metrics at hand (never blocking) and no table; the plugin adds its per-pod terms.
  template <typename Data>
  Data& BeginLocal(std::optional<Data>& local) const {
    local.emplace();
    local->metrics = metrics_.ForCycleNonBlocking();
    return *local;
  }

  // Reserve: `pod`'s `load` counts on `node_name` until the metrics show it, when the
  // cycle's PreScore attached a view.
  void Assume(const CycleBase<Record>& data, const kube::Pod& pod, absl::string_view node_name,
              const PodLoad& load) {
    if (data.attached) tracker_->Assume(pod, node_name, load);
  }

  // FallbackNotes for the cycle whose data is `data` (null: no PreScore ran, nothing to
  // compare with).
  void AppendFallbackNotes(absl::string_view plugin, const CycleBase<Record>* data,
                           std::vector<std::string>& out) const {
    if (data != nullptr) metrics_.AppendFallbackNotes(plugin, data->fallbacks_before, out);
  }

 private:
  PluginMetrics& metrics_;
  RecentPodTracker* const tracker_;
  const typename Table::MakeRecord make_;
  const void* const ctx_;
  // The newest table (PreScore only, scheduling thread); cycles hold their own reference.
  std::shared_ptr<const Table> table_;
};

}  // namespace trimaran::sched::plugins::load_aware
