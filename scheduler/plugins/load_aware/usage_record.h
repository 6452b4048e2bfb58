#pragma once
// UsageRecord: one node's constants for one metrics view, as a load_aware::NodeTable record
// (node_table.h) of the plugins that read a node's whole usage (LoadVariationRiskBalancing,
// LowRiskOverCommitment): the node's usage in the view, its allocatable already
// converted from Quantities, its view-level metrics state and its fallback-report word
// (FallbackReporter::ReportCached). With it Score does no name hashing, no Quantity
// conversion and takes no lock per node.
//
// Thread-safety: immutable once built but for `reported` (atomic). One cache line.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "kube/api/node.h"
#include "scheduler/framework/node_info.h"
#include "scheduler/framework/status.h"
#include "scheduler/framework/types.h"
#include "scheduler/plugins/load_aware/fallback.h"
#include "scheduler/plugins/load_aware/metrics_view.h"
#include "scheduler/plugins/load_aware/node_table.h"
#include "scheduler/plugins/load_aware/resource_stats.h"

namespace trimaran::sched::plugins::load_aware {

struct alignas(64) UsageRecord {
  const kube::Node* key = nullptr;  // the table key (NodeTable keeps it alive)
  // FallbackReporter::ReportCached's word for this node.
  mutable std::atomic<uint64_t> reported{FallbackReporter::kNotReported};
  CpuMem allocatable;  // Allocatable(node)
  // The node's usage in the view; null when the view does not list it (or no view).
  const NodeUsage* usage = nullptr;
  // kOk, kNodeMissing (usage null) or kNoUsableMetric (neither a CPU nor a Memory value).
  MetricsState state = MetricsState::kNodeMissing;

  UsageRecord() = default;
  UsageRecord& operator=(const UsageRecord& o) {
    key = o.key;
    reported.store(o.reported.load(std::memory_order_relaxed), std::memory_order_relaxed);
    allocatable = o.allocatable;
    usage = o.usage;
    state = o.state;
    return *this;
  }
};

// NodeTable's MakeRecord for UsageRecord (`ctx` unused; node_info.node() non-null): all
// but `key`.
void MakeUsageRecord(const void* ctx, const MetricsView* view, const NodeInfo& node_info,
                     UsageRecord& out);

// The record Score uses for `node_info` (node() non-null): its record in `table` (may be
// null; searched from `cursor`), else (a node new to the table, noted as a miss, or no
// table) `fresh`, made on the spot against `view`. *from_table tells which (the
// fallback report then goes through the record's word).
inline const UsageRecord& RecordFor(const NodeTable<UsageRecord>* table, const MetricsView* view,
                                    const NodeInfo& node_info, size_t& cursor, UsageRecord& fresh,
                                    bool* from_table) {
  if (table != nullptr) {
    if (const UsageRecord* record = table->Find(node_info.node(), cursor); record != nullptr) {
      *from_table = true;
      return *record;
    }
    table->NoteMiss();
  }
  *from_table = false;
  fresh.key = node_info.node();
  MakeUsageRecord(nullptr, view, node_info, fresh);
  return fresh;
}

// ScoreNodes for a plugin that scores node by node with a run-local table cursor:
// scores[i] = one(*nodes[i], cursor) for every i.
template <typename ScoreOne>
Status ScoreEach(std::span<const NodeInfo* const> nodes, std::span<NodeScore> scores,
                 ScoreOne one) {
  size_t cursor = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ScoreResult r = one(*nodes[i], cursor);
    scores[i].score = r.score;
    scores[i].exact = r.exact;
  }
  return Status();
}

}  // namespace trimaran::sched::plugins::load_aware
