#include "scheduler/plugins/target_load_packing/metric_extraction.h"

namespace trimaran::sched::plugins::tlp {

std::optional<double> TargetLoadPackingValue(std::span<const lw::Metric> metrics,
                                             absl::string_view type) {
  std::optional<double> value;
  for (const lw::Metric& m : metrics) {
    if (m.type == type && (m.op == lw::kOpAvg || m.op == lw::kOpLatest)) value = m.value;
  }
  return value;
}

NodeLoad ExtractNodeLoad(std::span<const lw::Metric> metrics) {
  return NodeLoad{.cpu = TargetLoadPackingValue(metrics, lw::kTypeCpu),
                  .memory = TargetLoadPackingValue(metrics, lw::kTypeMemory)};
}

}  // namespace trimaran::sched::plugins::tlp
