#pragma once
// The machine-readable forms of a ClusterView (model.h): the `-o json` document (schema
// in docs/trimaranctl.md), which the web dashboard serves at api/nodes and embeds in its
// page, and the `-o csv` rows. The text table is terminal/layout.h.
//
// Thread-safety: pure functions.

#include <string>

#include "dashboard/model.h"
#include "dashboard/targets.h"

namespace trimaran::dashboard {

inline constexpr int kJsonSchemaVersion = 1;

// The -o json document; `targets` (TargetLoadPacking's, targets.h) are carried as they
// are drawn on the bars.
std::string RenderJson(const ClusterView& view, const TargetPercent& targets);

// The -o csv output: a header row, then one row per node (in the view's order):
// name,instance_type,capacity_type,zone,ready,cordoned,deleting,age_seconds,pods,
// allocatable_pods,price_per_hour,usage, then per resource <r>_allocatable,<r>_requested,
// <r>_used (cpu in millicores, memory in bytes), then the extra labels. Unknown values
// (price, usage, a missing label) are empty fields, never 0. RFC 4180 quoting.
std::string RenderCsv(const ClusterView& view);

}  // namespace trimaran::dashboard
