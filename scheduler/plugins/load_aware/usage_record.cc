#include "scheduler/plugins/load_aware/usage_record.h"

namespace trimaran::sched::plugins::load_aware {

void MakeUsageRecord(const void* /*ctx*/, const MetricsView* view, const NodeInfo& node_info,
                     UsageRecord& out) {
  static_assert(sizeof(UsageRecord) == 64, "one cache line per node");
  out.allocatable = Allocatable(*node_info.node());
  out.usage = view == nullptr ? nullptr : view->Find(node_info.name());
  if (out.usage == nullptr) {
    out.state = MetricsState::kNodeMissing;
  } else if (out.usage->bad) {
    out.state = MetricsState::kBadValue;
  } else if (!out.usage->cpu.valid && !out.usage->memory.valid) {
    out.state = MetricsState::kNoUsableMetric;
  } else {
    out.state = MetricsState::kOk;
  }
}

}  // namespace trimaran::sched::plugins::load_aware
