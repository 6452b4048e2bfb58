#pragma once
// Writes the project's trace format (trace.h, docs/simulator.md), so that a generated or
// imported trace can be saved and read back by ParsePodsCsv / ParseClusterYaml:
//
//   std::string csv = FormatPodsCsv(pods);        // pods.csv
//   std::string yaml = FormatClusterYaml(cluster);  // node-groups.yaml
//
// FormatPodsCsv writes the base columns always and a recorded-only column (num_gpu,
// depends_on, orig_node, ...) only when some pod sets it. Times print as integers when
// whole, else with 3 decimals. Text cells are written as given: a ',' or a newline in a
// name, group or label would break the row (the CSV has no quoting), so callers keep
// them out (the importers replace them).
//
// Thread-safety: pure functions.

#include <string>
#include <vector>

#include "sim/trace.h"

namespace trimaran::sim {

std::string FormatPodsCsv(const std::vector<TracePod>& pods);
std::string FormatClusterYaml(const ClusterSpec& cluster);

}  // namespace trimaran::sim
