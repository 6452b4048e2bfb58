#pragma once
// TargetLoadPacking's reading of a node's load-watcher metrics (spec
// trimaran-and-load-watcher.md §2.3): per resource type, the LAST entry of the type whose
// operator is AVG or Latest; STD and an empty operator are ignored. Unset when there is
// none. Unlike the shared rules of LVRB and LRO (load_aware/metrics_view.h,
// GetResourceData), a Latest after an AVG wins.
//
// The plugin extracts once per metrics view and node, into its per-node record
// (target_load_packing.cc, MakeRecord), from the entries the view keeps
// (load_aware::NodeUsage::metrics).
//
// Thread-safety: pure functions.

#include <optional>
#include <span>

#include "absl/strings/string_view.h"
#include "loadwatcher/metrics.h"

namespace trimaran::sched::plugins::tlp {

// Spec §2.3 over `metrics` for `type` ("CPU" or "Memory"): the last AVG/Latest value
// (a percentage), or unset.
std::optional<double> TargetLoadPackingValue(std::span<const lw::Metric> metrics,
                                             absl::string_view type);

// Both resources the formula reads, in the plugin's resource order (0 cpu, 1 memory).
struct NodeLoad {
  std::optional<double> cpu;
  std::optional<double> memory;
};
NodeLoad ExtractNodeLoad(std::span<const lw::Metric> metrics);

}  // namespace trimaran::sched::plugins::tlp
